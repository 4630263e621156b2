"""Live step stream benchmark: many websocket clients watch one running brief; the delay from a
step's commit to its arrival at each client, p50 and p95, with the Redis channel layer and with
PostgreSQL's NOTIFY (the doorbell without Redis, ``briefs.doorbell``), in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x .venv/bin/python bench/stream.py \\
        [--clients 100] [--steps 40] [--every 0.1] [--redis redis://127.0.0.1:6379/15]

Real parts only: Daphne serving ``rsshub_agent.asgi`` as a subprocess, real sockets (the
``websockets`` client, each client signed in with its own session cookie and an allowed Origin),
and a writer subprocess that appends steps with ``briefs.steps.step_append`` (its own
transaction, then the doorbell) and notes the moment each transaction commits (an on_commit hook
that runs before the doorbell's; each payload also carries the time the write began). A delay is
arrival minus that commit time. One machine, one clock.

PostgreSQL only: a scratch database ``rsshub_agent_bench_stream`` on the server ``DATABASE_URL``
names, created and dropped here (the named database is never touched). Every client must get
every step exactly once and in order; the run says so, or fails.

Targets: p95 under 100 ms with Redis (issue 5), and without it (issue 18: NOTIFY replaced the
0.5 s poll).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: the project root, not bench/, comes first
BENCH_DB = "rsshub_agent_bench_stream"
STARTUP_SECONDS = 30


def django_setup(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("SECRET_KEY", "bench-only-not-a-secret")
    os.environ["DJANGO_SETTINGS_MODULE"] = "rsshub_agent.settings"
    import django

    django.setup()


# --- the writer (a subprocess: another process, like the worker) --------------------------------


def writer_main(brief_id: int, steps: int, every: float) -> None:
    """Append ``steps`` steps; print "seq commit_time" for each, taken the moment its
    transaction commits (an on_commit hook registered before the doorbell's)."""
    django_setup(os.environ["DATABASE_URL"])
    from django.db import transaction

    from briefs.steps import step_append

    for n in range(1, steps + 1):
        with transaction.atomic():
            transaction.on_commit(lambda n=n: print(n, time.time(), flush=True))
            payload = {"step": n, "budget": steps, "node": "fetch", "t": time.time()}
            step_append(brief_id=brief_id, kind="step_started", payload=payload)
        time.sleep(every)


# --- the bench ----------------------------------------------------------------------------------


def scratch_database(url: str) -> tuple[str, str]:
    """(admin URL, scratch URL) on the server of ``url``."""
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit("bench/stream.py needs DATABASE_URL=postgres://... (web and writer race)")
    base = url.rsplit("/", 1)[0]
    return f"{base}/postgres", f"{base}/{BENCH_DB}"


def recreate(admin_url: str, *, create: bool) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(BENCH_DB))
        )
        if create:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(BENCH_DB)))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def child_env(database_url: str, redis_url: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(DATABASE_URL=database_url, DEBUG="0", ALLOWED_HOSTS="127.0.0.1,localhost",
               SECRET_KEY=os.environ["SECRET_KEY"], LOG_LEVEL="WARNING")  # fmt: skip
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


@contextlib.contextmanager
def daphne(env: dict, port: int):
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "rsshub_agent.asgi:application"],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if process.poll() is not None:
                raise SystemExit("daphne exited early")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if time.monotonic() > deadline:
                raise SystemExit("daphne did not start")
            time.sleep(0.1)
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)


def world(clients: int) -> tuple[int, list[str]]:
    """A running brief and one signed-in session per client (the owner's)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from briefs.models import Brief, BriefStatus
    from briefs.services import brief_create

    owner = get_user_model().objects.create_user("bench", password="bench-pass-1234")
    brief = brief_create(owner=owner, question="bench stream", enqueue=False)
    Brief.objects.filter(pk=brief.pk).update(status=BriefStatus.RUNNING)
    sessions = []
    for _ in range(clients):
        client = Client()
        client.force_login(owner)
        sessions.append(client.cookies["sessionid"].value)
    return brief.pk, sessions


@dataclass
class Watcher:
    seqs: list[int] = field(default_factory=list)
    arrived: list[float] = field(default_factory=list)


async def watch(url: str, origin: str, session: str, expect: int, ready: asyncio.Event,
                connected: list, watcher: Watcher) -> None:  # fmt: skip
    from websockets.asyncio.client import connect

    async with connect(url, origin=origin, additional_headers={"Cookie": f"sessionid={session}"},
                       max_size=2**22, open_timeout=30) as socket_:  # fmt: skip
        async for raw in socket_:
            message = json.loads(raw)
            if message["type"] == "status" and not ready.is_set():
                connected.append(1)
                if len(connected) == expect:
                    ready.set()
            elif message["type"] == "step":
                watcher.arrived.append(time.time())
                watcher.seqs.append(message["seq"])
                if message["seq"] == STEPS:
                    return


STEPS = 0


async def run_mode(name: str, env: dict, brief_id: int, sessions: list[str], every: float) -> dict:
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws/briefs/{brief_id}/?after=0&lang=en"
    origin = f"http://127.0.0.1:{port}"
    watchers = [Watcher() for _ in sessions]
    with daphne(env, port):
        ready, connected = asyncio.Event(), []
        tasks = [
            asyncio.ensure_future(watch(url, origin, s, len(sessions), ready, connected, w))
            for s, w in zip(sessions, watchers, strict=True)
        ]
        await asyncio.wait_for(ready.wait(), 60)
        await asyncio.sleep(1.0)  # the shared reader settles
        writer = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__)), "--writer", str(brief_id), str(STEPS), str(every),
            cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        output, _ = await writer.communicate()
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
    committed = {
        int(seq): float(t) for seq, t in (line.split() for line in output.decode().splitlines())
    }
    delays = sorted(
        (arrived - committed[seq]) * 1000
        for w in watchers
        for seq, arrived in zip(w.seqs, w.arrived, strict=True)
    )
    exact = all(w.seqs == list(range(1, STEPS + 1)) for w in watchers)
    return {
        "mode": name,
        "clients": len(sessions),
        "messages": len(delays),
        "p50": statistics.median(delays),
        "p95": delays[int(0.95 * (len(delays) - 1))],
        "max": delays[-1],
        "exactly_once_in_order": exact,
    }


def clear_steps(brief_id: int) -> None:
    from briefs.models import Brief, RunStep

    RunStep.objects.filter(brief_id=brief_id).delete()
    Brief.objects.filter(pk=brief_id).update(step_seq=0)


def main() -> None:
    global STEPS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--every", type=float, default=0.1, help="seconds between steps")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/15")
    args = parser.parse_args()
    STEPS = args.steps
    admin_url, bench_url = scratch_database(os.environ.get("DATABASE_URL", ""))
    recreate(admin_url, create=True)
    try:
        django_setup(bench_url)
        from django.conf import settings
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        brief_id, sessions = world(args.clients)
        results = []
        for name, redis_url in (("redis", args.redis), ("notify", None)):
            clear_steps(brief_id)
            env = child_env(bench_url, redis_url)
            results.append(asyncio.run(run_mode(name, env, brief_id, sessions, args.every)))
        engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        print(f"\n{args.clients} clients, {args.steps} steps every {args.every * 1000:.0f} ms, "
              f"database {engine}")  # fmt: skip
        print(f"{'mode':<6} {'messages':>9} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  target      "
              "exactly once, in order")  # fmt: skip
        ok = True
        for r in results:
            target = 100
            met = r["p95"] < target and r["exactly_once_in_order"]
            ok &= met
            print(f"{r['mode']:<6} {r['messages']:>9} {r['p50']:>8.1f} {r['p95']:>8.1f} "
                  f"{r['max']:>8.1f}  p95<{target:<5.0f} {'met ' if met else 'MISSED'} "
                  f"{r['exactly_once_in_order']}")  # fmt: skip
        if not ok:
            raise SystemExit(1)
    finally:
        from django.db import connections

        connections.close_all()
        recreate(admin_url, create=False)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--writer":
        writer_main(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
    else:
        main()
