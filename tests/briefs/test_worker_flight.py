"""Fetch once, serve many across processes: two real ``manage.py qcluster`` clusters (three
workers each) on one PostgreSQL database, and a stand-in RSSHub on 127.0.0.1 that counts the
requests per path.

- crowd:  20 offline briefs on the same question are created at once over the API. The first
          request for their path is held until six runs (every worker of both clusters) have
          reached the fetch: one fetches, the others wait for its answer, and the briefs that
          come later are served from the freshness window. RSSHub sees one request.
- orphan: three briefs on another question; the worker whose request for the path is held is
          SIGKILLed mid-fetch. Its claim expires (``FETCH_CLAIM_SECONDS``), a waiting run takes
          the path over and fetches it, and every brief ends, the killed one too once django-q
          hands it out again.

The clusters run against a database of their own (created, migrated and dropped here). The
scenario runs once for the module (about a minute and a half); each test reads one outcome.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from tests.briefs.test_worker import (
    ROOT,
    RSS,
    _finished,
    _stop,
    _wait,
    cluster_environment,
    descendants,
    manage,
    pid_with_connection,
)
from tests.databases import scratch_database
from tests.httpserver import Reply, Request, ScriptedServer

pytestmark = pytest.mark.postgres

CROWD, ORPHANS = 20, 3
WORKERS = 3  # per cluster
CLAIM_SECONDS = 12  # a claim lifetime shorter than the default, so the takeover comes soon
HOLD_SECONDS = 8.0  # the crowd's request is held at most this long (less than the claim)
# Task timeout (above a waiter's wait) and redelivery, in seconds: a redelivered run is claimed
# only once its lease (timeout + 5 s, briefs/tasks.py) has run out, so retry leaves a margin.
TIMEOUT, RETRY = 25, 40

WORKER_SETTINGS = f"""
from rsshub_agent.settings import *  # noqa: F403

Q_CLUSTER = {{**Q_CLUSTER, "timeout": {TIMEOUT}, "retry": {RETRY}}}  # noqa: F405
Q_CLUSTER["workers"] = {WORKERS}
FETCH_CLAIM_SECONDS = {CLAIM_SECONDS}
"""

SETUP = """
from django.contrib.auth import get_user_model
from briefs.tokens.service import token_issue
from catalog.models import Platform, Route

owner = get_user_model().objects.create_user("flight-test")
platform = Platform.objects.create(namespace="test", name="RSSHub Test")
Route.objects.create(platform=platform, key="/:keyword", path="/test/:keyword",
                     name="Test news", example="/test/news")
print(token_issue(user=owner, name="flight test").secret)
"""

# Briefs created the way an integration creates them: POST /api/v1/briefs, all at once.
CREATE = """
import json
from concurrent.futures import ThreadPoolExecutor
from django.db import connections
from django.test import Client

def post(_):
    try:
        response = Client().post(
            "/api/v1/briefs", json.dumps({{"question": {question!r}, "offline": True}}),
            content_type="application/json", headers={{"Authorization": "Bearer {secret}"}},
        )
        assert response.status_code == 202, response.content
        return response.json()["id"]
    finally:
        connections.close_all()

with ThreadPoolExecutor({count}) as pool:
    print(json.dumps(list(pool.map(post, range({count})))))
"""


@dataclass
class CountingRSSHub:
    """Answers every path with a feed and counts the requests. The first request of
    ``/test/crowd`` is held until ``release``; the first of ``/test/orphan`` until the server
    stops (its worker is killed first), with the client port it came from recorded."""

    server: ScriptedServer = field(init=False)
    counts: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    release: threading.Event = field(default_factory=threading.Event)
    orphan_held: threading.Event = field(default_factory=threading.Event)
    orphan_port: int = 0

    def __post_init__(self) -> None:
        self.server = ScriptedServer(default=self.answer)

    def answer(self, request: Request) -> Reply:
        with self.lock:
            self.counts[request.path] = self.counts.get(request.path, 0) + 1
            first = self.counts[request.path] == 1
        if first and request.path == "/test/crowd":
            self.release.wait(HOLD_SECONDS)
        elif first and request.path == "/test/orphan":
            self.orphan_port = request.wfile._sock.getpeername()[1]
            self.orphan_held.set()
            request.stopping.wait(120)
        return Reply(200, {"Content-Type": "application/rss+xml"}, RSS)

    @property
    def port(self) -> int:
        return int(self.server.url.rsplit(":", 1)[1])


@dataclass
class Scenario:
    db: psycopg.Connection
    rsshub: CountingRSSHub
    crowd: list[int]
    orphans: list[int]
    at_fetch_when_released: int
    killed: int
    log: Path

    def rows(self, sql: str, *params) -> list[tuple]:
        with self.db.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def briefs(self, ids: list[int]) -> list[dict]:
        cursor = self.db.cursor(row_factory=psycopg.rows.dict_row)
        return cursor.execute(
            "SELECT * FROM briefs_brief WHERE id = ANY(%s) ORDER BY id", (ids,)
        ).fetchall()

    def logs(self) -> str:
        return "\n".join(p.read_text()[-3000:] for p in sorted(self.log.parent.glob("*.log")))


def _at_fetch(db: psycopg.Connection, ids: list[int]) -> int:
    """How many of these briefs have started their fetch step."""
    with db.cursor() as cursor:
        cursor.execute(
            "SELECT count(DISTINCT brief_id) FROM briefs_runstep WHERE brief_id = ANY(%s) "
            "AND kind = 'step_started' AND payload->>'node' = 'fetch'",
            (ids,),
        )
        return cursor.fetchone()[0]


def _create(env: dict, secret: str, question: str, count: int) -> list[int]:
    script = CREATE.format(question=question, secret=secret, count=count)
    return json.loads(manage(env, "shell", "-c", script).strip().splitlines()[-1])


def _play(env: dict, db, rsshub: CountingRSSHub, secret: str, folder: Path) -> dict:
    clusters = []
    for n in (1, 2):
        with (folder / f"cluster{n}.log").open("w") as out:
            clusters.append(subprocess.Popen(
                [sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True,
            ))  # fmt: skip
    log = folder / "cluster1.log"
    try:
        crowd = _create(env, secret, "crowd news on RSSHub Test", CROWD)
        # Hold the one request until every worker of both clusters has reached the fetch.
        _wait(lambda: _at_fetch(db, crowd) >= 2 * WORKERS or rsshub.release.is_set(), 60,
              "the runs to reach the fetch", log)  # fmt: skip
        at_fetch = _at_fetch(db, crowd)
        rsshub.release.set()
        _wait(lambda: _finished(db, crowd), 120, "the crowd's briefs to end", log)
        orphans = _create(env, secret, "orphan news on RSSHub Test", ORPHANS)
        _wait(rsshub.orphan_held.is_set, 60, "the orphan's fetch", log)
        pids = [pid for cluster in clusters for pid in descendants(cluster.pid)]
        killed = pid_with_connection(pids, rsshub.orphan_port, rsshub.port)
        os.kill(killed, signal.SIGKILL)
        _wait(lambda: _finished(db, orphans), 180, "every orphan brief to end", log)
        return {"crowd": crowd, "orphans": orphans, "at_fetch": at_fetch, "killed": killed}
    finally:
        rsshub.release.set()
        for cluster in clusters:
            _stop(cluster)


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    name = f"rsshub_agent_flight_{os.getpid()}"
    folder = tmp_path_factory.mktemp("flight")
    (folder / "worker_settings.py").write_text(WORKER_SETTINGS)
    rsshub = CountingRSSHub()
    with (
        scratch_database(name) as database,
        rsshub.server,
        psycopg.connect(autocommit=True, **database) as db,
    ):
        env = cluster_environment(
            folder,
            database=name,
            rsshub_url=rsshub.server.url,
            secret="qcluster-flight-test",
            ALLOWED_HOSTS="testserver",
            API_CREATE_THROTTLE_RATE="1000/minute",
        )
        manage(env, "migrate", "--verbosity", "0")
        secret = manage(env, "shell", "-c", SETUP).strip().splitlines()[-1]
        played = _play(env, db, rsshub, secret, folder)
        yield Scenario(
            db, rsshub, played["crowd"], played["orphans"], played["at_fetch"],
            played["killed"], folder / "cluster1.log",
        )  # fmt: skip


# --- the crowd -----------------------------------------------------------------------------------


def test_twenty_briefs_at_once_make_one_request(scenario):
    assert scenario.rsshub.counts["/test/crowd"] == 1, scenario.rsshub.counts


def test_the_runs_of_both_clusters_were_at_the_fetch_together(scenario):
    # Six runs waited at once for the one request: the claim, not the window, kept it to one.
    assert scenario.at_fetch_when_released >= 2 * WORKERS, scenario.logs()


def test_every_brief_of_the_crowd_is_answered_from_the_one_fetch(scenario):
    briefs = scenario.briefs(scenario.crowd)
    assert [b["status"] for b in briefs] == ["succeeded"] * CROWD, scenario.logs()
    assert all(len(b["citations"]) == 5 for b in briefs)
    ages = [b["coverage"]["succeeded"][0].get("fetch_age_s") for b in briefs]
    assert sum(age is None for age in ages) == 1, ages  # the one run that fetched
    assert all(age is not None and age >= 0 for age in ages if age is not None)
    attempts = scenario.rows(
        "SELECT count(*) FROM fetching_fetchattempt WHERE path = '/test/crowd'"
    )
    assert attempts == [(1,)]


# --- the fetcher killed mid-fetch ----------------------------------------------------------------


def test_a_killed_fetchers_path_is_taken_over_and_every_brief_ends(scenario):
    briefs = scenario.briefs(scenario.orphans)
    assert [b["status"] for b in briefs] == ["succeeded"] * ORPHANS, scenario.logs()
    # The killed request, then the takeover after the claim expired; nobody else asked.
    assert scenario.rsshub.counts["/test/orphan"] == 2, scenario.rsshub.counts
    assert sorted(b["attempts"] for b in briefs) == [1, 1, 2]  # the killed run was handed out again
    ages = [b["coverage"]["succeeded"][0].get("fetch_age_s") for b in briefs]
    assert sum(age is None for age in ages) == 1, ages
    claim = scenario.rows("SELECT claim_token FROM fetching_pathfetch WHERE path = '/test/orphan'")
    assert claim == [("",)], "the takeover's claim was not given back"
