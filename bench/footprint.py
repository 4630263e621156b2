"""Memory footprint of the default install: the proportional set size (PSS) of the whole process
tree that ``scripts/run`` starts, idle and after 20 offline briefs through the API, per process.

    .venv/bin/python bench/footprint.py [--briefs 20] [--keep]

The stack is started as ``scripts/run`` starts it (``manage.py serve``: the local RSSHub from
``tools/rsshub``, migrations, the catalog import, a first staff account, Daphne and one
``qcluster``), with the default settings of a fresh clone: SQLite in a temporary ``DATA_DIR``, no
Redis, no model key, no ``Q_*`` variables. Only the ports are free ones, the staff account is
named (so nothing asks at a terminal) and the egress canary is off (a failed fetch would
otherwise ask GitHub through RSSHub: nothing here leaves 127.0.0.1).

Why PSS: the qcluster's processes are forks that share most of their pages; RSS counts a shared
page once per process, PSS divides it among them, so the PSS of a tree is what the tree costs the
machine. Read from ``/proc/<pid>/smaps_rollup``.

"Idle" is taken once the tree has settled (every worker has built its search index and started
its feed parser: the total moved less than 1 MB over three readings a second apart). The briefs
ask the RSSHub Test route (``/test/:id``), which RSSHub answers itself, so each one fetches and
is written as on a real instance; they are created at once, then the tree settles again.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
STARTUP_SECONDS = 300  # the catalog import from a cold RSSHub is the long part
SETTLE_SECONDS = 120
BRIEF_SECONDS = 300
TARGET_MB = 700  # issue 37: the whole tree, RSSHub included
STAFF = "footprint"
PASSWORD = "footprint-bench-pass-1"
WORDS = ["chips", "rockets", "tariffs", "vaccines", "robots", "satellites", "batteries"]
# Variables a fresh clone does not have: they would change the shape being measured.
UNSET_PREFIXES = ("DATABASE_URL", "REDIS_URL", "RSSHUB_", "OPENAI_", "Q_", "DJANGO_SETTINGS")


# --- the process tree ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    pid: int
    role: str
    pss_kib: int
    rss_kib: int


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            # The command may hold spaces and parentheses: the fields start after the last ")".
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def tree_pids(root: int) -> list[int]:
    """``root`` and every descendant of it, parents first."""
    children, pids, todo = _children(), [], [root]
    while todo:
        pid = todo.pop(0)
        pids.append(pid)
        todo.extend(sorted(children.get(pid, [])))
    return pids


def _memory(pid: int) -> tuple[int, int] | None:
    """(PSS, RSS) in KiB, or None when the process is gone."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return None
    values = {}
    for line in lines:
        name, _, rest = line.partition(":")
        if name in ("Pss", "Rss"):
            values[name] = int(rest.split()[0])
    return values.get("Pss", 0), values.get("Rss", 0)


def role(pid: int, root: int) -> str:
    """What a process of the tree is, from its command line (django-q names its processes
    when setproctitle is installed: ``qcluster <process> idle|pusher|monitor``)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return "gone"
    argv = argv.replace("\0", " ").strip()
    if pid == root:
        return "supervisor (manage.py serve)"
    if "server.mjs" in argv or argv.split(" ")[0].endswith("/node"):
        return "RSSHub (node)"
    if "daphne" in argv:
        return "Daphne"
    if "worker_main" in argv:
        return "parse worker"
    if "qcluster" not in argv:
        return argv[:60]
    words = argv.split(" ")
    # The guard (django-q's sentinel) is forked from the main process and keeps its title.
    if words[0] != "qcluster" or words[1] == "MainProcess":
        return "qcluster (main)" if _parent(pid) == root else "qcluster guard (sentinel)"
    names = {"pusher": "qcluster pusher", "monitor": "qcluster monitor"}
    return names.get(words[-1], "qcluster worker")


def _parent(pid: int) -> int:
    with contextlib.suppress(OSError):
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return 0


def snapshot(root: int) -> list[Sample]:
    samples = []
    for pid in tree_pids(root):
        memory = _memory(pid)
        if memory is not None:
            samples.append(Sample(pid, role(pid, root), *memory))
    return samples


def total_mib(samples: list[Sample]) -> float:
    return sum(s.pss_kib for s in samples) / 1024


def settled(root: int, what: str) -> list[Sample]:
    """A snapshot once three readings a second apart moved less than 1 MiB in all."""
    readings: list[float] = []
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        samples = snapshot(root)
        readings.append(total_mib(samples))
        if len(readings) >= 3 and max(readings[-3:]) - min(readings[-3:]) < 1.0:
            return samples
        time.sleep(1.0)
    print(f"  ({what}: still moving after {SETTLE_SECONDS} s; measured as it is)", flush=True)
    return snapshot(root)


# --- the stack -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stack_env(workdir: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(UNSET_PREFIXES)}
    env.update(
        DATA_DIR=workdir, SECRET_KEY="footprint-bench-only", DEBUG="0", LOG_LEVEL="WARNING",
        RSSHUB_LOCAL_PORT=str(free_port()), RSSHUB_EGRESS_CANARY="off",
        ADMIN_USERNAME=STAFF, ADMIN_PASSWORD=PASSWORD, PYTHONUNBUFFERED="1",
        # The bench reads each brief's state often; the quota and throttles are not measured.
        API_THROTTLE_RATE="100000/minute", API_CREATE_THROTTLE_RATE="10000/minute",
    )  # fmt: skip
    return env


def serve(env: dict[str, str], port: int, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port)], cwd=ROOT, env=env,
        stdin=subprocess.DEVNULL, stdout=log.open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip


def wait_ready(process: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while "Press Ctrl-C" not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"serve did not become ready; its output:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"Daphne did not listen; serve's output:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


def api_token(env: dict[str, str]) -> str:
    issued = subprocess.run(
        [sys.executable, "manage.py", "issue_token", STAFF, "--name", "footprint bench"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return issued.stdout.strip().splitlines()[-1]


def briefs_run(url: str, token: str, count: int) -> dict[str, int]:
    """Create ``count`` offline briefs at once, wait for all; returns outcomes and their counts."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
        ids = []
        for n in range(count):
            question = f"latest {WORDS[n % len(WORDS)]} news on RSSHub Test {n}"
            created = client.post("/api/v1/briefs", json={"question": question, "offline": True})
            created.raise_for_status()
            ids.append(created.json()["id"])
        outcomes: dict[str, int] = {}
        deadline = time.monotonic() + BRIEF_SECONDS
        for brief_id in ids:
            while True:
                body = client.get(f"/api/v1/briefs/{brief_id}").json()
                if body.get("finished_at"):
                    key = f"{body['status']}/{body.get('outcome')}"
                    outcomes[key] = outcomes.get(key, 0) + 1
                    break
                if time.monotonic() > deadline:
                    raise SystemExit(f"brief {brief_id} did not finish in {BRIEF_SECONDS} s")
                time.sleep(0.2)
    return outcomes


# --- report -------------------------------------------------------------------------------------


def table(title: str, samples: list[Sample]) -> None:
    print(f"\n{title}")
    print(f"  {'process':<32}{'pid':>8}{'PSS MB':>10}{'RSS MB':>10}")
    for s in samples:
        print(f"  {s.role:<32}{s.pid:>8}{s.pss_kib / 1024:>10.1f}{s.rss_kib / 1024:>10.1f}")
    by_role: dict[str, list[Sample]] = {}
    for s in samples:
        by_role.setdefault(s.role, []).append(s)
    print(f"  {'-' * 60}")
    for name, group in by_role.items():
        pss = sum(s.pss_kib for s in group) / 1024
        print(f"  {name:<32}{len(group):>8}{pss:>10.1f}")
    total = total_mib(samples)
    verdict = "met" if total < TARGET_MB else "MISSED"
    print(f"  {'whole tree':<32}{len(samples):>8}{total:>10.1f}   target < {TARGET_MB}: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--briefs", type=int, default=20)
    parser.add_argument("--keep", action="store_true", help="keep the work folder and its log")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="rsshub-footprint-")
    env, port = stack_env(workdir), free_port()
    log = Path(workdir) / "serve.log"
    process = serve(env, port, log)
    try:
        wait_ready(process, port, log)
        idle = settled(process.pid, "idle")
        outcomes = briefs_run(f"http://127.0.0.1:{port}", api_token(env), args.briefs)
        after = settled(process.pid, "after briefs")
    finally:
        stop(process)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    meminfo = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
    print("footprint of `manage.py serve` (scripts/run's stack), SQLite, offline briefs")
    print(f"machine: {os.cpu_count()} CPUs, {int(meminfo) / 2**20:.1f} GiB, load {load}")
    table("idle", idle)
    table(f"after {args.briefs} briefs ({', '.join(f'{k}: {v}' for k, v in outcomes.items())})",
          after)  # fmt: skip
    if args.keep:
        print(f"\nwork folder: {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
