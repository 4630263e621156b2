"""Fetch once, serve many (``fetching.flight``) against a stand-in RSSHub on 127.0.0.1.

Time is controlled by moving the stored end of a fetch back, never by sleeping; the runs that
wait for another run's fetch are real threads with their own event loops and connections.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from datetime import timedelta

import pytest
import redis
from asgiref.sync import sync_to_async
from django.db import connections
from django.urls import reverse
from django.utils import timezone

import fetching.flight
from catalog.models import Platform, Route
from fetching.egress import EGRESS_REASON
from fetching.flight import FEED_TTL_CAP, RedisClaims, feed_ttl_seconds, freshness_window
from fetching.models import FetchAttempt, Outcome, PathFetch
from fetching.services import fetch_path_sync, fetch_paths, fetch_paths_sync
from tests.feeds import RSS_TYPE, feed_reply, rss
from tests.httpserver import Reply
from tests.redis_dbs import redis_test_url
from tests.rsshub_replies import CANARY, dns_failure, rsshub_error_page

REDIS_TEST_URL = redis_test_url("flight")


@pytest.fixture
def test_route(db) -> Route:
    """RSSHub's own test route, from the catalog snapshot every test starts with."""
    return Route.objects.get(path="/test/:id/:params?")


def window_of(path: str) -> float:
    """The path's window as its last fetch left it (the stand-in's feeds say <ttl>5</ttl>, as
    RSSHub's do: five minutes)."""
    ttl = PathFetch.objects.values_list("ttl_seconds", flat=True).get(path=path)
    return freshness_window(route_seconds=None, ttl_seconds=ttl)


def fetched_ago(path: str, seconds: float) -> None:
    """Move the path's last fetch back in time, as if it ended ``seconds`` ago."""
    PathFetch.objects.filter(path=path).update(
        answered_at=timezone.now() - timedelta(seconds=seconds)
    )


# --- the window ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_second_fetch_within_the_window_makes_no_request(rsshub_at_server, test_route):
    rsshub_at_server.route("/test/a", feed_reply(5))
    first = fetch_path_sync("/test/a")
    fetched_ago("/test/a", 40)
    second = fetch_path_sync("/test/a")
    assert len(rsshub_at_server.requests_to("/test/a")) == 1
    assert (first.fetch_age_s, first.outcome) == (None, Outcome.OK)
    assert (second.outcome, second.feed_id, second.route_id) == (
        Outcome.OK, first.feed_id, first.route_id,
    )  # fmt: skip
    assert 40 <= second.fetch_age_s <= 42
    assert sorted(second.item_ids) == sorted(first.item_ids)
    assert second.attempt_id is None and FetchAttempt.objects.count() == 1, "nothing was sent"


@pytest.mark.django_db
def test_a_window_of_zero_asks_rsshub_every_time_whatever_the_feed_says(
    rsshub_at_server, test_route, settings
):
    settings.FETCH_FRESH_SECONDS = 0
    rsshub_at_server.route("/test/a", feed_reply(5))  # the feed says <ttl>5</ttl>
    fetch_path_sync("/test/a")
    second = fetch_path_sync("/test/a")
    assert window_of("/test/a") == 0
    assert len(rsshub_at_server.requests_to("/test/a")) == 2
    assert second.fetch_age_s is None


@pytest.mark.django_db
def test_a_fetch_after_the_window_makes_a_request(rsshub_at_server, test_route):
    rsshub_at_server.route("/test/a", feed_reply(5))
    fetch_path_sync("/test/a")
    assert window_of("/test/a") == 300
    fetched_ago("/test/a", window_of("/test/a") + 1)
    again = fetch_path_sync("/test/a")
    assert len(rsshub_at_server.requests_to("/test/a")) == 2
    assert (again.outcome, again.fetch_age_s, again.items_seen) == (Outcome.OK, None, 5)


@pytest.mark.django_db
def test_a_forced_refresh_fetches(rsshub_at_server, test_route):
    rsshub_at_server.route("/test/a", feed_reply(5))
    fetch_path_sync("/test/a")
    again = fetch_path_sync("/test/a", refresh=True)
    assert len(rsshub_at_server.requests_to("/test/a")) == 2
    assert again.fetch_age_s is None and again.attempt_id is not None


@pytest.mark.django_db
def test_a_route_may_carry_a_longer_window(rsshub_at_server, test_route, settings):
    Route.objects.filter(pk=test_route.pk).update(fresh_seconds=600)
    rsshub_at_server.route("/test/a", feed_reply(5))
    fetch_path_sync("/test/a")
    fetched_ago("/test/a", 450)  # past the feed's own five minutes, within the route's ten
    assert fetch_path_sync("/test/a").fetch_age_s >= 450
    fetched_ago("/test/a", 601)
    assert fetch_path_sync("/test/a").fetch_age_s is None
    assert len(rsshub_at_server.requests_to("/test/a")) == 2


@pytest.mark.django_db
def test_the_feeds_own_ttl_lengthens_the_window(rsshub_at_server, test_route):
    body = rss(3).replace(b"<ttl>5</ttl>", b"<ttl>10</ttl>")
    rsshub_at_server.route("/test/ttl", Reply(200, RSS_TYPE, body))
    fetch_path_sync("/test/ttl")
    assert PathFetch.objects.get(path="/test/ttl").ttl_seconds == 600
    fetched_ago("/test/ttl", 450)
    assert fetch_path_sync("/test/ttl").fetch_age_s >= 450
    assert len(rsshub_at_server.requests_to("/test/ttl")) == 1
    fetched_ago("/test/ttl", 601)
    assert fetch_path_sync("/test/ttl").fetch_age_s is None


def test_a_feeds_ttl_is_read_as_minutes_and_capped():
    assert feed_ttl_seconds("5") == 300
    assert feed_ttl_seconds(" 60 ") == 3600
    assert feed_ttl_seconds("999999999999") == FEED_TTL_CAP
    assert feed_ttl_seconds("") is None
    assert feed_ttl_seconds("-5") is None
    assert feed_ttl_seconds("1e9") is None
    assert feed_ttl_seconds("\uff11\uff12") is None  # fullwidth digits: not what a feed means


# --- negative answers ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_semantic_failure_is_not_asked_again_within_the_window(rsshub_at_server, test_route):
    page = rsshub_error_page("ConfigNotFoundError: this route needs TEST_TOKEN")
    rsshub_at_server.route("/test/config", page)
    first = fetch_path_sync("/test/config")
    second = fetch_path_sync("/test/config")
    assert (first.outcome, first.transient) == (Outcome.NEEDS_CONFIG, False)
    assert (second.outcome, second.message) == (first.outcome, first.message)
    assert second.fetch_age_s is not None
    assert len(rsshub_at_server.requests_to("/test/config")) == 1


@pytest.mark.django_db
def test_a_transient_failure_is_asked_again(rsshub_at_server, test_route):
    rsshub_at_server.route("/test/flaky", Reply(502, {}, b"bad gateway"))
    first = fetch_path_sync("/test/flaky")
    second = fetch_path_sync("/test/flaky")
    assert first.transient and second.transient
    assert second.fetch_age_s is None
    assert len(rsshub_at_server.requests_to("/test/flaky")) == 2


@pytest.mark.django_db
def test_a_failure_because_rsshub_lost_the_internet_is_not_remembered(rsshub_at_server, test_route):
    rsshub_at_server.route_default(dns_failure())  # every route, the canary too
    first = fetch_path_sync("/test/offline")
    assert (first.outcome, first.reason) == (Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON)
    rsshub_at_server.route("/test/offline", feed_reply(3))  # the network is back
    second = fetch_path_sync("/test/offline")
    assert (second.outcome, second.fetch_age_s) == (Outcome.OK, None)
    assert len(rsshub_at_server.requests_to("/test/offline")) == 2
    assert len(rsshub_at_server.requests_to(CANARY)) == 1


# --- single flight -------------------------------------------------------------------------------


class WaitSpy:
    """Wraps the real ``_claim_try`` and tells when ``count`` runs have found the path held by
    another (so the test lets the fetcher answer only once they all wait for it)."""

    def __init__(self, monkeypatch, count: int) -> None:
        self.real, self.count = fetching.flight._claim_try, count
        self.waiting: set[int] = set()
        self.all_waiting = threading.Event()
        self.lock = threading.Lock()
        monkeypatch.setattr(fetching.flight, "_claim_try", self)

    def __call__(self, path, **options):
        ticket = self.real(path, **options)
        if ticket is None:
            with self.lock:
                self.waiting.add(threading.get_ident())
                if len(self.waiting) >= self.count:
                    self.all_waiting.set()
        return ticket


def in_threads(count: int, work) -> list:
    results: list = [None] * count

    def run(n: int) -> None:
        try:
            results[n] = work(n)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


@pytest.fixture(params=["database", "redis"])
def claims_in(request, settings):
    if request.param == "redis":
        settings.REDIS_URL = REDIS_TEST_URL
    else:
        settings.REDIS_URL = ""
    return request.param


@pytest.mark.django_db(transaction=True)
def test_runs_that_need_a_path_at_once_share_one_fetch(rsshub_at_server, claims_in, monkeypatch):
    Platform.objects.get_or_create(namespace="test", name="RSSHub Test")  # flushed afterwards
    path = f"/test/crowd-{uuid.uuid4().hex[:8]}"
    answering = threading.Event()

    def held(request):
        answering.wait(timeout=10)
        return feed_reply(4)

    rsshub_at_server.route(path, held)
    spy = WaitSpy(monkeypatch, count=4)
    watcher = threading.Thread(target=lambda: (spy.all_waiting.wait(10), answering.set()))
    watcher.start()
    results = in_threads(5, lambda n: fetch_path_sync(path))
    watcher.join(timeout=10)
    assert spy.all_waiting.is_set(), "the other runs never waited for the fetch"
    assert len(rsshub_at_server.requests_to(path)) == 1
    assert [r.outcome for r in results] == [Outcome.OK] * 5
    assert sorted(r.fetch_age_s is None for r in results) == [False] * 4 + [True]
    assert all(len(r.item_ids) == 4 for r in results)
    row = PathFetch.objects.get(path=path)
    assert (row.claim_token, row.claim_until) == ("", None), "the claim was not given back"


@pytest.mark.django_db
def test_a_run_that_read_the_row_before_the_answer_came_does_not_claim_it_again(claims_in):
    """The batch reads the rows, then claims: an answer recorded between the two (another run's
    fetch ended) must not leave the path free to fetch again. The run waits, then is served."""
    path = f"/test/stale-{uuid.uuid4().hex[:8]}"
    since = timezone.now()
    stale = fetching.flight._rows_ensure({path})[path]
    assert stale.answered_at is None
    PathFetch.objects.filter(path=path).update(answered_at=timezone.now(), outcome=Outcome.OK)

    ticket = fetching.flight._claim_try(path, since=since, cutoff=since, row=stale)

    assert ticket is None, "a claim was taken over an answer the run had not read"
    assert PathFetch.objects.values_list("claim_token", flat=True).get(path=path) == ""
    if claims_in == "redis":
        assert redis.Redis.from_url(REDIS_TEST_URL).get(RedisClaims.key(path)) is None


@pytest.mark.django_db(transaction=True)
def test_a_dead_fetchers_claim_expires_and_a_waiter_takes_over(
    rsshub_at_server, claims_in, settings
):
    Platform.objects.get_or_create(namespace="test", name="RSSHub Test")  # flushed afterwards
    path = f"/test/orphan-{uuid.uuid4().hex[:8]}"
    rsshub_at_server.route(path, feed_reply(2))
    # What a fetcher killed mid-fetch leaves behind: a claim nobody will give back.
    settings.FETCH_CLAIM_SECONDS = 0.5
    until = timezone.now() + timedelta(seconds=0.5)
    PathFetch.objects.create(path=path, claim_token="dead", claim_until=until)
    if claims_in == "redis":
        redis.Redis.from_url(REDIS_TEST_URL).set(RedisClaims.key(path), "dead", px=500)
    result = fetch_path_sync(path, wait_s=30)
    assert (result.outcome, result.fetch_age_s) == (Outcome.OK, None)
    assert len(rsshub_at_server.requests_to(path)) == 1


@pytest.mark.django_db
def test_a_waiter_gives_up_at_its_own_deadline(rsshub_at_server, test_route):
    rsshub_at_server.route("/test/stuck", feed_reply(2))
    until = timezone.now() + timedelta(minutes=5)
    PathFetch.objects.create(path="/test/stuck", claim_token="alive", claim_until=until)
    result = fetch_path_sync("/test/stuck", wait_s=0.2)
    assert (result.outcome, result.transient) == (Outcome.TIMEOUT, True)
    assert "another run's fetch of this path did not end" in result.message
    assert rsshub_at_server.requests_to("/test/stuck") == []


@pytest.mark.django_db
def test_the_same_path_twice_in_a_batch_is_fetched_once(rsshub_at_server, test_route):
    rsshub_at_server.route("/test/twice", feed_reply(3))
    first, second = fetch_paths_sync(["/test/twice", "/test/twice"])
    assert (first.outcome, second.outcome) == (Outcome.OK, Outcome.OK)
    assert len(rsshub_at_server.requests_to("/test/twice")) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_cancelled_fetch_gives_its_claim_back(rsshub_at_server, async_db_closed):
    await sync_to_async(Platform.objects.get_or_create)(namespace="test", name="RSSHub Test")
    asked = threading.Event()

    def held(request):
        asked.set()
        request.stopping.wait(10)
        return feed_reply(1)

    rsshub_at_server.route("/test/cancelled", held)
    task = asyncio.create_task(fetch_paths(["/test/cancelled"]))
    assert await asyncio.to_thread(asked.wait, 10), "the fetch never reached RSSHub"
    claimed = await PathFetch.objects.aget(path="/test/cancelled")
    assert claimed.claim_token and claimed.claim_until is not None
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    row = await PathFetch.objects.aget(path="/test/cancelled")
    assert (row.claim_token, row.claim_until, row.answered_at) == ("", None, None)


# --- staff ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_staff_fetch_selected_feeds_anew_from_the_admin(
    client, staff, rsshub_at_server, test_route
):
    rsshub_at_server.route("/test/a", feed_reply(5))
    first = fetch_path_sync("/test/a")
    client.force_login(staff)
    response = client.post(
        reverse("admin:fetching_feed_changelist"),
        {"action": "fetch_now", "_selected_action": [first.feed_id]},
        follow=True,
    )
    messages = [str(m) for m in response.context["messages"]]
    assert messages == ["/test/a: ok (5 items)"]
    assert len(rsshub_at_server.requests_to("/test/a")) == 2, "the window answered for staff"


@pytest.mark.django_db
def test_staff_curate_a_routes_window_in_the_admin(client, staff, test_route):
    client.force_login(staff)
    page = client.get(reverse("admin:catalog_route_change", args=[test_route.pk]))
    assert page.status_code == 200
    assert b'name="fresh_seconds"' in page.content
