"""MCP benchmark: the overhead of ``ask`` over MCP against the same brief through the REST API.

    .venv/bin/python bench/mcp.py [--briefs 20] [--poll 0.1]

Real parts: Daphne serving ``rsshub_agent.asgi`` and a ``qcluster`` worker as subprocesses, on a
throwaway database (an SQLite file, or a scratch PostgreSQL database ``rsshub_agent_bench_mcp``
when ``DATABASE_URL`` names a server; the named database is never touched), and a stand-in RSSHub
on 127.0.0.1 that answers every path with a five-item feed at once.

Each of ``--briefs`` rounds asks one new question twice, offline, alternating which goes first:

- REST: ``POST /api/v1/briefs``, then ``GET /api/v1/briefs/{id}`` every ``--poll`` seconds until
  the brief is finished (an integration's create-then-poll), over one keep-alive connection;
- MCP: ``tools/call ask`` with the SDK's client over Streamable HTTP (one client for the run, as
  an assistant keeps one), which waits for the brief and returns it with its citations.

A time is from the request to the finished brief in hand. The server reads the step log every
``--poll`` seconds too (``DASHBOARD_POLL_SECONDS``; no Redis), so both wait the same way and the
ratio shows what MCP adds. Every fetch goes to the stand-in (``FETCH_FRESH_SECONDS=0``), so the
second brief of a round is not served from the first one's fetch. Then the cost of one read each
way: ``GET /api/v1/briefs/{id}`` against ``tools/call get_brief``.

Target (issue 16): median MCP / median REST <= 1.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: the project root, not bench/, comes first
BENCH_DB = "rsshub_agent_bench_mcp"
STARTUP_SECONDS = 60
TARGET = 1.1
READS = 50

SETUP = """
import json
from django.contrib.auth import get_user_model
from briefs.tokens.service import token_issue
from catalog.models import Platform, Route

owner = get_user_model().objects.create_user("bench")
platform = Platform.objects.create(namespace="test", name="RSSHub Test")
Route.objects.create(platform=platform, key="/:keyword", path="/test/:keyword",
                     name="Test news", example="/test/news")
print(json.dumps({"token": token_issue(user=owner, name="bench").secret}))
"""


def database_prepare(workdir: str) -> tuple[str, str]:
    """Create and migrate the throwaway database; its label and ``DATABASE_URL``."""
    from bench.scratch import scratch_database_create, scratch_environment

    postgres = scratch_environment(workdir)
    import django

    django.setup()
    from django.db import connection

    label = scratch_database_create(postgres=postgres, name=BENCH_DB)
    if not postgres:
        return label, os.environ["DATABASE_URL"]
    db = connection.settings_dict
    login = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return label, f"postgres://{login}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{BENCH_DB}"


def environment(database_url: str, rsshub_url: str, workdir: str, poll: float) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "REDIS_", "RSSHUB_", "API_"))
    }
    env.update(
        DATABASE_URL=database_url,
        RSSHUB_URL=rsshub_url,
        DATA_DIR=workdir,
        DJANGO_SETTINGS_MODULE="rsshub_agent.settings",
        DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1",
        FETCH_FRESH_SECONDS="0",
        DASHBOARD_POLL_SECONDS=str(poll),
        API_THROTTLE_RATE="100000/minute",
        API_CREATE_THROTTLE_RATE="100000/minute",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    return env


def manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"manage.py {args[0]} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("Daphne exited early")
        with (
            contextlib.suppress(urllib.error.URLError, OSError),
            urllib.request.urlopen(url, timeout=2) as response,
        ):
            if response.status == 200:
                return
        time.sleep(0.1)
    raise SystemExit(f"Daphne did not answer {url} in {STARTUP_SECONDS} s")


@contextlib.contextmanager
def servers(env: dict, workdir: str):
    """Daphne and a worker; yields the site's URL."""
    port = free_port()
    logs = [open(Path(workdir, f"{n}.log"), "wb") for n in ("daphne", "qcluster")]  # noqa: SIM115
    commands = [
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "rsshub_agent.asgi:application"],
        [sys.executable, "manage.py", "qcluster"],
    ]  # fmt: skip
    processes = [
        subprocess.Popen(c, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        for c, log in zip(commands, logs, strict=True)
    ]
    try:
        wait_for(f"http://127.0.0.1:{port}/accounts/login/", processes[0])
        yield f"http://127.0.0.1:{port}"
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        for log in logs:
            log.close()


# --- one brief each way ---------------------------------------------------------------------------


async def rest_brief(http, question: str, poll: float) -> tuple[float, dict]:
    started = time.perf_counter()
    created = await http.post("/api/v1/briefs", json={"question": question, "offline": True})
    assert created.status_code == 202, created.text
    url = f"/api/v1/briefs/{created.json()['id']}"
    while True:
        brief = (await http.get(url)).json()
        if brief["finished_at"]:
            return time.perf_counter() - started, brief
        await asyncio.sleep(poll)


async def mcp_brief(client, question: str) -> tuple[float, dict]:
    started = time.perf_counter()
    result = await client.call_tool("ask", {"question": question, "offline": True})
    elapsed = time.perf_counter() - started
    assert not result.is_error, result.content
    return elapsed, result.structured_content


def checked(kind: str, brief: dict) -> None:
    if brief["status"] != "succeeded" or not brief["citations"]:
        raise SystemExit(f"{kind} brief {brief['id']} ended {brief['status']}: {brief}")


async def rounds(site: str, token: str, count: int, poll: float) -> dict[str, list[float]]:
    import httpx
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {token}"}
    times: dict[str, list[float]] = {"rest": [], "mcp": [], "rest_read": [], "mcp_read": []}
    async with (
        httpx.AsyncClient(base_url=site, headers=headers, timeout=60) as http,
        create_mcp_http_client(headers=headers) as mcp_http,
        Client(streamable_http_client(f"{site}/mcp/", http_client=mcp_http), cache=None) as client,
    ):
        await rest_brief(http, "warmup news on RSSHub Test", poll)  # imports, first connections
        await mcp_brief(client, "warmup two news on RSSHub Test")
        for n in range(count):
            question = f"round{n} news on RSSHub Test"
            order = [
                ("rest", rest_brief(http, question, poll)),
                ("mcp", mcp_brief(client, question)),
            ]
            for kind, run in order if n % 2 == 0 else order[::-1]:
                elapsed, brief = await run
                checked(kind, brief)
                times[kind].append(elapsed)
        last = brief["id"]
        for _ in range(READS):
            started = time.perf_counter()
            assert (await http.get(f"/api/v1/briefs/{last}")).status_code == 200
            times["rest_read"].append(time.perf_counter() - started)
            started = time.perf_counter()
            assert not (await client.call_tool("get_brief", {"id": last})).is_error
            times["mcp_read"].append(time.perf_counter() - started)
    return times


def quantiles(values: list[float]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(values, n=10)
    return cuts[0], statistics.median(values), cuts[-1]


def report(times: dict[str, list[float]], *, label: str, count: int, poll: float) -> None:
    print(f"database: {label}; Daphne and one worker (qcluster); stand-in RSSHub answering at once")
    print(f"{count} offline briefs each way, one new question per round, alternating which goes")
    print(f"first; the REST client and the server both read every {poll} s (no Redis)")
    print(f"{'':<28}{'p10':>8}{'median':>8}{'p90':>8}  (s)")
    for kind, name in (("rest", "REST create + poll"), ("mcp", "MCP ask (waits, returns)")):
        p10, p50, p90 = quantiles(times[kind])
        print(f"{name:<28}{p10:>8.3f}{p50:>8.3f}{p90:>8.3f}")
    ratio = statistics.median(times["mcp"]) / statistics.median(times["rest"])
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(f"ratio MCP / REST (medians): {ratio:.2f} (target <= {TARGET}: {verdict})")
    rest_read = statistics.median(times["rest_read"]) * 1000
    mcp_read = statistics.median(times["mcp_read"]) * 1000
    print(f"one read, median of {READS}: GET /api/v1/briefs/{{id}} {rest_read:.1f} ms, "
          f"MCP get_brief {mcp_read:.1f} ms")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--briefs", type=int, default=20)
    parser.add_argument("--poll", type=float, default=0.1, help="seconds between step reads")
    args = parser.parse_args()
    from bench.support.feeds import RSS_TYPE, rss
    from bench.support.httpserver import Reply, ScriptedServer

    rsshub = ScriptedServer(default=lambda request: Reply(200, RSS_TYPE, rss(5)))
    with tempfile.TemporaryDirectory() as workdir, rsshub:
        label, database_url = database_prepare(workdir)
        try:
            env = environment(database_url, rsshub.url, workdir, args.poll)
            token: Any = json.loads(manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
            with servers(env, workdir) as site:
                times = asyncio.run(rounds(site, token["token"], args.briefs, args.poll))
            report(times, label=label, count=args.briefs, poll=args.poll)
        finally:
            from bench.scratch import scratch_database_drop

            scratch_database_drop(label, BENCH_DB)


if __name__ == "__main__":
    main()
