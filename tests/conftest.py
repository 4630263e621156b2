"""Shared fixtures: one world of users, and the real catalog snapshot loaded once per session.

The snapshot import runs inside ``django_db_setup``, so every test sees the 3,905 real routes and
each test's transaction rolls back its own changes. Tests that need an empty catalog delete it
inside their transaction; transactional tests (``transaction=True``) that need it call
``catalog_seed_import()`` themselves, since Django flushes tables after them.
"""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from catalog.importer import catalog_import, catalog_read_file
from catalog.seed import SEED_PATH
from fetching.paths import catalog_cache_clear
from tests.databases import POSTGRES_ENGINE

NEEDS_POSTGRES = ("postgres", "browser")  # markers of tests that need a PostgreSQL server

# --- skips: a missing part fails the run; only a platform fact (no /proc, no fork) may skip ------


def pytest_addoption(parser):
    parser.addoption(
        "--no-skips",
        action="store_true",
        help="fail the run when any test is skipped (scripts/test: this machine has every part)",
    )


def pytest_runtest_setup(item):
    """A test that needs PostgreSQL fails on another database rather than skipping (the SQLite
    pass of scripts/test deselects these markers instead)."""
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
def search_index_always_current(settings):
    """Each test sees the catalog as it left it: an index built from an earlier test's
    rolled-back changes must not answer for up to the recheck interval."""
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 0


@pytest.fixture(autouse=True)
def django_cache_empty():
    """Each test starts with an empty cache: a remembered RSSHub status or throttle count from an
    earlier test must not decide what this one sees."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        catalog_seed_import()


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
