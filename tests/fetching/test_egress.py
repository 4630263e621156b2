"""The egress guard against a stand-in RSSHub on 127.0.0.1 whose sources give no answer.

When every route answers RSSHub's DNS failure, the instance has lost the internet: no route is
to blame, so health and circuits stay as they were. When one namespace fails that way while the
others work, that namespace's routes are counted as before and their circuit opens.
"""

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from catalog.models import CircuitChange, CircuitState, Platform, Route
from fetching.egress import (
    EGRESS_REASON,
    canary_paths,
    egress_check_claim,
    egress_outage,
    egress_recover,
    egress_startup_check,
)
from fetching.models import FetchAttempt, Outcome, RSSHubEgress
from fetching.paths import catalog_cache_clear
from fetching.services import fetch_path_sync, fetch_paths_sync
from tests.feeds import feed_reply
from tests.rsshub_replies import (
    CANARIES,
    CANARY,
    dns_failure,
    rsshub_error_page,
    source_refused,
)

# Namespaces of our own (none of them is in the real catalog), one route each.
NAMESPACES = ("xalpha", "xbeta", "xgamma")
PATHS = [f"/{ns}/news" for ns in NAMESPACES]
HEALTH_FIELDS = (
    "attempts", "successes", "consecutive_failures", "last_error_class", "circuit",
    "circuit_open_until",
)  # fmt: skip


def routes_make() -> dict[str, Route]:
    routes = {}
    for namespace in NAMESPACES:
        platform = Platform.objects.create(namespace=namespace, name=namespace.title())
        routes[namespace] = Route.objects.create(
            platform=platform, key="/news", path=f"/{namespace}/news", name="News"
        )
    catalog_cache_clear()
    return routes


def health_of(routes) -> dict[str, tuple]:
    return {
        ns: tuple(Route.objects.filter(pk=r.pk).values_list(*HEALTH_FIELDS).get())
        for ns, r in routes.items()
    }


@pytest.fixture
def routes(db):
    return routes_make()


@pytest.fixture
def offline_rsshub(rsshub_at_server):
    """A stand-in RSSHub with no way out: every route answers the DNS failure."""
    rsshub_at_server.route_default(dns_failure())
    return rsshub_at_server


def test_every_route_failing_dns_leaves_health_and_circuits_alone(offline_rsshub, routes):
    before = health_of(routes)
    results = fetch_paths_sync(PATHS)
    for _ in range(3):  # a run's retries, and the next runs: still no route is to blame
        results += fetch_paths_sync(PATHS)
    assert {(r.outcome, r.reason) for r in results} == {(Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON)}
    assert "RSSHub cannot reach the internet" in results[0].message
    assert health_of(routes) == before, "an egress outage counted against routes"
    assert not CircuitChange.objects.exists()
    assert len(offline_rsshub.requests_to(CANARY)) == 1, "one check, then the row answers"
    outage = egress_outage()
    assert outage is not None and outage.down_since <= timezone.now()
    assert set(FetchAttempt.objects.values_list("outcome", flat=True)) == {"rsshub_unavailable"}


def test_the_recovery_check_clears_the_outage_once_rsshub_reaches_the_internet(
    offline_rsshub, routes
):
    fetch_paths_sync(PATHS)
    before = health_of(routes)
    later = timezone.now() + timedelta(minutes=1)
    assert egress_recover(now=later) == 0, "the canary still fails: still down"
    assert egress_outage() is not None
    offline_rsshub.route(CANARY, feed_reply(3))
    assert egress_recover(now=later + timedelta(minutes=1)) == 1
    assert egress_outage() is None
    assert health_of(routes) == before, "recovery touched route health"
    assert len(offline_rsshub.requests_to(CANARY)) == 3


def test_the_recovery_check_runs_at_most_once_a_minute(offline_rsshub, routes):
    fetch_paths_sync(PATHS)
    offline_rsshub.route(CANARY, feed_reply(3))
    assert egress_recover() == 0, "the check that found the outage was this minute's"
    assert len(offline_rsshub.requests_to(CANARY)) == 1


def test_one_namespace_failing_while_others_work_opens_its_circuit(rsshub_at_server, routes):
    rsshub_at_server.route("/xbeta/news", feed_reply(3))
    rsshub_at_server.route("/xalpha/news", dns_failure("xalpha.example"))
    assert fetch_path_sync("/xbeta/news").outcome == Outcome.OK
    results = [fetch_path_sync("/xalpha/news") for _ in range(3)]
    assert [r.outcome for r in results] == [Outcome.UPSTREAM_ERROR] * 3
    assert {r.reason for r in results} == {""}
    route = Route.objects.get(pk=routes["xalpha"].pk)
    assert (route.consecutive_failures, route.circuit) == (3, CircuitState.OPEN)
    assert CircuitChange.objects.filter(route=route, to_state=CircuitState.OPEN).count() == 1
    # The other namespace's recent success answered the one check made for the three failures.
    assert len(rsshub_at_server.requests_to("/xbeta/news")) == 2
    assert len(rsshub_at_server.requests_to(CANARY)) <= 1
    assert egress_outage() is None


def test_a_refused_connection_is_checked_like_a_dns_failure(rsshub_at_server, routes):
    rsshub_at_server.route_default(source_refused())
    result = fetch_path_sync("/xgamma/news")
    assert (result.outcome, result.reason) == (Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON)
    assert Route.objects.get(pk=routes["xgamma"].pk).attempts == 0


def test_a_canary_that_says_nothing_leaves_the_failure_counted(rsshub_at_server, routes):
    # No recent success elsewhere, and the configured canary is not a route this RSSHub has.
    rsshub_at_server.route("/xalpha/news", dns_failure("xalpha.example"))
    result = fetch_path_sync("/xalpha/news")
    assert (result.outcome, result.reason) == (Outcome.UPSTREAM_ERROR, "")
    assert Route.objects.get(pk=routes["xalpha"].pk).consecutive_failures == 1
    assert egress_outage() is None
    row = RSSHubEgress.objects.get()
    assert row.last_check_ok is None and "not_found" in row.last_check_message


def test_without_any_canary_the_failure_counts_as_before(offline_rsshub, routes, settings):
    settings.RSSHUB_EGRESS_CANARIES = []
    result = fetch_path_sync("/xalpha/news")
    assert result.outcome == Outcome.UPSTREAM_ERROR
    assert Route.objects.get(pk=routes["xalpha"].pk).consecutive_failures == 1
    assert offline_rsshub.requests == [offline_rsshub.requests[0]], "nothing else was asked"


def test_the_canaries_skip_the_failing_path_only_and_never_a_test_route(
    rsshub_at_server, routes, settings
):
    rsshub_at_server.route("/xbeta/news", feed_reply(2))
    rsshub_at_server.route("/test/1", feed_reply(2))
    fetch_paths_sync(["/xbeta/news", "/test/1"])
    now = timezone.now()
    assert canary_paths(failing="/xalpha/news", now=now) == ["/xbeta/news", *CANARIES]
    # Its own namespace's recent success and canary are asked: only the path itself is not.
    assert canary_paths(failing="/xbeta/news", now=now) == list(CANARIES), (
        "test routes prove nothing"
    )
    assert canary_paths(failing="/xbeta/other", now=now) == ["/xbeta/news", *CANARIES]
    assert canary_paths(failing=CANARY, now=now) == ["/xbeta/news", *CANARIES[1:]]
    assert canary_paths(now=now + timedelta(days=2)) == list(CANARIES), "too old"
    settings.RSSHUB_EGRESS_CANARIES = []
    assert canary_paths(failing="/xbeta/news", now=now) == []


@pytest.mark.django_db(transaction=True)
def test_two_workers_that_claim_at_once_get_one_check(settings):
    RSSHubEgress.objects.create(base_url=settings.RSSHUB_URL)
    now, start, won = timezone.now(), threading.Barrier(8), []

    def worker():
        start.wait(timeout=10)
        won.append(egress_check_claim(settings.RSSHUB_URL, now=now))
        connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert sorted(won) == [False] * 7 + [True]


@pytest.mark.django_db(transaction=True)
def test_two_workers_that_see_the_outage_at_once_run_one_canary(rsshub_at_server):
    routes = routes_make()
    both_asked = threading.Barrier(2)  # both fetches reach RSSHub before either is answered
    first_back = threading.Event()

    def route_handler(request):
        both_asked.wait(timeout=10)
        return dns_failure()

    def canary_handler(request):
        # A second canary (the bug) would wait here too, and nobody would come back: the count
        # below then says two. With the claim, the other worker comes back without a check.
        first_back.wait(timeout=10)
        return dns_failure("api.github.com")

    rsshub_at_server.route("/xalpha/news", route_handler)
    rsshub_at_server.route("/xbeta/news", route_handler)
    rsshub_at_server.route(CANARY, canary_handler)
    results = {}

    def worker(path):
        try:
            results[path] = fetch_path_sync(path)
        finally:
            first_back.set()
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(p,)) for p in ("/xalpha/news", "/xbeta/news")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(rsshub_at_server.requests_to(CANARY)) == 1
    outcomes = sorted((r.outcome, r.reason) for r in results.values())
    assert outcomes == [
        (Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON),  # the worker that ran the check
        (Outcome.UPSTREAM_ERROR, ""),  # the other: a suspect, not counted, retried by the router
    ]
    assert all(Route.objects.get(pk=r.pk).attempts == 0 for r in routes.values())
    assert egress_outage() is not None


def test_the_recovery_check_is_scheduled_every_minute(db):
    from django.utils.module_loading import import_string
    from django_q.models import Schedule

    schedule = Schedule.objects.get(name="egress-recovery-check")
    assert (schedule.schedule_type, schedule.minutes, schedule.repeats) == ("I", 1, -1)
    assert import_string(schedule.func)() == 0, "nothing is down: nothing recovers"


# --- The canaries: only the failing path is left out; "nothing to ask" is no answer ------------


def test_a_failure_in_the_canarys_own_namespace_is_checked_with_that_canary(
    offline_rsshub, routes, settings
):
    settings.RSSHUB_EGRESS_CANARIES = ["/xalpha/canary"]  # the failing path's namespace
    result = fetch_path_sync("/xalpha/news")
    assert (result.outcome, result.reason) == (Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON)
    assert len(offline_rsshub.requests_to("/xalpha/canary")) == 1
    assert Route.objects.get(pk=routes["xalpha"].pk).attempts == 0


def test_the_failing_path_is_never_its_own_canary(offline_rsshub, routes, settings):
    settings.RSSHUB_EGRESS_CANARIES = ["/xalpha/news", "/xbeta/news"]
    result = fetch_path_sync("/xalpha/news")
    assert (result.outcome, result.reason) == (Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON)
    assert len(offline_rsshub.requests_to("/xalpha/news")) == 1, "asked again as a canary"
    assert len(offline_rsshub.requests_to("/xbeta/news")) == 1


def test_a_check_with_nothing_to_ask_is_not_remembered(rsshub_at_server, routes, settings):
    settings.RSSHUB_EGRESS_CANARIES = []
    rsshub_at_server.route("/xalpha/news", dns_failure("xalpha.example"))
    first = fetch_path_sync("/xalpha/news")
    assert (first.outcome, first.reason) == (Outcome.UPSTREAM_ERROR, ""), "nothing could tell"
    assert RSSHubEgress.objects.get().check_claimed_at is None, "the empty check kept its claim"
    rsshub_at_server.route("/xbeta/news", feed_reply(2))
    assert fetch_path_sync("/xbeta/news").outcome == Outcome.OK  # now a canary to ask
    rsshub_at_server.route_default(dns_failure())  # then the internet goes, the same minute
    rsshub_at_server.route("/xbeta/news", dns_failure("xbeta.example"))
    result = fetch_path_sync("/xgamma/news")
    assert (result.outcome, result.reason) == (Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON)
    assert len(rsshub_at_server.requests_to("/xbeta/news")) == 2, "the canary was not asked"
    assert Route.objects.get(pk=routes["xgamma"].pk).attempts == 0


def test_sites_that_fail_one_by_one_while_others_work_are_still_blamed(rsshub_at_server, db):
    """The real catalog's routes; the default canaries' sites go one by one (GitHub, then
    sspai), Hacker News stays: the routes of the sites that went are counted, circuits open."""
    github, hackernews, sspai = CANARIES
    rsshub_at_server.route(hackernews, feed_reply(3))
    rsshub_at_server.route(sspai, feed_reply(3))
    for path in (github, "/github/activity/torvalds"):
        rsshub_at_server.route(path, dns_failure("github.com"))
    github_results = [fetch_path_sync("/github/activity/torvalds") for _ in range(3)]
    rsshub_at_server.route(sspai, dns_failure("sspai.com"))
    rsshub_at_server.route("/sspai/matrix", dns_failure("sspai.com"))
    sspai_results = [fetch_path_sync("/sspai/matrix") for _ in range(3)]

    for result in github_results + sspai_results:
        assert (result.outcome, result.reason) == (Outcome.UPSTREAM_ERROR, ""), result.message
    for template in ("/github/activity/:user", "/sspai/matrix"):
        route = Route.objects.get(path=template)
        assert (route.consecutive_failures, route.circuit) == (3, CircuitState.OPEN), template
    assert CircuitChange.objects.filter(to_state=CircuitState.OPEN).count() == 2
    assert egress_outage() is None
    assert len(rsshub_at_server.requests_to(hackernews)) >= 1, "the canary that answered"


def test_while_the_egress_is_down_a_sources_other_transient_failures_are_not_counted(
    offline_rsshub, routes
):
    fetch_path_sync("/xalpha/news")  # the check: down
    offline_rsshub.route("/xbeta/news", rsshub_error_page("TypeError: items is not iterable"))
    offline_rsshub.route("/xgamma/news", rsshub_error_page("ConfigNotFoundError: no cookie"))
    broken, unconfigured = fetch_paths_sync(["/xbeta/news", "/xgamma/news"])
    assert (broken.outcome, broken.reason) == (Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON)
    assert Route.objects.get(pk=routes["xbeta"].pk).attempts == 0
    # A route that needs configuration needs it with or without the internet: counted.
    assert unconfigured.outcome == Outcome.NEEDS_CONFIG
    assert Route.objects.get(pk=routes["xgamma"].pk).consecutive_failures == 1


# --- At start ------------------------------------------------------------------------------------


def test_the_startup_check_marks_the_outage_before_anyone_asks(offline_rsshub, routes, settings):
    assert egress_startup_check() == {settings.RSSHUB_URL: False}
    assert egress_outage() is not None
    assert [len(offline_rsshub.requests_to(path)) for path in CANARIES] == [1, 1, 1]
    assert egress_startup_check() == {settings.RSSHUB_URL: None}, "asked twice in a minute"
    assert len(offline_rsshub.requests) == 3
    result = fetch_path_sync("/xalpha/news")  # the first question: the row answers
    assert (result.outcome, result.reason) == (Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON)
    assert len(offline_rsshub.requests) == 4


def test_the_startup_check_finds_the_internet_with_one_canary_answering(rsshub_at_server, routes):
    rsshub_at_server.route_default(dns_failure())
    rsshub_at_server.route(CANARIES[2], feed_reply(2))
    assert egress_startup_check() == {rsshub_at_server.url: True}
    assert egress_outage() is None
