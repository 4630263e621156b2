"""Shared fixtures: one world of users, and the real catalog snapshot loaded once per session.

The snapshot import runs inside ``django_db_setup``, so every test sees the 3,905 real routes and
each test's transaction rolls back its own changes. Tests that need an empty catalog delete it
inside their transaction; transactional tests (``transaction=True``) that need it call
``catalog_seed_import()`` themselves, since Django flushes tables after them.
"""

import importlib
import os

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import translation
from pytest_django.plugin import blocking_manager_key

from agent.llm.transport import strict_refusals_forget
from catalog.importer import catalog_import, catalog_read_file
from catalog.seed import SEED_PATH
from fetching.paths import catalog_cache_clear
from tests.databases import POSTGRES_ENGINE
from tests.scheduling import UnitScheduling, longest_first

NEEDS_POSTGRES = ("postgres", "browser")  # markers of tests that need a PostgreSQL server

# The modules whose behaviour depends on the database engine, and why: scripts/test runs these
# (marked ``engine``) on SQLite too, since SQLite is the default of a fresh install. The rest of
# the suite reads and writes rows the same way on both and runs on PostgreSQL only.
ENGINE_DEPENDENT = {
    "tests/briefs/test_broker.py": "the queue's wake-ups: NOTIFY on PostgreSQL, a poll on SQLite",
    "tests/briefs/test_doorbell.py": "live steps: LISTEN on PostgreSQL, a counter poll on SQLite",
    "tests/briefs/test_consumers.py": "the websocket hears steps through the engine's doorbell",
    "tests/briefs/test_steps.py": "step numbers claimed inside the writer's transaction",
    "tests/briefs/test_tasks.py": "the sweep claims lost runs by compare-and-set",
    "tests/briefs/test_views_list.py": "citations counted by each engine's JSON functions",
    "tests/api/test_queries.py": "brief filters and their query counts on each engine",
    "tests/api/test_status.py": "the queue's backlog as each broker stores it",
    "tests/api/test_webhooks.py": "deliveries claimed by compare-and-set",
    "tests/catalog/test_import.py": "the catalog's bulk upserts",
    "tests/catalog/test_search.py": "route search reads fresh health with one SQL text per engine",
    "tests/catalog/test_search_command.py": "route search from the terminal",
    "tests/fetching/test_circuit.py": "circuit changes by conditional update",
    "tests/fetching/test_flight.py": "the single-flight claim per path",
    "tests/fetching/test_ingest.py": "item upserts and text the driver must encode",
    "tests/housekeeping/test_retention.py": "pruning in batches, and its lock",
    "tests/housekeeping/test_ingest_after.py": "pruning beside a running ingest",
    "tests/sharing/test_atom.py": "what each engine keeps of a timestamp",
    "tests/watches/test_dispatch.py": "watch slots claimed by compare-and-set (SKIP LOCKED)",
    "tests/watches/test_delta.py": "what changed since the last run, by the engine's set queries",
    "tests/agent/test_agent_e2e.py": "a whole run, as a fresh install on SQLite makes it",
    "tests/test_serve.py": "a fresh install runs on SQLite",
}

# The modules the quick pass (scripts/test --quick) leaves to the full pass, and why: each starts
# whole processes of the service or fuzzes every API operation, minutes of CPU between them on two
# cores; none holds the only test of a rule of the README's table.
FULL_PASS_ONLY = {
    "tests/api/test_schema.py": "schemathesis fuzzes every API operation over HTTP",
    "tests/test_settings.py": "starts Django processes under each environment",
    "tests/test_deploy.py": "runs manage.py check --deploy in processes",
    "tests/test_serve.py": "starts the whole service: web server, worker, RSSHub stand-in",
    "tests/test_install_assets.py": "collects the static files and compiles translations",
}

# --- skips: a missing part fails the run; only a platform fact (no /proc, no fork) may skip ------


def pytest_configure(config):
    """Passwords are hashed with MD5 in tests: PBKDF2's 1,000,000 rounds cost about 0.3 s of CPU
    per password, and the suite makes thousands of users. The processes a test starts (the
    browser stack, ``serve``) keep the real hasher; the sign-in tests check passwords, not how
    they are stored."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def pytest_addoption(parser):
    parser.addoption(
        "--no-skips",
        action="store_true",
        help="fail the run when any test is skipped (scripts/test: this machine has every part)",
    )


@pytest.hookimpl(tryfirst=True)  # before the test's fixtures open its transaction
def pytest_runtest_setup(item):
    """A test that needs PostgreSQL fails on another database rather than skipping (the SQLite
    pass of scripts/test deselects these markers instead). A test after a flush finds the world
    made again (``world_restore_after_flush``)."""
    world_restore_after_flush(item)
    needs = [name for name in NEEDS_POSTGRES if item.get_closest_marker(name)]
    if needs and settings.DATABASES["default"]["ENGINE"] != POSTGRES_ENGINE:
        pytest.fail(
            f"marked {needs[0]!r}: needs PostgreSQL; set DATABASE_URL=postgres://... "
            f'or deselect with -m "not {needs[0]}"',
            pytrace=False,
        )


def _skip_count(config) -> int:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return 0
    return sum(1 for r in reporter.stats.get("skipped", []) if not hasattr(r, "wasxfail"))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skips = _skip_count(config)
    terminalreporter.write_line(f"skips: {skips}")
    if skips and config.getoption("--no-skips"):
        terminalreporter.write_line(
            f"{skips} skipped test(s) with --no-skips: install what each reason names",
            red=True,
        )


def pytest_sessionfinish(session, exitstatus):
    if session.config.getoption("--no-skips") and _skip_count(session.config):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def catalog_seed_import():
    return catalog_import(catalog_read_file(SEED_PATH))


@pytest.fixture(autouse=True)
def catalog_cache_fresh():
    """The path module's namespace and route cache lives per process, and each test changes the
    catalog its own way: every test starts and ends with it empty."""
    catalog_cache_clear()
    yield
    catalog_cache_clear()


@pytest.fixture(autouse=True)
def language_reset():
    """A request a test makes may leave its reader's language active in the thread (the sign-in
    activates the profile's, as Django's LocaleMiddleware does per request): the next test in
    this worker must not write its English brief in Chinese."""
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def search_index_always_current(settings):
    """Each test sees the catalog as it left it: an index built from an earlier test's
    rolled-back changes must not answer for up to the recheck interval."""
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 0


@pytest.fixture(autouse=True)
def process_state_fresh():
    """What a process remembers outside the database and the cache starts empty in each test:
    an endpoint an earlier test's server made refuse ``strict`` schemas must not change how this
    test's server is asked."""
    strict_refusals_forget()
    yield
    strict_refusals_forget()


@pytest.fixture(autouse=True)
def django_cache_empty():
    """Each test starts with an empty cache: a remembered RSSHub status or throttle count from an
    earlier test must not decide what this one sees."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


# --- parallel workers: what two workers must not share ---------------------------------------


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` (scripts/test): units of work as ``tests/scheduling.py`` draws them."""
    if config.getvalue("dist") != "loadgroup":
        return None
    return UnitScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    """The engine-dependent modules are marked ``engine``, the full pass's own ``full``; under
    parallel workers the longest units come first."""
    for item in items:
        module = item.nodeid.split("::")[0]
        if module in ENGINE_DEPENDENT:
            item.add_marker(pytest.mark.engine(ENGINE_DEPENDENT[module]))
        if module in FULL_PASS_ONLY:
            item.add_marker(pytest.mark.full(FULL_PASS_ONLY[module]))
    if os.environ.get("PYTEST_XDIST_WORKER"):
        longest_first(items)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """The SQLite test database is a file of this run's (and this worker's) own, so two runs in one
    checkout, or two workers of one run, never open each other's. PostgreSQL's test database
    already takes the worker's suffix (``test_rsshub_agent_gw0``)."""
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        folder = tmp_path_factory.mktemp("sqlite")
        database.setdefault("TEST", {})["NAME"] = str(folder / "test_db.sqlite3")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        catalog_seed_import()
    WORLD["ready"] = True


# A transactional test ends with Django flushing every table: the catalog, and the rows the data
# migrations made (the django-q schedules). Run alone, pytest-django puts those tests last; under
# parallel workers a worker runs one unit after another, so the next test may come after a flush.
# The world is then made again, once, before the next test that relies on it.
WORLD = {"ready": False, "flushed": False}
TRANSACTIONAL_FIXTURES = {"transactional_db", "live_server", "django_db_reset_sequences"}


def _transactional(item) -> bool:
    marker = item.get_closest_marker("django_db")
    if marker and (marker.kwargs.get("transaction") or (marker.args and marker.args[0])):
        return True
    return bool(TRANSACTIONAL_FIXTURES & set(getattr(item, "fixturenames", ())))


def world_restore_after_flush(item) -> None:
    if WORLD["flushed"] and WORLD["ready"] and not _transactional(item):
        with item.config.stash[blocking_manager_key].unblock():
            world_restore()
        WORLD["flushed"] = False


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    if _transactional(item):
        WORLD["flushed"] = True


# The data migrations whose rows tests rely on: the django-q schedules.
SCHEDULE_MIGRATIONS = (
    "briefs.migrations.0003_schedule_briefs_recover",
    "fetching.migrations.0002_rsshub_egress",
    "housekeeping.migrations.0002_schedule_housekeep",
    "watches.migrations.0002_schedule_dispatch",
    "watches.migrations.0005_watch_digest",
)


def world_restore() -> None:
    """The catalog snapshot and the migrations' schedules, as ``django_db_setup`` left them."""
    from django.apps import apps
    from django.db.migrations import RunPython

    catalog_seed_import()
    for name in SCHEDULE_MIGRATIONS:
        for operation in importlib.import_module(name).Migration.operations:
            if isinstance(operation, RunPython):
                operation.code(apps, None)


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("alice", password="alice-pass-1234")


@pytest.fixture
def other_user(db):
    return get_user_model().objects.create_user("mallory", password="mallory-pass-1234")


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user(
        "sam", password="sam-pass-1234", is_staff=True, is_superuser=True
    )


def signed_in(user) -> Client:
    """A test client of its own with ``user`` signed in (two users' clients never share a
    session, unlike two fixtures that both sign in pytest-django's ``client``)."""
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def owner_client(owner):
    return signed_in(owner)


@pytest.fixture
def other_client(other_user):
    return signed_in(other_user)


@pytest.fixture
def staff_client(staff):
    return signed_in(staff)


@pytest.fixture(scope="session")
def rsshub():
    """A real RSSHub for the session (``scripts/rsshub-install``; CI installs it, so a missing
    install is a failure). Offline, its ``/test/...`` routes answer and real routes 503."""
    from tests.rsshub_server import INSTALL_SCRIPT, LocalRSSHub, rsshub_installed

    if not rsshub_installed():
        pytest.fail(f"RSSHub is not installed: run {INSTALL_SCRIPT} (CI does)", pytrace=False)
    server = LocalRSSHub()
    server.start()
    yield server
    server.stop()
