"""A worker builds the catalog's search index, starts a feed parser and asks whether RSSHub
reaches the internet as django-q starts it, not at its first question."""

import logging

import pytest
from django_q.signals import post_spawn

from briefs import worker_start
from catalog.models import Platform, Route
from catalog.search_index import search_index_current, search_index_invalidate
from fetching.egress import egress_outage
from fetching.parsing import feed_parser_pids
from tests.httpserver import ScriptedServer
from tests.rsshub_replies import CANARIES, dns_failure

pytestmark = pytest.mark.django_db


@pytest.fixture
def rsshub_stand_in(settings):
    """A stand-in RSSHub without internet: every route answers RSSHub's DNS failure."""
    with ScriptedServer(default=dns_failure()) as server:
        settings.RSSHUB_URL = server.url
        settings.RSSHUB_URLS = []
        settings.RSSHUB_TIMEOUT = 2.0
        yield server


@pytest.fixture
def catalog(settings, rsshub_stand_in):
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 3600  # a built index is then used as it is
    platform = Platform.objects.create(namespace="alpha", name="Alpha Wire")
    Route.objects.create(platform=platform, key="/flash", path="/alpha/flash", name="Flash")
    search_index_invalidate()
    yield
    search_index_invalidate()


def test_a_starting_worker_builds_the_search_index(catalog, django_assert_num_queries):
    post_spawn.send(sender="django_q", proc_name="Process-test")

    with django_assert_num_queries(0):
        index = search_index_current()
    assert "alpha" in index.platform_by_namespace
    assert "/alpha/flash" in index.route_by_path
    assert feed_parser_pids(), "a feed parser waits for the first fetch"


def test_a_failed_build_at_start_is_logged_not_raised(catalog, monkeypatch, caplog):
    def broken():
        raise RuntimeError("the catalog is unreadable")

    monkeypatch.setattr(worker_start, "search_index_current", broken)
    with caplog.at_level(logging.WARNING, logger="briefs.worker_start"):
        post_spawn.send(sender="django_q", proc_name="Process-test")

    assert "the search index at worker start failed" in caplog.text
    assert feed_parser_pids(), "the rest is still done"


def test_a_starting_worker_knows_rsshub_has_no_internet_before_any_question(
    catalog, rsshub_stand_in
):
    assert egress_outage() is None
    post_spawn.send(sender="django_q", proc_name="Process-1")
    post_spawn.send(sender="django_q", proc_name="Process-2")  # the cluster's next worker

    assert egress_outage() is not None, "the banner would not say it before the first question"
    # The second worker found this minute's check done: the canaries were asked once.
    assert sorted(request.path for request in rsshub_stand_in.requests) == sorted(CANARIES)
