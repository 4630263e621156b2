"""Worker scaling benchmark: briefs per minute with 1, 2 and 3 worker processes on the Redis
broker, and the speed-up of each over one.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x .venv/bin/python bench/scale.py \\
        [--briefs 40] [--delay 0.3] [--redis redis://127.0.0.1:6379/12]

Real parts only: ``manage.py qcluster`` processes (one worker each, as on hosts of their own)
taking tasks from Redis (``Q_BROKER=redis``), PostgreSQL, and a stand-in RSSHub on 127.0.0.1
that answers every feed after ``--delay`` seconds. Each brief is an offline run that asks its
own path (the freshness window is off), so every run waits on one slow fetch, as runs do on a
real RSSHub. Per worker count: the clusters start and run one warm-up brief each, then
``--briefs`` briefs are enqueued at once and timed from enqueue to the last one finished.

Targets (issue 13): at least 1.8x with 2 workers and 2.5x with 3, since runs wait on I/O. The
machine's load average is printed: on a shared machine the CPU part of each run is what keeps
the ratios below the worker counts.

PostgreSQL only: a scratch database ``rsshub_agent_bench_scale`` on the server ``DATABASE_URL``
names (created and dropped here; the named database is never touched). Redis keys live under a
queue name of this run's own. When ``bench/failover.py`` exists, it runs last, for the cost of
a step whose first RSSHub instance refuses the connection.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: the project root, not bench/, comes first
BENCH_DB = "rsshub_agent_bench_scale"
WORKER_COUNTS = (1, 2, 3)
TARGETS = {2: 1.8, 3: 2.5}
LETTERS = "abcdefghijklmnopqrstuvwxyz"

SETTINGS = """
from rsshub_agent.settings import *  # noqa: F403

Q_CLUSTER = {{**Q_CLUSTER, "name": "{queue}"}}  # noqa: F405
CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = "{queue}"  # noqa: F405
"""


def keyword(n: int) -> str:
    """A word of letters only, its own for each brief: the path the offline run asks."""
    word = ""
    while True:
        n, digit = divmod(n, len(LETTERS))
        word = LETTERS[digit] + word
        if n == 0:
            return f"scale{word}"


# --- the database and the environment -----------------------------------------------------------


def scratch_urls(url: str) -> tuple[str, str]:
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit("bench/scale.py needs DATABASE_URL=postgres://... (workers race)")
    base = url.rsplit("/", 1)[0]
    return f"{base}/postgres", f"{base}/{BENCH_DB}"


def recreate(admin_url: str, *, create: bool) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_url, autocommit=True) as conn:
        name = sql.Identifier(BENCH_DB)
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        if create:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(name))


def environment(folder: str, database_url: str, redis_url: str, rsshub_url: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RSSHUB_"))}
    env.update(
        PYTHONPATH=os.pathsep.join([folder, str(ROOT)]),
        DJANGO_SETTINGS_MODULE="bench_scale_settings",
        DATABASE_URL=database_url, REDIS_URL=redis_url, Q_BROKER="redis", Q_WORKERS="1",
        RSSHUB_URL=rsshub_url, FETCH_FRESH_SECONDS="0", DEBUG="0", LOG_LEVEL="WARNING",
        SECRET_KEY=os.environ.get("SECRET_KEY") or "bench-only-not-a-secret",
        DATA_DIR=folder, ALLOWED_HOSTS="127.0.0.1",
    )  # fmt: skip
    return env


def django_setup(env: dict) -> None:
    os.environ.update(env)
    sys.path.insert(0, env["PYTHONPATH"].split(os.pathsep)[0])
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def world():
    """The owner and the catalog the offline runs choose from."""
    from django.contrib.auth import get_user_model

    from catalog.models import Platform, Route

    platform = Platform.objects.create(namespace="test", name="RSSHub Test")
    Route.objects.create(platform=platform, key="/:keyword", path="/test/:keyword",
                         name="Test news", example="/test/news")  # fmt: skip
    return get_user_model().objects.create_user("bench-scale")


# --- clusters and briefs --------------------------------------------------------------------------


@contextlib.contextmanager
def clusters(env: dict, count: int, folder: str):
    processes = []
    for n in range(count):
        log = open(Path(folder) / f"qcluster-{count}-{n}.log", "w")  # noqa: SIM115
        processes.append(subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=log,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        ))  # fmt: skip
        log.close()
    try:
        yield processes
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def wait_finished(ids: list[int], processes: list, seconds: float) -> None:
    from briefs.models import Brief

    deadline = time.monotonic() + seconds
    while Brief.objects.filter(pk__in=ids, finished_at__isnull=True).exists():
        if any(p.poll() is not None for p in processes):
            raise SystemExit("a qcluster exited; see its log in the bench's folder")
        if time.monotonic() > deadline:
            raise SystemExit(f"briefs still unfinished after {seconds} s")
        time.sleep(0.05)


def enqueue(owner, words: list[str]) -> list[int]:
    from briefs.services import brief_create

    return [
        brief_create(owner=owner, question=f"{w} news on RSSHub Test", offline=True).pk
        for w in words
    ]


def measure(owner, env: dict, workers: int, briefs: int, folder: str, counter: list[int]) -> dict:
    from briefs.models import Brief

    def words(n: int) -> list[str]:
        counter[0] += n
        return [keyword(i) for i in range(counter[0] - n, counter[0])]

    with clusters(env, workers, folder) as processes:
        warm = enqueue(owner, words(workers))
        wait_finished(warm, processes, 120)
        started = time.monotonic()
        ids = enqueue(owner, words(briefs))
        wait_finished(ids, processes, 600)
        elapsed = time.monotonic() - started
    statuses = set(Brief.objects.filter(pk__in=ids).values_list("status", flat=True))
    if statuses != {"succeeded"}:
        raise SystemExit(f"with {workers} workers the briefs ended {sorted(statuses)}")
    return {"workers": workers, "seconds": elapsed, "per_minute": briefs / elapsed * 60}


# --- report ---------------------------------------------------------------------------------------


def report(results: list[dict], briefs: int, delay: float) -> None:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"scale bench: {briefs} offline briefs per worker count, RSSHub stand-in answering "
          f"after {delay * 1000:.0f} ms, Redis broker, PostgreSQL")  # fmt: skip
    print(f"machine: {os.cpu_count()} CPUs, load average {load}\n")
    print(f"{'workers':<10}{'seconds':<12}{'briefs/min':<14}{'speed-up':<12}target")
    base = results[0]["per_minute"]
    for r in results:
        ratio = r["per_minute"] / base
        target = TARGETS.get(r["workers"])
        verdict = (
            "" if target is None else f">= {target}x: {'met' if ratio >= target else 'MISSED'}"
        )
        print(f"{r['workers']:<10}{r['seconds']:<12.1f}{r['per_minute']:<14.1f}"
              f"{ratio:<12.2f}{verdict}")  # fmt: skip


def failover() -> None:
    script = ROOT / "bench" / "failover.py"
    if script.is_file():
        print("\nfailover cost (bench/failover.py):", flush=True)
        subprocess.run([sys.executable, str(script)], cwd=ROOT, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--briefs", type=int, default=40, help="timed briefs per worker count")
    parser.add_argument("--delay", type=float, default=0.3, help="RSSHub stand-in delay (s)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12", help="Redis for the queue")
    args = parser.parse_args()
    admin_url, database_url = scratch_urls(os.environ.get("DATABASE_URL", ""))
    from bench.support.feeds import RSS_TYPE, rss
    from bench.support.httpserver import Reply, ScriptedServer

    def slow_feed(request):
        time.sleep(args.delay)
        return Reply(200, RSS_TYPE, rss(5, title=request.path))

    queue = f"bench-scale-{uuid.uuid4().hex[:10]}"
    recreate(admin_url, create=True)
    try:
        with tempfile.TemporaryDirectory(prefix="rsshub-scale-") as folder, \
                ScriptedServer(default=slow_feed) as rsshub:  # fmt: skip
            Path(folder, "bench_scale_settings.py").write_text(SETTINGS.format(queue=queue))
            env = environment(folder, database_url, args.redis, rsshub.url)
            django_setup(env)
            owner, counter = world(), [0]
            results = [measure(owner, env, n, args.briefs, folder, counter) for n in WORKER_COUNTS]
            from django.db import connections

            connections.close_all()
    finally:
        recreate(admin_url, create=False)
        import redis

        connection = redis.Redis.from_url(args.redis)
        for key in connection.scan_iter(f"*{queue}*"):
            connection.delete(key)
    report(results, args.briefs, args.delay)
    failover()


if __name__ == "__main__":
    main()
