"""Integration: the client, the ingest and route health against a real RSSHub on 127.0.0.1.

No internet here: ``/test/...`` routes work, real routes fail to reach their site (503
``fetch failed``), browser routes fail to start one (503). These are RSSHub's real answers.
"""

import uuid

import pytest

from catalog.models import CircuitChange, CircuitState, Route
from fetching.models import FetchAttempt, Item, Outcome
from fetching.services import fetch_path_sync, fetch_paths_sync, route_probe
from tests.rsshub_server import LocalRSSHub

pytestmark = [pytest.mark.rsshub, pytest.mark.django_db]

TEST_ROUTE = "/test/:id/:params?"


def test_it_fetches_and_stores_five_items(rsshub_settings):
    result = fetch_path_sync("/test/1")
    assert (result.outcome, result.http_status, result.items_new) == (Outcome.OK, 200, 5)
    assert Item.objects.filter(feed_id=result.feed_id).count() == 5
    assert sorted(result.item_ids) == sorted(
        Item.objects.filter(feed_id=result.feed_id).values_list("id", flat=True)
    )


def test_it_answers_304_for_an_unchanged_feed(rsshub_settings):
    first = fetch_path_sync("/test/etag-check")
    second = fetch_path_sync("/test/etag-check", refresh=True)
    assert first.outcome == Outcome.OK
    assert (second.outcome, second.http_status, second.items_new) == (Outcome.NOT_MODIFIED, 304, 0)
    assert len(second.item_ids) == 5  # the feed's stored items, for the summary


def test_it_credits_the_route_rsshub_ran(rsshub_settings):
    result = fetch_path_sync("/test/health-credit")
    route = Route.objects.get(path=TEST_ROUTE)
    assert result.route_id == route.id
    assert (route.attempts, route.successes, route.consecutive_failures) == (1, 1, 0)
    assert route.latency_ms is not None and route.last_success_at is not None
    assert route.newest_item_at is not None


def test_it_waits_for_the_slow_route(rsshub_settings):
    result = fetch_path_sync(f"/test/slow/{uuid.uuid4().hex}")  # RSSHub caches per path
    assert result.outcome == Outcome.OK, result.message  # a 1 s answer is well within 20 s
    assert result.latency_ms is not None


def test_it_times_out_a_route_slower_than_the_deadline(rsshub_settings, settings):
    settings.RSSHUB_TIMEOUT = 1.5
    result = fetch_path_sync(f"/test/slow4/{uuid.uuid4().hex}")
    assert (result.outcome, result.transient) == (Outcome.TIMEOUT, True)
    assert result.message == "no complete answer within 1.5 s"


@pytest.mark.parametrize("path", ["/test/empty", "/test/allow_empty"])
def test_it_calls_a_feed_without_items_empty(rsshub_settings, path):
    result = fetch_path_sync(path)
    assert result.outcome == Outcome.EMPTY and not result.transient
    assert result.items_new == 0


def test_it_classifies_a_route_error_as_upstream_error(rsshub_settings):
    result = fetch_path_sync("/test/error")
    assert (result.outcome, result.http_status, result.transient) == (
        Outcome.UPSTREAM_ERROR, 503, True,
    )  # fmt: skip
    assert "Error test" in result.message


def test_it_reads_config_not_found_from_the_error_page(rsshub_settings):
    result = fetch_path_sync("/test/config-not-found-error")
    assert (result.outcome, result.transient) == (Outcome.NEEDS_CONFIG, False)


def test_it_reads_a_captcha_as_auth_required(rsshub_settings):
    assert fetch_path_sync("/test/captcha-error").outcome == Outcome.AUTH_REQUIRED


def test_it_follows_rsshubs_own_redirect(rsshub_settings):
    result = fetch_path_sync("/test/redirect")
    assert (result.outcome, result.items_new + result.items_seen) == (Outcome.OK, 5)


@pytest.mark.parametrize("path", ["/test/long", "/test/complicated"])
def test_it_ingests_odd_content(rsshub_settings, path):
    result = fetch_path_sync(path)
    assert result.outcome == Outcome.OK, result.message
    assert result.items_new >= 1


def test_it_calls_an_unknown_route_not_found(rsshub_settings):
    result = fetch_path_sync("/test/a/b/c/d")
    assert (result.outcome, result.http_status, result.transient) == (
        Outcome.NOT_FOUND, 404, False,
    )  # fmt: skip
    assert result.route_id is None


def test_this_rsshub_without_internet_is_an_egress_outage_no_routes_fault(rsshub_settings):
    # The default canaries (RSSHUB_EGRESS_CANARIES) fail the same way: RSSHub lost the internet.
    result = fetch_path_sync("/36kr/newsflashes")
    assert (result.outcome, result.reason) == (Outcome.RSSHUB_UNAVAILABLE, "egress")
    assert "ENOTFOUND" in result.message
    route = Route.objects.get(path="/36kr/:category/:subCategory?/:keyword?")
    assert (route.attempts, route.consecutive_failures, route.circuit) == (0, 0, "closed")


def test_it_calls_a_site_out_of_reach_upstream_error(rsshub_settings, settings):
    settings.RSSHUB_EGRESS_CANARIES = []  # nothing to tell an outage from a site that is gone
    result = fetch_path_sync("/36kr/newsflashes")
    assert (result.outcome, result.transient) == (Outcome.UPSTREAM_ERROR, True)
    assert "ENOTFOUND" in result.message or "fetch failed" in result.message
    route = Route.objects.get(id=result.route_id)
    assert route.path == "/36kr/:category/:subCategory?/:keyword?"
    assert (route.consecutive_failures, route.last_error_class) == (1, "upstream_error")


def test_it_calls_a_browser_route_needs_browser(rsshub_settings):
    result = fetch_path_sync("/bilibili/hot-search")
    assert (result.outcome, result.transient) == (Outcome.NEEDS_BROWSER, False)


def test_it_refuses_utility_routes_without_a_request(rsshub_settings):
    result = fetch_path_sync("/rsshub/transform/html/https%3A%2F%2Fexample.com/item=a")
    assert (result.outcome, result.http_status) == (Outcome.REJECTED, None)
    assert "utility_route" in result.message


def test_it_opens_the_circuit_after_three_failures(rsshub_settings):
    route = Route.objects.get(path=TEST_ROUTE)
    results = [fetch_path_sync("/test/error") for _ in range(4)]
    assert [r.circuit_open for r in results] == [False, False, False, True]
    assert results[3].outcome == Outcome.UPSTREAM_ERROR and results[3].retry_after > 0
    route.refresh_from_db()
    assert route.circuit == CircuitState.OPEN
    assert FetchAttempt.objects.filter(route=route).count() == 3  # the 4th was not sent
    change = CircuitChange.objects.get(route=route)
    assert (change.from_state, change.to_state) == (CircuitState.CLOSED, CircuitState.OPEN)


def test_a_staff_probe_closes_an_open_circuit(rsshub_settings):
    route = Route.objects.get(path=TEST_ROUTE)
    for _ in range(3):  # one at a time: the same path in one batch is fetched once
        fetch_path_sync("/test/error")
    route.refresh_from_db()
    assert route.circuit == CircuitState.OPEN
    result = route_probe(route)  # its example is /test/1
    assert result.outcome == Outcome.OK
    route.refresh_from_db()
    assert (route.circuit, route.consecutive_failures) == (CircuitState.CLOSED, 0)


def test_a_batch_of_slow_routes_gets_every_answer(rsshub_settings):
    """That the batch runs side by side is a test against the stand-in (test_client.py); how
    long it takes is measured in bench/fetch.py."""
    # Distinct paths: RSSHub caches answers per path and refuses a path already in progress.
    results = fetch_paths_sync([f"/test/slow/batch-{uuid.uuid4().hex}" for _ in range(4)])
    assert [r.outcome for r in results] == [Outcome.OK] * 4, [r.message for r in results]


def test_the_access_key_is_sent_and_never_shown(settings, rsshub):
    secret = "k3y-s3cr3t-value"
    with LocalRSSHub(access_key=secret) as guarded:
        settings.RSSHUB_URL = guarded.url
        settings.RSSHUB_ACCESS_KEY = secret
        ok = fetch_path_sync("/test/1")
        settings.RSSHUB_ACCESS_KEY = "wrong-key"
        refused = fetch_path_sync("/test/1", refresh=True)
    assert ok.outcome == Outcome.OK
    assert (refused.outcome, refused.http_status) == (Outcome.AUTH_REQUIRED, 403)
    # A wrong key is RSSHub refusing us, not the route failing.
    assert Route.objects.get(path=TEST_ROUTE).consecutive_failures == 0
    for attempt in FetchAttempt.objects.all():
        assert secret not in attempt.message and secret not in attempt.path
        assert "wrong-key" not in attempt.message
