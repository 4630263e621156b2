"""Briefs while RSSHub cannot reach the internet, against a stand-in RSSHub on 127.0.0.1 whose
every route answers RSSHub's DNS failure (``getaddrinfo ENOTFOUND``) and whose ``/healthz``
still says it is fine, as a real one does.

No route is to blame: health and circuits stay as they were, the router stops at once instead of
spending its budget, the brief says the network is down, and the dashboard says since when until
the recovery check finds the internet back.
"""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from briefs.models import BriefStatus
from catalog.models import CircuitChange, Platform, Route
from catalog.search_index import search_index_invalidate
from fetching.egress import egress_recover
from fetching.paths import catalog_cache_clear
from tests.agent.conftest import brief_run, decisions, feed, fetched, steps_of
from tests.httpserver import Reply
from tests.rsshub_replies import CANARIES, dns_failure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world", "offline")]

# Three different platforms, each the only one its question chooses (offline).
QUESTIONS = {
    "Alpha Wire flash news": "/alpha/flash",
    "Beta Daily": "/beta/latest",
    "Gamma Forum threads": "/gamma/threads",
}
UNREACHABLE = "RSSHub cannot reach the internet, so no source was fetched"
HEALTH = ("attempts", "consecutive_failures", "last_error_class", "circuit", "circuit_open_until")


@pytest.fixture
def gamma(world):
    platform = Platform.objects.create(namespace="gamma", name="Gamma Forum", aliases=["伽马论坛"])
    Route.objects.create(
        platform=platform, key="/threads", path="/gamma/threads", name="Threads",
        example="/gamma/threads",
    )  # fmt: skip
    search_index_invalidate()
    catalog_cache_clear()


@pytest.fixture
def offline_rsshub(stub_rsshub):
    stub_rsshub.route_default(dns_failure())
    stub_rsshub.route("/healthz", Reply(200, {"Content-Type": "text/plain"}, b"ok"))
    return stub_rsshub


def health() -> list[tuple]:
    return list(Route.objects.order_by("path").values_list("path", *HEALTH))


@pytest.mark.usefixtures("gamma")
def test_briefs_while_rsshub_cannot_reach_the_internet_blame_no_route(run_owner, offline_rsshub):
    before = health()

    briefs = [brief_run(run_owner, question) for question in QUESTIONS]

    assert health() == before, "an egress outage counted against routes"
    assert not CircuitChange.objects.exists()
    for brief, path in zip(briefs, QUESTIONS.values(), strict=True):
        assert brief.status == BriefStatus.SUCCEEDED, brief.error
        assert decisions(brief) == ["summarize"], "the router spent its budget on retries"
        [result] = steps_of(brief, "fetch_result")
        assert (result["path"], result["outcome"]) == (path, "rsshub_unavailable")
        assert UNREACHABLE in brief.body.splitlines()[0]
        assert "did not answer" not in brief.body, "its rows tell the same story"
        assert "could not fetch anything" not in brief.body
        assert (brief.outcome, brief.outcome_reason) == ("no_data", "unreachable")
        assert brief.citations == []
    # One check (the first brief's canaries, asked at once); the row answered for the others.
    asked = fetched(offline_rsshub)
    assert asked[0] == QUESTIONS["Alpha Wire flash news"]
    assert sorted(asked[1:4]) == sorted(CANARIES), "the canaries were not asked once each"
    assert asked[4:] == ["/beta/latest", "/gamma/threads"]


def test_the_banner_says_since_when_and_clears_when_rsshub_is_back(run_owner, offline_rsshub):
    browser = Client()
    browser.force_login(run_owner)
    assert "cannot reach the internet" not in browser.get("/").content.decode()

    brief_run(run_owner, "Alpha Wire flash news")
    page = browser.get("/").content.decode()
    assert "RSSHub cannot reach the internet since" in page
    assert 'id="rsshub-banner"' in page and "RSSHub answers." not in page

    offline_rsshub.route_default(feed("Back online"))
    assert egress_recover(now=timezone.now() + timedelta(minutes=1)) == 1
    page = browser.get("/").content.decode()
    assert "cannot reach the internet" not in page
    assert "RSSHub answers." in page
