"""A real ``manage.py qcluster`` on PostgreSQL, with workers dying mid-run.

One cluster runs three offline briefs against a scripted RSSHub on 127.0.0.1 that holds the
first request of each path open, so each run is mid-fetch when:

- resumed:   its worker is SIGKILLed; the ORM broker hands the task out again after ``retry``
             and the brief completes once;
- cancelled: its worker is SIGKILLed, then its owner cancels it; the redelivery ends it cancelled;
- overtime:  nothing is killed, the run outlasts the task ``timeout``; the brief ends failed and
             django-q does not hand it out again.

The cluster runs against a database of its own (created, migrated and dropped here), with a
settings module that shortens ``timeout`` and ``retry`` so a redelivery comes within seconds.
The scenario runs once for the module (about 25 s); each test reads one outcome of it.
"""

from __future__ import annotations

import contextlib
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

from tests.databases import database_url, scratch_database
from tests.httpserver import Reply, Request, ScriptedServer
from tests.waiting import wait_until

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parent.parent.parent
TIMEOUT, RETRY = 8, 15  # the task timeout and the ORM broker's redelivery delay, in seconds
HOLD_SECONDS = 30.0  # how long the stand-in holds a first request (longer than TIMEOUT)
SCENARIO_SECONDS = 60.0
KEYWORDS = ("resumed", "cancelled", "overtime")
RSS = (
    '<?xml version="1.0"?><rss version="2.0"><channel><title>Test</title>'
    "<link>https://example.com/</link><description>d</description>"
    + "".join(
        f"<item><title>Story {n}</title><link>https://example.com/{n}</link>"
        f"<guid>https://example.com/{n}</guid><pubDate>Sun, 01 Nov 2026 1{n}:00:00 GMT</pubDate>"
        "</item>"
        for n in range(5)
    )
    + "</channel></rss>"
).encode()

WORKER_SETTINGS = f"""
from rsshub_agent.settings import *  # noqa: F403

Q_CLUSTER = {{**Q_CLUSTER, "timeout": {TIMEOUT}, "retry": {RETRY}, "workers": 3}}  # noqa: F405
# A killed run's claim on its path must expire before the run comes back, as it does with the
# real timeout and retry (fetching.flight); otherwise the resumed run would wait out the claim.
FETCH_CLAIM_SECONDS = 3
"""

# Run in the cluster's database: the catalog the offline agent will choose from, and three
# briefs created the way the web and the API create them (enqueued on commit).
SETUP = """
import json
from django.contrib.auth import get_user_model
from briefs.services import brief_create
from catalog.models import Platform, Route

owner = get_user_model().objects.create_user("worker-test")
platform = Platform.objects.create(namespace="test", name="RSSHub Test")
Route.objects.create(platform=platform, key="/:keyword", path="/test/:keyword",
                     name="Test news", example="/test/news")
ids = {k: brief_create(owner=owner, question=f"{k} news on RSSHub Test", offline=True).pk
       for k in ("resumed", "cancelled", "overtime")}
print(json.dumps(ids))
"""

CANCEL = """
from django.contrib.auth import get_user_model
from briefs.services import brief_cancel

brief_cancel(owner=get_user_model().objects.get(username="worker-test"), brief_id={brief_id})
"""


# --- the RSSHub stand-in -------------------------------------------------------------------------


@dataclass
class HoldingRSSHub:
    """Answers the feed at once, except the first request of each path (every request of
    ``/test/overtime``): that one is held open, and the client port it came from recorded."""

    server: ScriptedServer = field(init=False)
    held: dict[str, threading.Event] = field(init=False)
    ports: dict[str, int] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)
    counts: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.held = {k: threading.Event() for k in KEYWORDS}
        self.server = ScriptedServer(default=self.answer)

    def answer(self, request: Request) -> Reply:
        keyword = request.path.rsplit("/", 1)[-1]
        with self.lock:
            self.counts[keyword] = self.counts.get(keyword, 0) + 1
            first = self.counts[keyword] == 1
        if keyword in self.held and (first or keyword == "overtime"):
            # The peer's port identifies the worker process that holds the connection.
            self.ports[keyword] = request.wfile._sock.getpeername()[1]
            self.held[keyword].set()
            # The overtime run is held past the task timeout; the others until they are killed.
            until = request.stopping if keyword == "overtime" else self.release
            until.wait(HOLD_SECONDS)
        return Reply(200, {"Content-Type": "application/rss+xml"}, RSS)

    @property
    def port(self) -> int:
        return int(self.server.url.rsplit(":", 1)[1])


# --- processes ------------------------------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def descendants(root: int) -> list[int]:
    tree, found, todo = _children(), [], [root]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _socket_inode(local_port: int, remote_port: int) -> str | None:
    """The inode of the TCP socket from ``local_port`` to ``remote_port`` on this machine."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = fields[1], fields[2]
            if (
                int(local.rsplit(":", 1)[1], 16) == local_port
                and int(remote.rsplit(":", 1)[1], 16) == remote_port
                and fields[9] != "0"  # inode 0: an earlier connection in TIME_WAIT, no one's
            ):
                return fields[9]
    return None


def pid_with_connection(pids: list[int], local_port: int, remote_port: int) -> int:
    inode = _socket_inode(local_port, remote_port)
    assert inode, f"no socket from port {local_port} to {remote_port}"
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) == f"socket:[{inode}]":
                    return pid
            except OSError:
                continue
    raise AssertionError(f"no cluster process holds socket {inode}")


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"manage.py {args[0]} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


# --- the database ---------------------------------------------------------------------------------


@dataclass
class Scenario:
    db: psycopg.Connection
    briefs: dict[str, int]
    rsshub: HoldingRSSHub
    killed: dict[str, int]
    log: Path

    def rows(self, sql: str, *params) -> list[tuple]:
        with self.db.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def brief(self, keyword: str) -> dict:
        cursor = self.db.cursor(row_factory=psycopg.rows.dict_row)
        return cursor.execute(
            "SELECT * FROM briefs_brief WHERE id = %s", (self.briefs[keyword],)
        ).fetchone()

    def steps(self, keyword: str) -> list[tuple[int, str, dict]]:
        return self.rows(
            "SELECT seq, kind, payload FROM briefs_runstep WHERE brief_id = %s ORDER BY seq",
            self.briefs[keyword],
        )

    def cluster_log(self) -> str:
        return self.log.read_text()[-4000:]


def _wait(condition, seconds: float, what: str, scenario_log: Path) -> None:
    wait_until(
        condition,
        what=what,
        seconds=seconds,
        every=0.1,
        detail=lambda: scenario_log.read_text()[-4000:],
    )


def _finished(db: psycopg.Connection, ids: list[int]) -> bool:
    with db.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM briefs_brief WHERE id = ANY(%s) AND finished_at IS NOT NULL",
            (ids,),
        )
        return cursor.fetchone()[0] == len(ids)


def _acked(db: psycopg.Connection) -> bool:
    with db.cursor() as cursor:
        return cursor.execute("SELECT count(*) FROM django_q_ormq").fetchone()[0] == 0


def _stop(cluster: subprocess.Popen) -> None:
    if cluster.poll() is None:
        cluster.terminate()  # the cluster's own shutdown: it stops its sentinel and workers
        with contextlib.suppress(subprocess.TimeoutExpired):
            cluster.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):  # whatever is left of its process group
        os.killpg(cluster.pid, signal.SIGKILL)
    cluster.wait(timeout=5)


def _play(env: dict, rsshub: HoldingRSSHub, db, briefs: dict, log: Path) -> dict[str, int]:
    """Start the cluster, kill the workers of two runs mid-fetch, cancel one, wait for the end."""
    killed: dict[str, int] = {}
    with log.open("w") as out:
        cluster = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        for keyword in ("resumed", "cancelled"):
            _wait(rsshub.held[keyword].is_set, 30, f"the {keyword} run to fetch", log)
            pid = pid_with_connection(descendants(cluster.pid), rsshub.ports[keyword], rsshub.port)
            os.kill(pid, signal.SIGKILL)
            killed[keyword] = pid
        manage(env, "shell", "-c", CANCEL.format(brief_id=briefs["cancelled"]))
        rsshub.release.set()
        _wait(lambda: _finished(db, list(briefs.values())), SCENARIO_SECONDS, "the ends", log)
        _wait(lambda: _acked(db), 10, "django-q to ack every task", log)
        assert cluster.poll() is None, "the cluster itself must survive its workers' deaths"
    finally:
        rsshub.release.set()
        _stop(cluster)
    return killed


def cluster_environment(
    folder: Path, *, database: str, rsshub_url: str, secret: str, **extra: str
) -> dict[str, str]:
    """The environment of a ``qcluster`` (and ``manage.py``) run on the scratch ``database``,
    with ``folder``'s ``worker_settings`` and no model or Redis; ``extra`` adds to it."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]),
        "DJANGO_SETTINGS_MODULE": "worker_settings",
        "DATABASE_URL": database_url(database),
        "SECRET_KEY": secret,
        "RSSHUB_URL": rsshub_url,
        "RSSHUB_ACCESS_KEY": "",
        "OPENAI_API_KEY": "",
        "REDIS_URL": "",
        "LOG_LEVEL": "INFO",
        **extra,
    }


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    name = f"rsshub_agent_worker_{os.getpid()}"
    folder = tmp_path_factory.mktemp("qcluster")
    (folder / "worker_settings.py").write_text(WORKER_SETTINGS)
    rsshub = HoldingRSSHub()
    with (
        scratch_database(name) as database,
        rsshub.server,
        psycopg.connect(autocommit=True, **database) as db,
    ):
        env = cluster_environment(
            folder, database=name, rsshub_url=rsshub.server.url, secret="qcluster-test"
        )
        manage(env, "migrate", "--verbosity", "0")
        briefs = json.loads(manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
        log = folder / "qcluster.log"
        killed = _play(env, rsshub, db, briefs, log)
        yield Scenario(db, briefs, rsshub, killed, log)


# --- resumed --------------------------------------------------------------------------------------


def test_a_run_whose_worker_was_killed_completes_once(scenario):
    brief = scenario.brief("resumed")
    assert brief["status"] == "succeeded", (brief["error"], scenario.cluster_log())
    assert brief["attempts"] == 2
    kinds = [kind for _, kind, _ in scenario.steps("resumed")]
    assert kinds.count("brief_ready") == 1
    assert kinds[-1] == "brief_ready"
    assert kinds.count("run_started") == 2
    assert kinds.count("run_resumed") == 1
    assert kinds.index("run_resumed") < kinds.index("brief_ready")


def test_the_resumed_run_steps_are_numbered_without_gaps(scenario):
    seqs = [seq for seq, _, _ in scenario.steps("resumed")]
    assert seqs == list(range(1, len(seqs) + 1))
    assert scenario.brief("resumed")["step_seq"] == len(seqs)
    resumed = [p for _, kind, p in scenario.steps("resumed") if kind == "run_resumed"]
    assert resumed[0]["attempt"] == 2


def test_the_resumed_run_stored_each_item_and_brief_once(scenario):
    assert scenario.rsshub.counts["resumed"] == 2  # the killed fetch, and the one that answered
    items = scenario.rows(
        "SELECT count(*), count(DISTINCT i.guid_hash) FROM fetching_item i "
        "JOIN fetching_feed f ON f.id = i.feed_id WHERE f.path = '/test/resumed'"
    )
    assert items == [(5, 5)]
    outcomes = scenario.rows(
        "SELECT outcome FROM fetching_fetchattempt WHERE brief_id = %s",
        scenario.briefs["resumed"],
    )
    assert outcomes == [("ok",)]  # the killed attempt wrote nothing
    questions = scenario.rows("SELECT question FROM briefs_brief WHERE question LIKE 'resumed%%'")
    assert len(questions) == 1
    assert len(scenario.brief("resumed")["citations"]) == 5


# --- cancelled while dead -------------------------------------------------------------------------


def test_a_cancel_asked_while_the_worker_was_dead_ends_it_cancelled(scenario):
    brief = scenario.brief("cancelled")
    assert brief["status"] == "cancelled", (brief["error"], scenario.cluster_log())
    assert brief["attempts"] == 1
    kinds = [kind for _, kind, _ in scenario.steps("cancelled")]
    assert kinds[-1] == "run_cancelled"
    assert "brief_ready" not in kinds
    assert scenario.rsshub.counts["cancelled"] == 1


# --- over the time limit --------------------------------------------------------------------------


def test_a_run_over_the_time_limit_fails_and_is_not_handed_out_again(scenario):
    brief = scenario.brief("overtime")
    assert brief["status"] == "failed", scenario.cluster_log()
    assert brief["error"] == f"the run exceeded the worker's time limit ({TIMEOUT} s)"
    assert brief["attempts"] == 1
    assert [kind for _, kind, _ in scenario.steps("overtime")][-1] == "run_failed"
    assert scenario.rsshub.counts["overtime"] == 1


def test_django_q_recorded_each_task_and_acked_them_all(scenario):
    # The briefs' tasks: the cluster's own schedules (the sweep, the watch dispatch) may have run
    # beside them when the scenario took longer than a minute.
    results = dict(
        scenario.rows("SELECT name, success FROM django_q_task WHERE name LIKE 'brief-%%'")
    )
    # A killed delivery leaves no result: one row per brief, from the delivery that ended it.
    expected = {f"brief-{scenario.briefs[k]}": k != "overtime" for k in KEYWORDS}
    assert results == expected
    assert scenario.rows("SELECT count(*) FROM django_q_ormq") == [(0,)]
    assert sorted(scenario.killed) == ["cancelled", "resumed"]
