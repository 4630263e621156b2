"""Watches benchmark: N active watches due in the same minute, dispatched and run by a real
``manage.py qcluster`` (the ORM broker, ``Q_WORKERS`` workers as configured), against a stand-in
RSSHub on 127.0.0.1 that answers every feed after 300 ms.

Printed:
- due -> claim delay, p50 and p95: from the watch's slot to the dispatcher's claim of it (the
  scheduler looks at its schedules every 30 s; the claims of one dispatch follow each other);
- runs per minute: runs finished between the first claim and the last run's end;
- duplicates: runs beyond one per watch for the slot (target 0);
- database queries per watch run, counted in this process on a sample of fresh watches: the
  dispatcher's claim, the run (agent, fetch, brief), and settling its end.

The watches ask about ``--topics`` subjects of one stand-in route (``/test/<topic>``), so runs on
one subject share a fetch within the freshness window, as watches of many users would.

    .venv/bin/python bench/watch.py [--watches 1000] [--topics 50] [--clusters 1]

Runs on a throwaway database: a temporary SQLite file by default, or, when ``DATABASE_URL`` is a
postgres:// URL, a scratch database ``rsshub_agent_bench_watch`` on that server (created and
dropped here; the database the URL names is never touched). Runtime requirements only.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: the project root, not bench/, comes first
BENCH_DB = "rsshub_agent_bench_watch"
FETCH_DELAY = 0.3
USERS_WATCHES = 20  # watches per bench user (the default quota)
SAMPLE = 20  # watches run in this process to count queries


def django_setup(workdir: str) -> tuple[str, str]:
    """Django on a scratch database; returns its label and the URL other processes use."""
    from bench.scratch import scratch_database_create, scratch_environment

    postgres = scratch_environment(workdir)
    Path(workdir, "static").mkdir()
    configured = os.environ["DATABASE_URL"]
    os.environ["OPENAI_API_KEY"] = ""  # offline runs: the model is not what is measured
    os.environ["REDIS_URL"] = ""
    import django

    django.setup()
    logging.getLogger("django-q").setLevel(logging.WARNING)
    logging.getLogger("watches").setLevel(logging.WARNING)
    label = scratch_database_create(postgres=postgres, name=BENCH_DB)
    if not postgres:
        return label, configured
    parts = urlsplit(configured)
    return label, urlunsplit(parts._replace(path=f"/{BENCH_DB}"))


def django_teardown(label: str) -> None:
    from bench.scratch import scratch_database_drop

    scratch_database_drop(label, BENCH_DB)


# --- the world ----------------------------------------------------------------------------------


def rsshub_start():
    """The stand-in RSSHub: every path a 10-item feed of its own, after ``FETCH_DELAY``."""
    from bench.support.feeds import RSS_TYPE, rss
    from bench.support.httpserver import Reply, ScriptedServer

    def answer(request) -> Reply:
        time.sleep(FETCH_DELAY)
        topic = request.path.rstrip("/").rsplit("/", 1)[-1]
        return Reply(200, RSS_TYPE, rss(10, title=topic, prefix=topic))

    return ScriptedServer(default=answer).start()


def catalog_make() -> None:
    from catalog.models import Platform, Route

    platform = Platform.objects.create(namespace="test", name="RSSHub Test")
    Route.objects.create(
        platform=platform, key="/:keyword", path="/test/:keyword", name="Test news",
        example="/test/news",
    )  # fmt: skip


def watches_make(count: int, topics: int, due: datetime, *, prefix: str = "topic") -> list[int]:
    """``count`` daily watches due at ``due``, on ``topics`` subjects, 20 per user."""
    from django.contrib.auth import get_user_model

    from watches.models import Watch

    User = get_user_model()
    users = User.objects.bulk_create(
        [User(username=f"{prefix}-user-{n}") for n in range(-(-count // USERS_WATCHES))]
    )
    rows = [
        Watch(
            owner=users[n // USERS_WATCHES],
            question=f"{prefix}{n % topics} news on RSSHub Test",
            schedule="daily",
            time_of_day=due.time(),
            timezone="UTC",
            offline=True,
            next_run_at=due,
        )
        for n in range(count)
    ]
    return [w.pk for w in Watch.objects.bulk_create(rows, batch_size=500)]


def next_minute(after_seconds: float) -> datetime:
    from django.utils import timezone

    moment = timezone.now() + timedelta(seconds=after_seconds)
    return moment.replace(second=0, microsecond=0) + timedelta(minutes=1)


# --- the clusters -------------------------------------------------------------------------------


def cluster_start(database_url: str, rsshub_url: str, log: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "RSSHUB_URL": rsshub_url,
        "RSSHUB_ACCESS_KEY": "",
        "LOG_LEVEL": "WARNING",
    }
    with log.open("a") as out:
        return subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def cluster_stop(cluster: subprocess.Popen) -> None:
    if cluster.poll() is None:
        cluster.terminate()
        try:
            cluster.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(cluster.pid, signal.SIGKILL)
            cluster.wait(timeout=5)


def progress(ids: list[int], due: datetime) -> tuple[int, int]:
    """Runs claimed for the slot, and of them finished and settled."""
    from watches.models import WatchRun

    runs = WatchRun.objects.filter(watch_id__in=ids, due_at=due)
    return runs.count(), runs.filter(settled_at__isnull=False).count()


def wait_done(ids: list[int], due: datetime, deadline: float, log: Path) -> None:
    shown = 0.0
    while True:
        claimed, done = progress(ids, due)
        if done >= len(ids):
            return
        if time.monotonic() > deadline:
            tail = log.read_text()[-3000:] if log.exists() else ""
            raise SystemExit(f"gave up: {claimed} claimed, {done} done of {len(ids)}\n{tail}")
        if time.monotonic() - shown > 15:
            print(f"  ... {claimed} claimed, {done} done of {len(ids)}", flush=True)
            shown = time.monotonic()
        time.sleep(1)


# --- the figures --------------------------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def figures(ids: list[int], due: datetime) -> dict:
    from watches.models import WatchRun

    runs = list(
        WatchRun.objects.filter(watch_id__in=ids).values_list(
            "watch_id", "due_at", "created_at", "brief__finished_at", "brief__status"
        )
    )
    slot_runs = [r for r in runs if r[1] == due]
    delays = [(created - due).total_seconds() for _, _, created, _, _ in slot_runs]
    started = min(created for _, _, created, _, _ in slot_runs)
    ended = max(finished for *_, finished, _ in slot_runs)
    per_watch = Counter(watch_id for watch_id, *_ in runs)
    return {
        "runs": len(slot_runs),
        "delay_p50": percentile(delays, 50),
        "delay_p95": percentile(delays, 95),
        "claim_span": max(delays) - min(delays),
        "per_minute": len(slot_runs) / ((ended - started).total_seconds() / 60),
        "span": (ended - started).total_seconds(),
        "duplicates": sum(n - 1 for n in per_watch.values() if n > 1),
        "missing": len(ids) - len(per_watch),
        "statuses": Counter(status for *_, status in slot_runs),
    }


class QueryCounter:
    """Statements on every connection of every thread (as ``bench/run.py`` counts them)."""

    def __init__(self) -> None:
        self.lock, self.count = threading.Lock(), 0

    def __call__(self, execute, sql, params, many, context):
        with self.lock:
            self.count += 1
        return execute(sql, params, many, context)

    def install(self, target) -> None:
        if self not in target.execute_wrappers:
            target.execute_wrappers.append(self)

    def connected(self, sender, connection, **kwargs) -> None:
        self.install(connection)

    def take(self) -> int:
        with self.lock:
            count, self.count = self.count, 0
            return count


def queries_per_run(rsshub_url: str) -> dict[str, float]:
    """Claim, run and settle ``SAMPLE`` fresh watches in this process, counting statements."""
    from django.conf import settings
    from django.db import connection
    from django.db.backends.signals import connection_created
    from django.utils import timezone

    from briefs.tasks import run_brief
    from watches.dispatch import watches_dispatch
    from watches.models import WatchRun
    from watches.notify import watch_run_settle

    settings.RSSHUB_URL = rsshub_url
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "sync": False}
    ids = watches_make(SAMPLE, SAMPLE, timezone.now() - timedelta(minutes=1), prefix="sample")
    counter = QueryCounter()
    counter.install(connection)
    connection_created.connect(counter.connected, weak=False)
    watches_dispatch(seconds=60)
    claim = counter.take()
    runs = list(WatchRun.objects.filter(watch_id__in=ids).values_list("brief_id", flat=True))
    counter.take()
    for brief_id in runs:
        run_brief(brief_id)
    run = counter.take()
    for brief_id in runs:
        watch_run_settle(brief_id)
    settle = counter.take()
    n = len(runs)
    return {"claim": claim / n, "run": run / n, "settle": settle / n, "n": n}


def report(args, label: str, result: dict, queries: dict) -> None:
    from django.conf import settings

    workers = settings.Q_CLUSTER["workers"]
    print(f"\nwatches: {args.watches} due in one minute, {args.topics} subjects; {label}; "
          f"{args.clusters} cluster(s) x {workers} workers (Q_WORKERS), ORM broker; "
          f"stand-in RSSHub answers after {FETCH_DELAY * 1000:.0f} ms")  # fmt: skip
    r = result
    print(f"due -> claim delay:   p50 {r['delay_p50']:.1f} s   p95 {r['delay_p95']:.1f} s   "
          f"(first to last claim {r['claim_span']:.1f} s)")  # fmt: skip
    print(f"runs per minute:      {r['per_minute']:.0f}   "
          f"({r['runs']} runs in {r['span']:.0f} s, {dict(r['statuses'])})")  # fmt: skip
    print(f"duplicates:           {result['duplicates']}   (target 0; "
          f"watches without a run: {result['missing']})")  # fmt: skip
    total = queries["claim"] + queries["run"] + queries["settle"]
    print(f"queries per run:      {total:.1f}   (claim {queries['claim']:.1f}, run "
          f"{queries['run']:.1f}, settle {queries['settle']:.1f}; {queries['n']} fresh "
          "watches in process, each fetching its own subject)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watches", type=int, default=1000)
    parser.add_argument("--topics", type=int, default=50, help="distinct subjects")
    parser.add_argument("--clusters", type=int, default=1, help="qcluster processes")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds to wait for runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-watch-") as workdir:
        label, database_url = django_setup(workdir)
        rsshub = rsshub_start()
        clusters: list[subprocess.Popen] = []
        log = Path(workdir, "qcluster.log")
        try:
            result = run_clusters(args, database_url, rsshub.url, log, clusters)
            queries = queries_per_run(rsshub.url)
            report(args, label, result, queries)
        finally:
            for cluster in clusters:
                cluster_stop(cluster)
            rsshub.stop()
            django_teardown(label)


def run_clusters(args, database_url: str, rsshub_url: str, log: Path, clusters: list) -> dict:
    from django.db import connection
    from django_q.models import Schedule

    catalog_make()
    # Due at the next whole minute at least 35 s away: the clusters' schedulers look every
    # 30 s, so the slot comes after they are up, as it would in a running service.
    due = next_minute(35)
    ids = watches_make(args.watches, args.topics, due)
    Schedule.objects.filter(name="watches-dispatch").update(next_run=due)
    connection.close()  # the bench process only polls from now on
    print(f"{len(ids)} watches due at {due:%H:%M:%S} UTC; starting {args.clusters} cluster(s)")
    for _ in range(args.clusters):
        clusters.append(cluster_start(database_url, rsshub_url, log))
    wait_done(ids, due, time.monotonic() + args.timeout, log)
    for cluster in clusters:
        cluster_stop(cluster)
    return figures(ids, due)


if __name__ == "__main__":
    main()
