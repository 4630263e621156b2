"""The real thing for the MCP tests: a PostgreSQL database of their own, a stand-in RSSHub on
127.0.0.1, Daphne serving ``rsshub_agent.asgi:application`` and a ``qcluster`` worker.

The catalog: ``test`` ("RSSHub Test"), whose route ``/test/:keyword`` the offline agent fills
from the question ("news news on RSSHub Test" fetches ``/test/news``), and ``delta`` ("Delta
Code"), whose one route needs a user and a repository the question must name. The
stand-in answers every path with a five-item feed at once, except ``/test/hold<name>``: that one
is held until the test releases ``<name>`` (a brief that is still running when a client waits,
gives up or goes away).

Users: alice and mallory with a live token each; alice also has a revoked one; ``spent`` has a
token and no briefs left today. Mallory owns one finished brief.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg.rows import dict_row

from bench.support.feeds import RSS_TYPE, rss
from tests.databases import database_url, scratch_database
from tests.httpserver import Reply, Request, ScriptedServer
from tests.ports import free_port
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 60
HOLD_SECONDS = 60.0

SETUP = """
import json
from django.contrib.auth import get_user_model
from briefs.models import Brief, BriefQuotaDay
from briefs.quotas import briefs_per_day, quota_day
from briefs.tokens.service import token_issue, token_revoke
from catalog.models import Platform, Route

users = get_user_model().objects
alice, mallory, spent = (users.create_user(n) for n in ("alice", "mallory", "spent"))
platform = Platform.objects.create(namespace="test", name="RSSHub Test", lang="en")
Route.objects.create(platform=platform, key="/:keyword", path="/test/:keyword",
                     name="Test news", example="/test/news")
delta = Platform.objects.create(namespace="delta", name="Delta Code", lang="en")
Route.objects.create(platform=delta, key="/issues/:user/:repo", path="/delta/issues/:user/:repo",
                     name="Repo issues", example="/delta/issues/octo/cat",
                     parameters={"user": "User name", "repo": "Repo name"})
revoked = token_issue(user=alice, name="revoked")
token_revoke(user=alice, token_id=revoked.token.pk)
BriefQuotaDay.objects.create(user=spent, day=quota_day(), count=briefs_per_day())
theirs = Brief.objects.create(owner=mallory, question="mallory's own question",
                              status="succeeded", outcome="answered", body="Theirs [1].")
print(json.dumps({
    "alice": token_issue(user=alice, name="mcp").secret,
    "mallory": token_issue(user=mallory, name="mcp").secret,
    "spent": token_issue(user=spent, name="mcp").secret,
    "revoked": revoked.secret,
    "mallory_brief": theirs.pk,
}))
"""


@dataclass
class HoldingRSSHub:
    """A feed for every path at once; ``/test/hold<name>`` only once ``release(name)``."""

    server: ScriptedServer = field(init=False)
    holds: dict[str, threading.Event] = field(default_factory=dict)
    held: dict[str, threading.Event] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.server = ScriptedServer(default=self.answer)

    def _events(self, name: str) -> tuple[threading.Event, threading.Event]:
        with self.lock:
            return (
                self.holds.setdefault(name, threading.Event()),
                self.held.setdefault(name, threading.Event()),
            )

    def answer(self, request: Request) -> Reply:
        keyword = request.path.rsplit("/", 1)[-1]
        if keyword.startswith("hold"):
            release, held = self._events(keyword[4:])
            held.set()
            release.wait(HOLD_SECONDS)
        return Reply(200, RSS_TYPE, rss(5, title=f"Feed {keyword}", prefix=keyword))

    def release(self, name: str) -> None:
        self._events(name)[0].set()

    def is_held(self, name: str) -> bool:
        return self._events(name)[1].is_set()

    def release_all(self) -> None:
        with self.lock:
            for event in self.holds.values():
                event.set()


@dataclass
class Stack:
    url: str  # the MCP endpoint, http://127.0.0.1:<port>/mcp/
    site: str
    env: dict[str, str]
    database: dict
    secrets: dict
    rsshub: HoldingRSSHub
    logs: Path

    def rows(self, statement: str, *params) -> list[dict]:
        with psycopg.connect(**self.database, autocommit=True, row_factory=dict_row) as conn:
            return conn.execute(statement, params).fetchall()

    def brief(self, brief_id: int) -> dict:
        [row] = self.rows("SELECT * FROM briefs_brief WHERE id = %s", brief_id)
        return row

    def steps(self, brief_id: int) -> list[dict]:
        return self.rows(
            "SELECT seq, kind, payload FROM briefs_runstep WHERE brief_id = %s ORDER BY seq",
            brief_id,
        )

    def log_tail(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.logs.glob("*.log"))
        )

    def wait_finished(self, brief_id: int, seconds: float = 30) -> dict:
        wait_until(
            lambda: self.brief(brief_id)["finished_at"] is not None,
            what=f"brief {brief_id} to finish",
            seconds=seconds,
            every=0.05,
            detail=self.log_tail,
        )
        return self.brief(brief_id)


def stack_environment(name: str, rsshub_url: str, data_dir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "REDIS_", "RSSHUB_", "ADMIN_", "API_"))
        and k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        DATABASE_URL=database_url(name),
        RSSHUB_URL=rsshub_url,
        SECRET_KEY="mcp-tests-secret-key-not-for-production",
        DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATA_DIR=str(data_dir),
        Q_WORKERS="2",
        PYTHONUNBUFFERED="1",
        FETCH_FRESH_SECONDS="0",  # every brief asks the stand-in: a held path stays held
        DASHBOARD_POLL_SECONDS="0.05",
        LOG_LEVEL="INFO",
    )
    return env


def manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode:
        raise RuntimeError(f"manage.py {args[0]} failed:\n{done.stdout}\n{done.stderr[-4000:]}")
    return done.stdout


def spawn(logs: Path, name: str, command: list[str], env: dict) -> subprocess.Popen:
    with (logs / f"{name}.log").open("wb") as log:
        return subprocess.Popen(
            command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def stop(process: subprocess.Popen) -> None:
    """The process's own shutdown (a cluster stops its sentinel and workers), then whatever is
    left of its process group."""
    if process.poll() is None:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=5)


def _answers(url: str, process: subprocess.Popen) -> bool:
    if process.poll() is not None:
        raise RuntimeError(f"the server exited early with {process.returncode}")
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def daphne_command(port: int) -> list[str]:
    return [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
            "rsshub_agent.asgi:application"]  # fmt: skip


@contextlib.contextmanager
def mcp_stack(folder: Path):
    name = f"rsshub_agent_mcp_{os.getpid()}"
    rsshub = HoldingRSSHub()
    processes: list[subprocess.Popen] = []
    with scratch_database(name) as database, rsshub.server:
        env = stack_environment(name, rsshub.server.url, folder)
        try:
            manage(env, "migrate", "--verbosity", "0")
            secrets = json.loads(manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
            port = free_port()
            web = spawn(folder, "daphne", daphne_command(port), env)
            processes.append(web)
            worker = [sys.executable, "manage.py", "qcluster"]
            processes.append(spawn(folder, "qcluster", worker, env))
            site = f"http://127.0.0.1:{port}"
            wait_until(
                lambda: _answers(f"{site}/accounts/login/", web),
                what="Daphne to answer",
                seconds=STARTUP_SECONDS,
                every=0.1,
                detail=lambda: (folder / "daphne.log").read_text()[-3000:],
            )
            yield Stack(
                url=f"{site}/mcp/", site=site, env=env, database=database, secrets=secrets,
                rsshub=rsshub, logs=folder,
            )  # fmt: skip
        finally:
            rsshub.release_all()
            for process in processes:
                stop(process)
