"""Failover between two stand-in RSSHub instances on 127.0.0.1.

The first instance fails on its own (its port closed, a hang, its own 503 with ``/healthz``
failing, its key refused): the fetch moves to the second within the same call, the route's
health is not touched, and the first instance's circuit opens, then closes once it answers
again. A route that fails on one instance only keeps being served by the other.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.health import CircuitState
from catalog.models import Route
from fetching.models import FetchAttempt, InstanceCircuitChange, Outcome, RouteInstanceHealth
from fetching.services import fetch_path_sync
from tests.feeds import feed_reply
from tests.fetching.instance_standins import (
    KEY_REFUSED,
    OWN_ERROR,
    InstancePair,
    answering,
    failing_on_its_own,
    hang,
    route_error,
    routes_make,
)
from tests.httpserver import Reply

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def every_refresh_forced(settings):
    """These tests refresh one path several times in a row to watch each instance answer: each
    must reach RSSHub, which the per-path budget of forced refreshes (one a minute) would not
    allow (that budget has its own tests, in test_forced_refresh.py)."""
    settings.FORCED_REFRESH_PATH_SECONDS = 0


PATH = "/xalpha/news"


@pytest.fixture
def pair(settings):
    instances = InstancePair(settings)
    yield instances
    instances.stop()


@pytest.fixture
def routes(db) -> dict[str, Route]:
    return routes_make("xalpha", "xbeta")


@pytest.fixture
def route(routes) -> Route:
    return routes["xalpha"]


def route_health(route: Route) -> tuple:
    route.refresh_from_db()
    return (route.attempts, route.successes, route.consecutive_failures, route.circuit)


def fetch() -> object:
    return fetch_path_sync(PATH, refresh=True)


def test_a_refused_instance_hands_the_fetch_to_the_next_within_the_call(pair, route):
    pair.a_server.stop()  # its port is closed: the connection is refused

    result = fetch()

    assert (result.outcome, result.instance) == (Outcome.OK, pair.b.label), result.message
    assert result.failed_over == (pair.a.label,)
    assert route_health(route) == (1, 1, 0, CircuitState.CLOSED)
    tried = FetchAttempt.objects.get(instance=pair.a)
    assert (tried.outcome, tried.route_id) == (Outcome.RSSHUB_UNAVAILABLE, route.pk)
    assert (pair.a.consecutive_failures, pair.b.consecutive_failures) == (1, 0)
    assert not RouteInstanceHealth.objects.filter(instance=pair.a).exists()


def test_refused_then_hung_then_its_own_503_each_served_by_the_other(pair, route):
    """The issue's scenario: three failures of the first instance's own, each time the answer
    comes from the second; the route never sees them; the first's circuit opens on the third
    and closes again once it answers."""
    pair.a_server.stop()
    refused = fetch()
    pair.a_server.start()  # back on the same port, now hanging
    failing_on_its_own(pair.a_server, hang)
    hung = fetch()
    failing_on_its_own(pair.a_server, OWN_ERROR)
    own_error = fetch()

    for result in (refused, hung, own_error):
        assert (result.outcome, result.instance) == (Outcome.OK, pair.b.label), result.message
        assert result.failed_over == (pair.a.label,)
    assert route_health(route) == (3, 3, 0, CircuitState.CLOSED)
    reasons = FetchAttempt.objects.filter(instance=pair.a).order_by("id")
    assert [(a.outcome, a.http_status) for a in reasons] == [
        (Outcome.RSSHUB_UNAVAILABLE, None),
        (Outcome.RSSHUB_UNAVAILABLE, None),
        (Outcome.RSSHUB_UNAVAILABLE, 503),
    ]
    assert pair.a.circuit == CircuitState.OPEN
    assert pair.b.circuit == CircuitState.CLOSED

    asked = len(pair.a_server.requests)
    resting = fetch()
    assert resting.instance == pair.b.label and resting.failed_over == ()
    assert len(pair.a_server.requests) == asked, "an open instance is not asked while one serves"

    answering(pair.a_server)
    RSSHubInstance = type(pair.a)
    RSSHubInstance.objects.filter(pk=pair.a.pk).update(
        circuit_open_until=timezone.now() - timedelta(seconds=1)
    )  # its backoff is over
    back = fetch()
    assert back.instance == pair.a.label, back.message
    assert pair.a.circuit == CircuitState.CLOSED
    changes = InstanceCircuitChange.objects.filter(instance=pair.a).order_by("id")
    assert [(c.from_state, c.to_state) for c in changes] == [
        (CircuitState.CLOSED, CircuitState.OPEN),
        (CircuitState.OPEN, CircuitState.HALF_OPEN),
        (CircuitState.HALF_OPEN, CircuitState.CLOSED),
    ]
    assert route_health(route) == (5, 5, 0, CircuitState.CLOSED)


def test_a_hang_whose_healthz_answers_is_the_routes_timeout(pair, route):
    """Only the instance's own failure moves on: a slow route on a healthy instance is the
    route's timeout, counted as before, and not asked elsewhere in the same call."""
    pair.a_server.route(PATH, hang)

    result = fetch()

    assert (result.outcome, result.instance, result.failed_over) == (
        Outcome.TIMEOUT, pair.a.label, (),
    )  # fmt: skip
    assert route_health(route) == (1, 0, 1, CircuitState.CLOSED)
    assert pair.a.consecutive_failures == 0, "the instance answered its health check"
    assert pair.b_server.requests_to(PATH) == []


def test_an_own_503_whose_healthz_fails_is_no_routes_fault(pair, route):
    failing_on_its_own(pair.a_server, OWN_ERROR)
    pair.b_server.stop()  # nothing to move on to: the result is the last instance's failure
    failing = fetch()
    assert failing.outcome == Outcome.RSSHUB_UNAVAILABLE
    assert pair.a.label in failing.message and pair.b.label in failing.message
    tried = FetchAttempt.objects.get(instance=pair.a)
    assert (tried.outcome, tried.http_status) == (Outcome.RSSHUB_UNAVAILABLE, 503)
    assert "health check" in tried.message
    assert route_health(route) == (0, 0, 0, CircuitState.CLOSED)


def test_a_refused_access_key_moves_on_and_counts_against_the_instance(pair, route):
    failing_on_its_own(pair.a_server, KEY_REFUSED)

    result = fetch()

    assert (result.outcome, result.instance) == (Outcome.OK, pair.b.label)
    tried = FetchAttempt.objects.get(instance=pair.a)
    assert (tried.outcome, tried.http_status) == (Outcome.AUTH_REQUIRED, 403)
    assert pair.a.consecutive_failures == 1
    assert route_health(route) == (1, 1, 0, CircuitState.CLOSED)


def test_a_route_broken_on_one_instance_is_served_by_the_other(pair, route):
    pair.a_server.route(PATH, route_error())
    pair.a_server.route("/xbeta/news", feed_reply(2))

    first = fetch()
    second, third = fetch(), fetch()
    other_route = fetch_path_sync("/xbeta/news", refresh=True)

    assert (first.outcome, first.instance) == (Outcome.NEEDS_CONFIG, pair.a.label)
    assert [(r.outcome, r.instance) for r in (second, third)] == [(Outcome.OK, pair.b.label)] * 2
    assert len(pair.a_server.requests_to(PATH)) == 1, "not sent back to where it is broken"
    assert other_route.instance == pair.a.label, "the instance itself is fine for other routes"
    assert route_health(route) == (3, 2, 0, CircuitState.CLOSED)
    on_a = RouteInstanceHealth.objects.get(route=route, instance=pair.a)
    on_b = RouteInstanceHealth.objects.get(route=route, instance=pair.b)
    assert (on_a.consecutive_failures, on_a.last_error_class) == (1, Outcome.NEEDS_CONFIG)
    assert (on_b.attempts, on_b.successes) == (2, 2)
    assert pair.a.consecutive_failures == 0, "a route error is no fault of the instance"


def test_a_namespace_missing_on_an_instance_is_not_sent_there(pair, routes, route):
    a = pair.a
    a.platforms.set([routes["xbeta"].platform])  # the import found only the other one on a
    type(a).objects.filter(pk=a.pk).update(catalog_read_at=timezone.now())

    result = fetch()

    assert (result.outcome, result.instance, result.failed_over) == (Outcome.OK, pair.b.label, ())
    assert pair.a_server.requests_to(PATH) == []


def test_a_namespace_no_instance_serves_is_not_sent_anywhere(pair, route):
    now = timezone.now()
    for instance in (pair.a, pair.b):
        instance.platforms.clear()
        type(instance).objects.filter(pk=instance.pk).update(catalog_read_at=now)

    result = fetch()

    assert (result.outcome, result.transient) == (Outcome.NOT_FOUND, False)
    assert "serves the namespace 'xalpha'" in result.message
    assert pair.a_server.requests_to(PATH) == pair.b_server.requests_to(PATH) == []
    assert route_health(route) == (0, 0, 0, CircuitState.CLOSED)


def test_a_served_answer_names_the_instance_that_fetched_it(pair, route, settings):
    settings.FETCH_FRESH_SECONDS = 60
    pair.a_server.stop()
    fetched = fetch_path_sync(PATH)
    served = fetch_path_sync(PATH)
    assert fetched.instance == served.instance == pair.b.label
    assert served.fetch_age_s is not None


def test_a_disabled_instance_is_never_asked(pair, route):
    type(pair.a).objects.filter(pk=pair.a.pk).update(enabled=False, from_environment=False)

    result = fetch()

    assert result.instance == pair.b.label
    assert pair.a_server.requests == []


def test_a_due_instance_is_probed_even_when_no_path_goes_there_first(pair, route):
    """The batch holding the half-open probe asks ``/healthz`` as it starts: the circuit closes
    (or opens again) without the claim being taken and given back batch after batch."""
    RSSHubInstance = type(pair.a)
    RSSHubInstance.objects.filter(pk=pair.a.pk).update(
        priority=-5, from_environment=False, circuit=CircuitState.OPEN, consecutive_failures=3,
        circuit_open_until=timezone.now() - timedelta(seconds=1),
    )  # fmt: skip

    result = fetch()

    assert result.instance == pair.b.label
    assert pair.a_server.requests_to("/healthz"), "probed"
    assert pair.a_server.requests_to(PATH) == []
    assert (pair.a.circuit, pair.a.consecutive_failures) == (CircuitState.CLOSED, 0)


def test_a_named_route_error_is_the_routes_without_asking_healthz(pair, route):
    """RSSHub reports a route's failure as "SomeError: ..."; a proxy's bare 502 page does not."""
    pair.a_server.route(PATH, Reply(503, {"Content-Type": "text/html"}, NAMED))

    result = fetch()

    assert (result.outcome, result.instance) == (Outcome.UPSTREAM_ERROR, pair.a.label)
    assert pair.a_server.requests_to("/healthz") == []
    assert route_health(route) == (1, 0, 1, CircuitState.CLOSED)


NAMED = b"<html><title>HTTPError: Response code 502 (Bad Gateway)</title></html>"
