"""Several hosts' worth of processes on one machine: 3 ``qcluster`` on the Redis broker and 2
Daphne processes sharing the Redis channel layer, all on PostgreSQL.

200 offline briefs are created through the API, alternately on each web process, against a
stand-in RSSHub on 127.0.0.1. The first ``SAMPLE`` briefs are created before any worker starts,
and every one of them is watched by a websocket client on each web process, and by a listener
on the channel layer itself (the doorbells workers ring must cross processes). The stand-in
holds the first request for ``/test/held``; the whole ``qcluster`` whose worker sent it is
SIGKILLed mid-run, its local queue and other runs with it. Nothing is handed out again by the
Redis broker: the recovery sweep (every minute here) finds the runs whose lease ran out and the
queued briefs whose task is gone, and the two clusters left finish everything.

Checked: every brief ends once (one closing step, succeeded), step logs numbered without gaps
and no step twice, the killed run resumed, each websocket client saw exactly the stored steps of
its brief in order, and every step rang its doorbell across processes. The scenario runs once
for the module; each test reads one outcome of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.briefs.test_worker import (
    RSS,
    _stop,
    cluster_environment,
    descendants,
    manage,
    pid_with_connection,
)
from tests.databases import scratch_database
from tests.httpserver import Reply, Request, ScriptedServer
from tests.ports import free_port
from tests.redis_dbs import redis_test_url
from tests.waiting import wait_until

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parent.parent.parent
BRIEFS, SAMPLE, CLUSTERS, WEBS = 200, 8, 3, 2
HELD = 3  # the position (among the first SAMPLE) of the brief whose run is killed
TIMEOUT = 30  # the task timeout: the lease of a killed run ends TIMEOUT + 5 s after it started
# A database of Redis of its own, and names unique to this run inside it.
REDIS_URL = redis_test_url("cluster")
FINISH_KINDS = ("brief_ready", "run_failed", "run_cancelled")

SETTINGS = """
from rsshub_agent.settings import *  # noqa: F403

Q_CLUSTER = {{**Q_CLUSTER, "name": "{name}", "timeout": {timeout}, "retry": {retry}}}  # noqa: F405
CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = "{name}"  # noqa: F405
FETCH_CLAIM_SECONDS = 3  # a killed run's claim on its path expires before the run comes back
"""

# The owner, a token for the API, a session for the websockets, the catalog the offline agent
# chooses from, and the recovery sweep every minute (the schedule's least interval).
SETUP = """
import json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone
from django_q.models import Schedule
from briefs.tokens.service import token_issue
from catalog.models import Platform, Route

owner = get_user_model().objects.create_user("cluster-test")
platform = Platform.objects.create(namespace="test", name="RSSHub Test")
Route.objects.create(platform=platform, key="/:keyword", path="/test/:keyword",
                     name="Test news", example="/test/news")
Schedule.objects.filter(name="briefs-recover").update(minutes=1, next_run=timezone.now())
session = SessionStore()
session[SESSION_KEY] = str(owner.pk)
session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = owner.get_session_auth_hash()
session.create()
token = token_issue(user=owner, name="cluster").secret
print(json.dumps({"token": token, "session": session.session_key}))
"""


# --- the RSSHub stand-in -------------------------------------------------------------------------


@dataclass
class StandIn:
    """Answers every feed at once, but holds the first request for /test/held open until
    ``release``, noting the client port it came from (which names the worker process)."""

    held: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    held_port: int = 0
    requests: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, request: Request) -> Reply:
        with self.lock:
            self.requests[request.path] = self.requests.get(request.path, 0) + 1
            first = self.requests[request.path] == 1
        if request.path == "/test/held" and first:
            self.held_port = request.wfile._sock.getpeername()[1]
            self.held.set()
            self.release.wait(120)
        return Reply(200, {"Content-Type": "application/rss+xml"}, RSS)


# --- websocket watchers and the doorbell listener -----------------------------------------------


@dataclass
class Watch:
    web: int
    brief_id: int
    steps: list[tuple[int, str]] = field(default_factory=list)
    closed: str = ""


async def _watch(port: int, session: str, watch: Watch) -> None:
    from websockets.asyncio.client import connect

    url = f"ws://127.0.0.1:{port}/ws/briefs/{watch.brief_id}/?after=0&lang=en"
    headers = {"Cookie": f"sessionid={session}"}
    async with connect(url, origin=f"http://127.0.0.1:{port}", additional_headers=headers,
                       max_size=2**22, open_timeout=60) as ws:  # fmt: skip
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "step":
                watch.steps.append((message["seq"], message["kind"]))
                if message["kind"] in FINISH_KINDS:
                    watch.closed = "finished"
                    return
        watch.closed = f"closed {ws.close_code}"


async def _doorbells(prefix: str, brief_ids: list[int], rung: dict, ready: threading.Event):
    from channels_redis.core import RedisChannelLayer

    # A read timeout above the layer's 5 s blocking receive, as in the settings.
    host = {"address": REDIS_URL, "socket_timeout": 15}
    layer = RedisChannelLayer(hosts=[host], prefix=prefix)
    channel = await layer.new_channel()
    for brief_id in brief_ids:
        await layer.group_add(f"brief.{brief_id}", channel)
    ready.set()
    try:
        while True:
            message = await layer.receive(channel)
            rung.setdefault(message["brief_id"], set()).add(message["seq"])
    finally:
        await layer.flush()


class Watchers:
    """Websocket clients and the doorbell listener, on an event loop in a thread of their own."""

    def __init__(self, prefix: str, session: str, ports: list[int], brief_ids: list[int]):
        self.watches = [Watch(web, b) for b in brief_ids for web in range(len(ports))]
        self.rung: dict[int, set[int]] = {}
        self.listener_error = ""
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        listening = threading.Event()
        self.listener = self._submit(_doorbells(prefix, brief_ids, self.rung, listening))
        self.sockets = [self._submit(_watch(ports[w.web], session, w)) for w in self.watches]
        assert listening.wait(30), "the doorbell listener did not join the groups"

    def _submit(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def finished(self) -> bool:
        return all(future.done() for future in self.sockets)

    def close(self) -> None:
        if self.listener.done():  # it only ends by failing: keep why, for the test to show
            self.listener_error = repr(self.listener.exception())
        with contextlib.suppress(Exception):
            self._submit(self._cancel_all()).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    @staticmethod
    async def _cancel_all() -> None:
        """Cancel the sockets and the listener and let them clean up (close their connections)."""
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


# --- processes -----------------------------------------------------------------------------------


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
        return True
    return False


def _spawn(env: dict, log: Path, *args: str) -> subprocess.Popen:
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip


def _create(client: httpx.Client, url: str, token: str, question: str) -> int:
    response = client.post(
        f"{url}/api/v1/briefs",
        json={"question": question, "offline": True},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 202, response.text[:500]
    return response.json()["id"]


@dataclass
class Scenario:
    db: psycopg.Connection
    briefs: list[int]
    held: int
    watchers: Watchers
    killed: list[int]
    logs: Path

    def rows(self, sql: str, *params) -> list[tuple]:
        with self.db.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def steps(self) -> dict[int, list[tuple[int, str]]]:
        out: dict[int, list[tuple[int, str]]] = {}
        for brief_id, seq, kind in self.rows(
            "SELECT brief_id, seq, kind FROM briefs_runstep ORDER BY brief_id, seq"
        ):
            out.setdefault(brief_id, []).append((seq, kind))
        return out

    def log_tail(self) -> str:
        return "\n".join(f"== {p.name}\n{p.read_text()[-1500:]}" for p in self.logs.glob("*.log"))


def _unfinished(db: psycopg.Connection) -> int:
    with db.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM briefs_brief WHERE finished_at IS NULL")
        return cursor.fetchone()[0]


def _kill_the_cluster_holding(clusters: list[subprocess.Popen], port: int, server_port: int):
    """SIGKILL every process of the qcluster whose worker holds the connection from ``port``."""
    tree = {c.pid: descendants(c.pid) for c in clusters}
    pid = pid_with_connection([p for pids in tree.values() for p in pids], port, server_port)
    cluster = next(c for c in clusters if pid in tree[c.pid])
    os.killpg(cluster.pid, signal.SIGKILL)
    cluster.wait(timeout=10)
    return [cluster.pid, *tree[cluster.pid]]


def _play(env: dict, secrets: dict, stand_in: StandIn, server_port: int, db, logs: Path):
    queue = secrets["queue"]
    ports = [free_port() for _ in range(WEBS)]
    daphne = ("-m", "daphne", "-b", "127.0.0.1", "rsshub_agent.asgi:application")
    webs = [
        _spawn(env, logs / f"web{n}.log", *daphne[:4], "-p", str(port), *daphne[4:])
        for n, port in enumerate(ports)
    ]
    clusters: list[subprocess.Popen] = []
    watchers = None
    try:
        for port in ports:
            wait_until(lambda port=port: _listening(port), what=f"daphne on {port}", seconds=60)
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        with httpx.Client(timeout=60) as client:
            ask = lambda n: _create(  # noqa: E731
                client, urls[n % WEBS], secrets["token"],
                "held news on RSSHub Test" if n == HELD else "cluster news on RSSHub Test",
            )  # fmt: skip
            sample = [ask(n) for n in range(SAMPLE)]
            watchers = Watchers(queue, secrets["session"], ports, sample)
            clusters = [
                _spawn(env, logs / f"qcluster{n}.log", "manage.py", "qcluster")
                for n in range(CLUSTERS)
            ]
            # The kill comes as soon as the held run fetches: past the task timeout (TIMEOUT)
            # django-q would end that run itself. The other briefs are asked after it.
            wait_until(stand_in.held.is_set, what="the held run to fetch", seconds=120)
            killed = _kill_the_cluster_holding(clusters, stand_in.held_port, server_port)
            briefs = sample + [ask(n) for n in range(SAMPLE, BRIEFS)]
        stand_in.release.set()
        wait_until(lambda: _unfinished(db) == 0, what="every brief to end", seconds=400,
                   every=0.5, detail=lambda: f"{_unfinished(db)} unfinished")  # fmt: skip
        wait_until(watchers.finished, what="the websocket clients to see the ends", seconds=30)
        alive = [c for c in clusters if c.poll() is None]
        assert len(alive) == CLUSTERS - 1, "the other clusters must keep running"
        return briefs, sample[HELD], watchers, killed
    finally:
        stand_in.release.set()
        if watchers is not None:
            watchers.close()
        for process in [*clusters, *webs]:
            _stop(process)


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    name = f"rsshub_agent_cluster_{os.getpid()}"
    queue = f"cluster-{uuid.uuid4().hex[:10]}"
    folder = tmp_path_factory.mktemp("cluster")
    settings = SETTINGS.format(name=queue, timeout=TIMEOUT, retry=TIMEOUT + 30)
    (folder / "worker_settings.py").write_text(settings)
    stand_in = StandIn()
    with (
        scratch_database(name) as database,
        ScriptedServer(default=stand_in.answer) as server,
        psycopg.connect(autocommit=True, **database) as db,
    ):
        env = cluster_environment(
            folder, database=name, rsshub_url=server.url, secret="cluster-test",
            REDIS_URL=REDIS_URL, Q_BROKER="redis", Q_WORKERS="2",
            ALLOWED_HOSTS="127.0.0.1", API_CREATE_THROTTLE_RATE="100000/minute",
            API_THROTTLE_RATE="100000/minute", API_BRIEFS_PER_DAY="100000",
        )  # fmt: skip
        manage(env, "migrate", "--verbosity", "0")
        secrets = json.loads(manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
        secrets["queue"] = queue
        server_port = int(server.url.rsplit(":", 1)[1])
        try:
            briefs, held, watchers, killed = _play(env, secrets, stand_in, server_port, db, folder)
            yield Scenario(db, briefs, held, watchers, killed, folder)
        finally:
            import redis

            connection = redis.Redis.from_url(REDIS_URL)
            for key in connection.scan_iter(f"*{queue}*"):
                connection.delete(key)


# --- every brief ends once ------------------------------------------------------------------------


def test_every_brief_created_through_either_web_process_ends_once(scenario):
    assert len(set(scenario.briefs)) == BRIEFS
    statuses = dict(scenario.rows("SELECT status, count(*) FROM briefs_brief GROUP BY status"))
    assert statuses == {"succeeded": BRIEFS}, scenario.log_tail()
    steps = scenario.steps()
    ends = {b: [k for _, k in steps[b] if k in FINISH_KINDS] for b in scenario.briefs}
    assert {b: e for b, e in ends.items() if e != ["brief_ready"]} == {}


def test_no_step_log_has_a_gap_or_a_step_twice(scenario):
    steps = scenario.steps()
    counters = dict(scenario.rows("SELECT id, step_seq FROM briefs_brief"))
    attempts = dict(scenario.rows("SELECT id, attempts FROM briefs_brief"))
    for brief_id in scenario.briefs:
        seqs = [seq for seq, _ in steps[brief_id]]
        assert seqs == list(range(1, len(seqs) + 1)), (brief_id, seqs)
        assert counters[brief_id] == len(seqs)
        kinds = [kind for _, kind in steps[brief_id]]
        # A resumed attempt says so once. Each attempt that got as far as starting says
        # run_started once: the SIGKILL may land between a claim and its first step, so an
        # attempt may have none, but the last one (which finished the brief) has it.
        assert kinds.count("run_resumed") == attempts[brief_id] - 1, (brief_id, kinds)
        assert 1 <= kinds.count("run_started") <= attempts[brief_id], (brief_id, kinds)
        last_resumed = max((i for i, kind in enumerate(kinds) if kind == "run_resumed"), default=-1)
        assert "run_started" in kinds[last_resumed + 1 :], (brief_id, kinds)


def test_the_killed_run_resumed_on_another_cluster(scenario):
    (attempts,) = scenario.rows("SELECT attempts FROM briefs_brief WHERE id = %s", scenario.held)[0]
    assert attempts == 2, scenario.log_tail()
    assert len(scenario.killed) > 3  # the cluster, its sentinel, workers, pusher and monitor


# --- what the browsers saw ------------------------------------------------------------------------


def test_a_websocket_on_each_web_process_saw_every_step(scenario):
    steps = scenario.steps()
    for watch in scenario.watchers.watches:
        assert watch.closed == "finished", (watch.web, watch.brief_id, watch.closed)
        assert watch.steps == steps[watch.brief_id], (watch.web, watch.brief_id)
    assert {w.web for w in scenario.watchers.watches} == set(range(WEBS))


def test_every_step_rang_its_doorbell_across_processes(scenario):
    steps = scenario.steps()
    for brief_id in {w.brief_id for w in scenario.watchers.watches}:
        # Steps written together (a queued brief's first step, candidates with their choice) ring
        # once, for the last of them: every doorbell names a stored step, and the last step rang.
        rung = scenario.watchers.rung.get(brief_id)
        seqs = {s for s, _ in steps[brief_id]}
        assert rung, (brief_id, scenario.watchers.listener_error)
        assert rung <= seqs, (brief_id, rung - seqs)
        assert max(rung) == max(seqs), (brief_id, sorted(rung), sorted(seqs))
