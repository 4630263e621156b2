"""Dispatch with real ``manage.py qcluster`` processes on PostgreSQL.

- one cluster: its scheduler fires the ``watches-dispatch`` schedule (the migration's), which
  claims the due watches; each runs once (an offline brief against a stand-in RSSHub on
  127.0.0.1) and is settled; a watch that missed five hourly slots while nothing ran runs once.
- two clusters at once: six dispatch tasks are handed to both clusters' workers together, so
  several dispatchers in two processes race for the same due watches; each watch runs once.

The clusters run against a database of their own (created, migrated and dropped here). The
scenario runs once for the module (a minute or two); each test reads one outcome of it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.briefs.test_worker import ROOT, RSS, _stop, cluster_environment, manage
from tests.databases import scratch_database
from tests.httpserver import Reply, ScriptedServer
from tests.waiting import wait_until

pytestmark = pytest.mark.postgres

ALONE, TOGETHER = 6, 12  # due watches of each phase
WORKERS = 3  # per cluster
SECONDS = 150.0  # the scheduler first looks 30 s after a cluster starts; then the runs

WORKER_SETTINGS = f"""
from rsshub_agent.settings import *  # noqa: F403

Q_CLUSTER = {{**Q_CLUSTER, "timeout": 60, "retry": 120, "workers": {WORKERS}}}  # noqa: F405
Q_CLUSTER["queue_limit"] = {WORKERS}
"""

# The catalog the offline agent chooses from; the owner; the phase's watches, due a minute ago
# (PHASE "alone" also adds one hourly watch that missed five slots); prints their ids.
WATCHES = """
import json
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from catalog.models import Platform, Route
from watches.models import Watch
from watches.services import watch_create

User = get_user_model()
owner, made = User.objects.get_or_create(username="cluster-test")
if made:
    platform = Platform.objects.create(namespace="test", name="RSSHub Test")
    Route.objects.create(platform=platform, key="/:keyword", path="/test/:keyword",
                         name="Test news", example="/test/news")
ids = [watch_create(owner=owner, question=f"{PHASE}{n} news on RSSHub Test", offline=True).pk
       for n in range(COUNT)]
Watch.objects.filter(pk__in=ids).update(next_run_at=timezone.now() - timedelta(minutes=1))
missed = None
if PHASE == "alone":
    # Its minute is half an hour from now, so its next slot cannot come due again while the
    # scenario runs (at minute 0, a scenario across the hour rightly runs it a second time).
    minute = (timezone.now().minute + 30) % 60
    missed = watch_create(owner=owner, question="missed news on RSSHub Test", offline=True,
                          schedule="hourly", time=f"00:{minute:02d}").pk
    Watch.objects.filter(pk=missed).update(next_run_at=timezone.now() - timedelta(hours=5))
print(json.dumps({"ids": ids, "missed": missed}))
"""

# The schedule is due now: the cluster's scheduler fires it on its first look.
SCHEDULE_NOW = """
from django.utils import timezone
from django_q.models import Schedule
Schedule.objects.filter(name="watches-dispatch").update(next_run=timezone.now())
"""

# Six dispatchers at once, for whichever workers of the two clusters take them.
DISPATCH_MANY = """
from django_q.tasks import async_task
for n in range(6):
    async_task("watches.tasks.dispatch", task_name=f"dispatch-race-{n}")
"""

DISPATCH_RESULTS = """
import json
from django_q.models import Task
print(json.dumps([t.result for t in Task.objects.filter(func="watches.tasks.dispatch")]))
"""


@dataclass
class Phase:
    watches: list[int]
    missed: int | None
    dispatches: list[dict]


@dataclass
class Scenario:
    db: psycopg.Connection
    alone: Phase
    together: Phase
    requests: int
    log: Path

    def rows(self, sql: str, *params) -> list[tuple]:
        with self.db.cursor() as cursor:
            return cursor.execute(sql, params).fetchall()

    def runs_per_watch(self, ids: list[int]) -> dict[int, int]:
        counts = dict(
            self.rows(
                "SELECT watch_id, count(*) FROM watches_watchrun WHERE watch_id = ANY(%s) "
                "GROUP BY watch_id",
                ids,
            )
        )
        return {watch_id: counts.get(watch_id, 0) for watch_id in ids}


def _settled(db: psycopg.Connection, ids: list[int]) -> bool:
    """Every watch of ``ids`` has a run, and every run of them ended and was settled."""
    with db.cursor() as cursor:
        pending = cursor.execute(
            "SELECT count(*) FROM watches_watch w WHERE w.id = ANY(%s) AND NOT EXISTS "
            "(SELECT 1 FROM watches_watchrun r WHERE r.watch_id = w.id AND r.settled_at "
            "IS NOT NULL)",
            (ids,),
        ).fetchone()[0]
        open_runs = cursor.execute(
            "SELECT count(*) FROM watches_watchrun WHERE watch_id = ANY(%s) AND settled_at IS NULL",
            (ids,),
        ).fetchone()[0]
    return pending == 0 and open_runs == 0


def _start(env: dict, log: Path) -> subprocess.Popen:
    with log.open("a") as out:
        return subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def _phase(env: dict, phase: str, count: int) -> Phase:
    script = f"PHASE, COUNT = {phase!r}, {count}\n{WATCHES}"
    made = json.loads(manage(env, "shell", "-c", script).strip().splitlines()[-1])
    return Phase(made["ids"], made["missed"], [])


def _wait_settled(db, phase: Phase, log: Path) -> None:
    ids = phase.watches + ([phase.missed] if phase.missed else [])
    wait_until(
        lambda: _settled(db, ids), what="every due watch to run and settle", seconds=SECONDS,
        every=0.25, detail=lambda: log.read_text()[-4000:],
    )  # fmt: skip


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    name = f"rsshub_agent_watches_cluster_{__import__('os').getpid()}"
    folder = tmp_path_factory.mktemp("watch-clusters")
    (folder / "worker_settings.py").write_text(WORKER_SETTINGS)
    log = folder / "qcluster.log"
    rsshub = ScriptedServer(default=Reply(200, {"Content-Type": "application/rss+xml"}, RSS))
    with (
        scratch_database(name) as database,
        rsshub,
        psycopg.connect(autocommit=True, **database) as db,
    ):
        env = cluster_environment(
            folder, database=name, rsshub_url=rsshub.url, secret="watch-cluster-test"
        )
        manage(env, "migrate", "--verbosity", "0")
        alone = _phase(env, "alone", ALONE)
        manage(env, "shell", "-c", SCHEDULE_NOW)
        first = _start(env, log)
        try:
            _wait_settled(db, alone, log)
            together = _phase(env, "together", TOGETHER)
            second = _start(env, log)
            try:
                manage(env, "shell", "-c", DISPATCH_MANY)
                _wait_settled(db, together, log)
            finally:
                _stop(second)
        finally:
            _stop(first)
        results = json.loads(manage(env, "shell", "-c", DISPATCH_RESULTS).splitlines()[-1])
        together.dispatches = [r for r in results if isinstance(r, dict)]
        yield Scenario(db, alone, together, len(rsshub.requests), log)


def test_one_cluster_runs_each_due_watch_once(scenario):
    runs = scenario.runs_per_watch(scenario.alone.watches)
    assert set(runs.values()) == {1}, (runs, scenario.log.read_text()[-3000:])


def test_a_watch_that_missed_slots_runs_once(scenario):
    assert scenario.runs_per_watch([scenario.alone.missed]) == {scenario.alone.missed: 1}
    ((next_run, last_run),) = scenario.rows(
        "SELECT next_run_at, last_run_at FROM watches_watch WHERE id = %s", scenario.alone.missed
    )
    assert next_run > last_run  # its next slot is after the run, not one of the missed ones


def test_two_clusters_run_each_due_watch_once(scenario):
    runs = scenario.runs_per_watch(scenario.together.watches)
    assert set(runs.values()) == {1}, runs
    claimed = sum(r.get("claimed", 0) for r in scenario.together.dispatches)
    assert claimed >= TOGETHER  # the race's dispatchers (and the schedule's) claimed them all
    duplicates = scenario.rows(
        "SELECT watch_id, due_at FROM watches_watchrun GROUP BY watch_id, due_at "
        "HAVING count(*) > 1"
    )
    assert duplicates == []


def test_every_run_is_an_ordinary_brief_that_succeeded_once(scenario):
    ids = scenario.alone.watches + scenario.together.watches + [scenario.alone.missed]
    rows = scenario.rows(
        "SELECT b.status, b.outcome, b.attempts, b.delta IS NOT NULL FROM briefs_brief b "
        "JOIN watches_watchrun r ON r.brief_id = b.id WHERE r.watch_id = ANY(%s)",
        ids,
    )
    assert len(rows) == len(ids)
    assert set(rows) == {("succeeded", "answered", 1, True)}, rows
    briefs = scenario.rows("SELECT count(*) FROM briefs_brief WHERE watch_id = ANY(%s)", ids)
    assert briefs == [(len(ids),)]
