"""Latency a person feels: from submitting a question on the home page until the first step of
the run shows, and until the finished offline brief shows, in headless Chromium against the real
stack, with and without Redis, each next to the same figures taken through the API.

The stack: Daphne serving ``rsshub_agent.asgi``, one ``qcluster`` worker (``Q_WORKERS=1``), and a
stand-in RSSHub (``bench.support``) that answers every path at once with a 5-item feed. Each
set-up (``default``: no Redis; ``redis``: ``REDIS_URL`` set, the channel layer and the worker's
wake-up) gets one warm-up question, then ``--questions`` measured ones (20 by default).

What is timed, in the page itself (one clock: the browser's; a script added to every document
through the DevTools protocol, so it sees a page's own reload as well as a live update):

- submit: the ``submit`` event of the question form;
- first step: the frame after the step ``run_started`` (the first the worker writes; steps carry
  ``data-seq`` and ``data-kind``) is in the document;
- brief: the frame after a citation link of the finished brief (``#sources a.source-link``) is in
  the document.

Baseline, measured in the same run between the browser questions: the same question through the
API (``POST /api/v1/briefs``, then ``GET .../steps`` every 20 ms): the moment ``run_started``
exists, and the moment the brief is finished. That is what the server alone takes; the
difference is the page.

A throwaway database: a scratch PostgreSQL database when ``DATABASE_URL`` names a server, else an
SQLite file (the default set-up every newcomer gets). Redis at ``--redis`` (database 13 by
default; only this bench's keys are written, nothing is flushed).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x .venv/bin/python bench/latency.py \\
        [--questions 20] [--setups default,redis] [--redis redis://127.0.0.1:6379/13]

Unlike the other benches, this one needs the dev requirements (Selenium, ``requirements-dev.txt``)
and Debian's ``chromium`` and ``chromium-driver``, as the browser tests do: a person's latency
includes the browser's.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import multiprocessing
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as a script: the project root, not bench/, comes first

from bench.scratch import (  # noqa: E402
    scratch_database_create,
    scratch_database_drop,
    scratch_environment,
)

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SCRATCH_NAME = f"rsshub_agent_bench_latency_{os.getpid()}"
PASSWORD = "bench-latency-pass-1"
STARTUP_SECONDS = 60
ANSWER_SECONDS = 60
API_POLL_SECONDS = 0.02
TOPICS = ["chips", "batteries", "rockets", "vaccines", "satellites", "robots", "tariffs"]
TARGETS = {"first": (150, 300), "brief": (500, 1000)}  # ms: p50, p95 (issue 18)

# Added to every document the tab opens. The submit time lives in sessionStorage because the
# form's page is gone by the time the brief's page shows anything.
PAGE_CLOCK_JS = r"""
(() => {
  if (location.pathname === '/') {
    document.addEventListener('submit', (event) => {
      if (event.target.id !== 'ask-form') return;
      sessionStorage.setItem('latency-submit', String(Date.now()));
    }, true);
    return;
  }
  const match = location.pathname.match(/^\/briefs\/(\d+)\/$/);
  if (!match) return;
  const key = 'latency-' + match[1];
  const mark = (name, at) => {  // the first time only: a reload keeps what came before it
    const marks = JSON.parse(sessionStorage.getItem(key) || '{}');
    if (!(name in marks)) { marks[name] = at; sessionStorage.setItem(key, JSON.stringify(marks)); }
  };
  const onScreen = (name) => requestAnimationFrame(() => mark(name, Date.now()));
  const Native = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    mark('socket', Date.now());
    const socket = new Native(url, protocols);
    socket.addEventListener('open', () => mark('open', Date.now()));
    socket.addEventListener('message', () => mark('message', Date.now()));
    return socket;
  };
  Object.assign(window.WebSocket, {prototype: Native.prototype, OPEN: 1, CLOSED: 3});
  document.addEventListener('DOMContentLoaded', () => {
    const navigation = performance.getEntriesByType('navigation')[0];
    mark('response', Math.round(performance.timeOrigin + navigation.responseStart));
    mark('parsed', Date.now());
  });
  const shown = {};
  const looks = {first: '[data-seq][data-kind="run_started"]',
                 ready_step: '[data-seq][data-kind="brief_ready"]',
                 brief: '#sources a.source-link'};
  new MutationObserver(() => {
    for (const [name, selector] of Object.entries(looks)) {
      if (!shown[name] && document.querySelector(selector)) { shown[name] = true; onScreen(name); }
    }
  }).observe(document, {childList: true, subtree: true});
})();
"""


# --- the stand-in RSSHub (a process of its own, as RSSHub is) ---------------------------------


def _rsshub_answer(request):
    from bench.support.feeds import RSS_TYPE, rss
    from bench.support.httpserver import Reply

    if request.path == "/healthz":
        return Reply(200, {"Content-Type": "text/plain"}, b"ok")
    return Reply(200, RSS_TYPE, rss(5, title=f"bench {request.path}", prefix="latency"))


def _serve(urls: multiprocessing.Queue) -> None:
    from bench.support.httpserver import ScriptedServer

    with ScriptedServer(default=_rsshub_answer) as rsshub:
        urls.put(rsshub.url)
        time.sleep(24 * 3600)


@contextlib.contextmanager
def stand_in_rsshub():
    urls: multiprocessing.Queue = multiprocessing.Queue()
    process = multiprocessing.Process(target=_serve, args=(urls,), daemon=True)
    process.start()
    try:
        yield urls.get(timeout=20)
    finally:
        process.terminate()
        process.join(timeout=5)


# --- the database ------------------------------------------------------------------------------


def world_prepare() -> tuple[str, str]:
    """The catalog (seed plus one platform of the bench's own), the person, an API token and the
    static files; returns (username, token)."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from briefs.tokens.service import token_issue
    from catalog.importer import catalog_import, catalog_read_file
    from catalog.models import Platform, Route
    from catalog.seed import SEED_PATH

    catalog_import(catalog_read_file(SEED_PATH))
    platform = Platform.objects.create(namespace="benchwire", name="Benchwire Daily", priority=1)
    for key in ("/a/:topic", "/b/:topic"):
        Route.objects.create(
            platform=platform, key=key, path=f"/benchwire{key}", name=f"Benchwire {key}",
            example=f"/benchwire{key[:2]}news",
        )  # fmt: skip
    user = get_user_model().objects.create_user("bench", password=PASSWORD)
    call_command("collectstatic", "--noinput", verbosity=0)
    return user.get_username(), token_issue(user=user, name="latency bench").secret


def database_url() -> str:
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    port = db.get("PORT") or 5432
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{port}/{db['NAME']}"


# --- the stack -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stack_env(*, workdir: str, rsshub_url: str, redis_url: str | None) -> dict:
    keep = ("OPENAI_", "REDIS_", "RSSHUB_", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(keep)}
    env.update(
        DATABASE_URL=database_url(), DATA_DIR=workdir, SECRET_KEY=os.environ["SECRET_KEY"],
        DEBUG="0", ALLOWED_HOSTS="127.0.0.1,localhost", LOG_LEVEL="WARNING", Q_WORKERS="1",
        RSSHUB_URL=rsshub_url, RSSHUB_EGRESS_CANARIES="off", PYTHONUNBUFFERED="1",
        # Every question fetches: no answer from an earlier question's fetch of the same path.
        FETCH_FRESH_SECONDS="0",
        # The API baseline polls every 20 ms and asks as often as the page does.
        API_THROTTLE_RATE="100000/minute", API_CREATE_THROTTLE_RATE="10000/minute",
        API_BRIEFS_PER_DAY="100000",
    )  # fmt: skip
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def _spawn(command: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log.open("ab"),
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


@contextlib.contextmanager
def stack(env: dict, workdir: str):
    """Daphne and one worker; yields the site's URL."""
    port = free_port()
    log = Path(workdir) / "stack.log"
    daphne = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
              "rsshub_agent.asgi:application"]  # fmt: skip
    processes = [_spawn(daphne, env, log)]
    try:
        processes.append(_spawn([sys.executable, "manage.py", "qcluster"], env, log))
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if any(p.poll() is not None for p in processes):
                raise SystemExit(f"the stack exited early; see {log}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"daphne did not start; see {log}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        for process in processes:
            _stop(process)


# --- the browser -------------------------------------------------------------------------------


def chrome(profile: str):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--window-size=1280,1000",
        "--lang=en-US",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(argument)  # fmt: skip
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PAGE_CLOCK_JS})
    return driver


def _until(condition, seconds: float, what: str, poll: float = 0.05):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(poll)
    raise SystemExit(f"timed out waiting for {what}")


def sign_in(driver, url: str, username: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/accounts/login/")
    driver.find_element(By.ID, "id_username").send_keys(username)
    driver.find_element(By.ID, "id_password").send_keys(PASSWORD)
    driver.find_element(By.ID, "login-submit").click()
    _until(lambda: driver.find_elements(By.ID, "logout-button"), 15, "the sign-in")


PAGE_MARKS = {  # in the order they happen
    "response": "first byte of the brief's page (POST, redirect, GET)",
    "parsed": "page parsed (DOMContentLoaded)",
    "socket": "websocket opened by the page",
    "open": "websocket connected",
    "message": "first websocket message",
    "first": "run_started on screen",
    "ready_step": "brief_ready on screen",
    "brief": "finished brief on screen",
}


def ask_in_browser(driver, url: str, question: str) -> tuple[int, dict[str, float]]:
    """The brief's id and, for one question asked on the home page, the ms from submitting it
    to each of ``PAGE_MARKS`` (those that happened)."""
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/")
    driver.find_element(By.ID, "id_question").send_keys(question)
    driver.execute_script("sessionStorage.removeItem('latency-submit')")
    driver.find_element(By.ID, "ask-submit").click()

    def read():
        return driver.execute_script(
            "const m = location.pathname.match(/^\\/briefs\\/(\\d+)\\/$/); if (!m) return null;"
            "const marks = JSON.parse(sessionStorage.getItem('latency-' + m[1]) || '{}');"
            "if (!('first' in marks && 'brief' in marks)) return null;"
            "return [+m[1], +sessionStorage.getItem('latency-submit'), marks];"
        )

    brief_id, submitted, marks = _until(read, ANSWER_SECONDS, f"the brief of {question!r}")
    return brief_id, {name: at - submitted for name, at in marks.items()}


# --- the API baseline ----------------------------------------------------------------------------


def ask_through_api(client, question: str) -> tuple[int, float, float]:
    """The brief's id, ms until ``run_started`` exists, ms until the brief is finished; the
    steps are read every 20 ms."""
    started = time.perf_counter()
    created = client.post("/api/v1/briefs", json={"question": question, "offline": True})
    created.raise_for_status()
    brief_id, first = created.json()["id"], None
    deadline = time.monotonic() + ANSWER_SECONDS
    while time.monotonic() < deadline:
        body = client.get(f"/api/v1/briefs/{brief_id}/steps").json()
        now = (time.perf_counter() - started) * 1000
        if first is None and any(s["kind"] == "run_started" for s in body["steps"]):
            first = now
        if body["finished"]:
            return brief_id, first if first is not None else now, now
        time.sleep(API_POLL_SECONDS)
    raise SystemExit(f"brief {brief_id} did not finish through the API")


# --- where the server's time goes -------------------------------------------------------------

SERVER_SPANS = {
    "queued": "created -> claimed by the worker",
    "start": "claimed -> run_started written",
    "run": "run_started -> brief_ready written",
}


def server_spans(brief_ids: list[int]) -> dict[str, list[float]]:
    """Per brief, from the rows' own timestamps (ms): the spans of ``SERVER_SPANS``."""
    from briefs.models import Brief, RunStep

    spans: dict[str, list[float]] = {name: [] for name in SERVER_SPANS}
    for brief in Brief.objects.filter(pk__in=brief_ids).only("created_at", "started_at"):
        steps = dict(
            RunStep.objects.filter(
                brief=brief, kind__in=("run_started", "brief_ready")
            ).values_list("kind", "created_at")
        )
        if brief.started_at is None or len(steps) < 2:
            continue
        moments = [brief.created_at, brief.started_at, steps["run_started"], steps["brief_ready"]]
        for name, (a, b) in zip(SERVER_SPANS, itertools.pairwise(moments), strict=True):
            spans[name].append((b - a).total_seconds() * 1000)
    return spans


# --- one set-up ----------------------------------------------------------------------------------


@dataclass
class Samples:
    page: dict[str, list[float]] = field(default_factory=lambda: {m: [] for m in PAGE_MARKS})
    api_first: list[float] = field(default_factory=list)
    api_brief: list[float] = field(default_factory=list)
    page_ids: list[int] = field(default_factory=list)
    api_ids: list[int] = field(default_factory=list)


def question(n: int) -> str:
    return f"What is the latest news about {TOPICS[n % len(TOPICS)]} on Benchwire Daily?"


def measure_setup(env: dict, workdir: str, username: str, token: str, count: int) -> Samples:
    import httpx

    samples = Samples()
    with (
        stack(env, workdir) as url,
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as client,
    ):
        driver = chrome(tempfile.mkdtemp(dir=workdir, prefix="chrome-"))
        try:
            sign_in(driver, url, username)
            ask_in_browser(driver, url, question(0))  # warm-up: the worker's first question
            ask_through_api(client, question(0))
            for n in range(1, count + 1):
                brief_id, marks = ask_in_browser(driver, url, question(n))
                samples.page_ids.append(brief_id)
                for name, ms in marks.items():
                    samples.page[name].append(ms)
                brief_id, first, brief = ask_through_api(client, question(n))
                samples.api_ids.append(brief_id)
                samples.api_first.append(first)
                samples.api_brief.append(brief)
        finally:
            driver.quit()
    return samples


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[round(0.95 * (len(ordered) - 1))]


def report(results: dict[str, Samples], database: str, count: int) -> None:
    print(f"\n{count} questions per set-up after a warm-up; database {database}; one worker")
    print(f"{'set-up':<8} {'figure':<28} {'page p50/p95 ms':>16} {'API p50/p95 ms':>16}  target")
    for name, s in results.items():
        rows = (("first", "submit -> first step", s.api_first),
                ("brief", "submit -> finished brief", s.api_brief))  # fmt: skip
        for key, label, api in rows:
            (p50, p95), (a50, a95) = percentiles(s.page[key]), percentiles(api)
            t50, t95 = TARGETS[key]
            met = "met" if p50 <= t50 and p95 <= t95 else "MISSED"
            print(f"{name:<8} {label:<28} {p50:7.0f} / {p95:6.0f} {a50:7.0f} / {a95:6.0f}  "
                  f"{t50} / {t95} {met}")  # fmt: skip
    for name, s in results.items():
        print(f"\n{name}: the page's timeline, ms after submit (p50 / p95; n of {count})")
        for mark, label in PAGE_MARKS.items():
            if s.page[mark]:
                p50, p95 = percentiles(s.page[mark])
                print(f"  {label:<52} {p50:6.0f} / {p95:6.0f}  n={len(s.page[mark])}")
        spans = server_spans(s.page_ids + s.api_ids)
        print(f"{name}: the server's spans, ms (p50 / p95), page and API briefs alike")
        for span, label in SERVER_SPANS.items():
            if spans[span]:
                p50, p95 = percentiles(spans[span])
                print(f"  {label:<52} {p50:6.0f} / {p95:6.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--setups", default="default,redis")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="bench-latency-")
    postgres = scratch_environment(workdir)
    import django

    django.setup()
    label = scratch_database_create(postgres=postgres, name=SCRATCH_NAME)
    try:
        username, token = world_prepare()
        results: dict[str, Samples] = {}
        with stand_in_rsshub() as rsshub_url:
            for name in args.setups.split(","):
                redis_url = args.redis if name == "redis" else None
                env = stack_env(workdir=workdir, rsshub_url=rsshub_url, redis_url=redis_url)
                results[name] = measure_setup(env, workdir, username, token, args.questions)
                print(f"{name}: done", flush=True)
        report(results, label, args.questions)
    finally:
        from django.db import connections

        connections.close_all()
        scratch_database_drop(label, SCRATCH_NAME)


if __name__ == "__main__":
    main()
