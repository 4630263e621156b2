"""The real thing for browser tests: a PostgreSQL database of their own, a real RSSHub, Daphne,
a ``qcluster`` worker, and Debian's Chromium driven by Selenium.

Why a database of our own rather than pytest-django's: the web server and the worker are other
processes, so they must see committed data, and pytest-django's test database is wrapped in a
transaction per test. The fixture creates ``rsshub_agent_browser_<pid>`` next to the configured
database, migrates it, imports the catalog snapshot, curates it for offline questions (below),
and drops it at the end. RSSHub keeps routes in its cache for 1 s only, so that every fetch of
a slow route is slow.

Curation: the catalog's ``test`` platform (route ``/test/:id/:params?``, example ``/test/1``) gets
the aliases "测试源" and "rsshub test feed", and its ``id`` parameter an option labelled "slow"
for ``/test/slow4`` and one labelled "broken" for ``/test/error`` (RSSHub's error page). A
question naming "rsshub test feed" is routed there offline; with "slow", the fetch waits at the
stack's gate (``tests/browser/gate.py``) until the test releases it, so a test watches steps
arrive, reloads or cancels while the run is surely in flight; with "broken", the brief finds
nothing and shows its coverage.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.browser.gate import RouteGate
from tests.databases import database_url, scratch_database
from tests.ports import free_port
from tests.rsshub_server import INSTALL_SCRIPT, LocalRSSHub, rsshub_installed

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
LOGS = ARTIFACTS / "browser-logs"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SEED = ROOT / "catalog" / "seed" / "namespace.json.gz"
PASSWORDS = {
    "alice": "alice-browser-pass-1",
    "mallory": "mallory-browser-pass-1",
    "sam": "sam-browser-pass-1",
    "nora": "nora-browser-pass-1",  # never asks: her list stays empty
    "olga": "olga-browser-pass-1",  # asks once, by an example of her empty list
}
STARTUP_SECONDS = 60

CURATION = f"""
from django.contrib.auth import get_user_model
from catalog.models import Platform, Route

Platform.objects.filter(namespace="test").update(aliases=["测试源", "rsshub test feed"])
Route.objects.filter(path="/test/:id/:params?").update(parameters={{
    "id": {{"description": "which test feed",
            "options": [{{"label": "slow", "value": "slow4"}},
                        {{"label": "broken", "value": "error"}}]}}
}})
users = get_user_model().objects
passwords = {PASSWORDS!r}
users.create_user("alice", password=passwords["alice"])
users.create_user("mallory", password=passwords["mallory"])
users.create_superuser("sam", password=passwords["sam"])
users.create_user("nora", password=passwords["nora"])
users.create_user("olga", password=passwords["olga"])
"""


@dataclass
class Stack:
    url: str
    database: dict
    rsshub_url: str
    gate: RouteGate
    env: dict

    def query(self, statement: str, *params) -> list[tuple]:
        """Read the stack's database (the tests write only through the pages and staff actions)."""
        with psycopg.connect(**self.database) as conn:
            return conn.execute(statement, params).fetchall()

    def test_route_health_reset(self) -> None:
        """What staff do after a known breakage (the admin's "reset health"): the "broken"
        option's failures (the try and its retries) open the test route's circuit for a minute,
        which would turn the next pages' questions on that route into briefs that found nothing."""
        _manage(
            self.env,
            "shell",
            "-c",
            "from catalog.models import Route; from catalog.services import routes_health_reset; "
            "routes_health_reset(route_ids=Route.objects.filter(platform__namespace='test')"
            ".values_list('id', flat=True))",
        )


def _require_tools() -> None:
    """A missing part fails every browser test with how to install it (CI has them all); the
    PostgreSQL requirement is the ``browser`` marker's (tests/conftest.py)."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        pytest.fail(
            f"{', '.join(missing)} missing: run scripts/system-deps as root "
            "(Debian packages chromium, chromium-driver)",
            pytrace=False,
        )
    if not rsshub_installed():
        pytest.fail(f"RSSHub not installed: run {INSTALL_SCRIPT}", pytrace=False)
    if shutil.which("msgfmt") is None:
        pytest.fail(
            "msgfmt missing: run scripts/system-deps (Debian package gettext)", pytrace=False
        )


def _environment(database_url: str, rsshub_url: str, data_dir: Path) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "REDIS_", "RSSHUB_", "ADMIN_")) and k != "DATABASE_URL"
    }
    env.update(
        DJANGO_SETTINGS_MODULE="tests.browser.settings",
        DATABASE_URL=database_url,
        RSSHUB_URL=rsshub_url,
        SECRET_KEY="browser-tests-secret-key-not-for-production",
        DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATA_DIR=str(data_dir),
        Q_WORKERS="2",
        PYTHONUNBUFFERED="1",
        # Every slow question must really wait for RSSHub: no answer served from an earlier
        # test's fetch of the same path (fetch once, serve many is tested on its own).
        FETCH_FRESH_SECONDS="0",
        # Webhook receivers in the tests listen on 127.0.0.1.
        WEBHOOK_ALLOW_PRIVATE="1",
        # This RSSHub has no internet by design: its egress canary is a route it serves itself,
        # so the "broken" option's failure is the route's, and no later page says "no internet"
        # (the egress guard has its own tests).
        RSSHUB_EGRESS_CANARIES="/test/1",
    )
    return env


def _manage(env: dict, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode:
        raise RuntimeError(
            f"manage.py {args[0]} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
        )


def _spawn(name: str, command: list[str], env: dict) -> subprocess.Popen:
    LOGS.mkdir(parents=True, exist_ok=True)
    log = (LOGS / f"{name}.log").open("wb")
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: we stop it and its children
    )


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


def _wait_for(url: str, process: subprocess.Popen, name: str) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited early; see {LOGS / (name + '.log')}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{name} did not answer {url} in {STARTUP_SECONDS} s")


@pytest.fixture(scope="session")
def stack(tmp_path_factory):
    _require_tools()
    name = f"rsshub_agent_browser_{os.getpid()}"
    processes: list[subprocess.Popen] = []
    # RSSHub's route cache (5 min) would answer a route at once the second time.
    rsshub = LocalRSSHub(extra_env={"CACHE_EXPIRE": "1"})
    gate: RouteGate | None = None
    with scratch_database(name) as database:
        try:
            rsshub.start()
            gate = RouteGate(rsshub.url).start()
            env = _environment(database_url(name), gate.url, tmp_path_factory.mktemp("data"))
            _manage(env, "migrate", "--noinput")
            _manage(env, "import_catalog", str(SEED))
            _manage(env, "collectstatic", "--noinput")
            _manage(env, "compilemessages", "-l", "zh_Hans")
            _manage(env, "shell", "-c", CURATION)
            port = free_port()
            web = _spawn(
                "daphne",
                [
                    sys.executable,
                    "-m",
                    "daphne",
                    "-b",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "rsshub_agent.asgi:application",
                ],
                env,
            )
            processes.append(web)
            processes.append(_spawn("qcluster", [sys.executable, "manage.py", "qcluster"], env))
            url = f"http://127.0.0.1:{port}"
            _wait_for(f"{url}/accounts/login/", web, "daphne")
            yield Stack(
                url=url,
                database={**database, "autocommit": True},
                rsshub_url=rsshub.url,
                gate=gate,
                env=env,
            )
        finally:
            for process in processes:
                _stop(process)
            if gate is not None:
                gate.stop()
            rsshub.stop()


def chrome(user_data_dir: Path, *, javascript: bool = True):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,1000",
        "--lang=en-US",
        f"--user-data-dir={user_data_dir}",
    ):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-US,en"})
    # The console, for the CSP test: violations are reported there.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option(
            "prefs",
            {
                "intl.accept_languages": "en-US,en",
                "profile.managed_default_content_settings.javascript": 2,
            },
        )
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture(autouse=True)
def slow_route_gate(request):
    """The slow route's gate is shut when a test starts and open when it ends (a stack test
    only: the gate belongs to the session's stack)."""
    if "stack" not in request.fixturenames:
        yield
        return
    gate = request.getfixturevalue("stack").gate
    gate.shut()
    yield
    gate.release()


@pytest.fixture
def browser(tmp_path):
    driver = chrome(tmp_path / "chrome")
    yield driver
    driver.quit()


@pytest.fixture
def second_browser(tmp_path):
    driver = chrome(tmp_path / "chrome-2")
    yield driver
    driver.quit()


def screenshot(driver, name: str) -> Path:
    """Keep a picture of the page as a test artifact (artifacts/ is not committed)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def citations_of(stack: Stack, brief_id: int) -> list[dict]:
    [(raw,)] = stack.query("SELECT citations FROM briefs_brief WHERE id = %s", brief_id)
    return raw if isinstance(raw, list) else json.loads(raw)
