"""Route health: one UPDATE per attempt, and the circuit breaker's states and their records."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from catalog.models import CircuitChange, CircuitState, Platform, Route
from fetching.circuit import (
    BACKOFF_CAP,
    PROBE_STALE,
    backoff_seconds,
    circuit_admit,
    circuit_probe_release,
    route_health_record,
)
from fetching.models import Outcome
from fetching.outcomes import Verdict

NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)
OK = Verdict(Outcome.OK, "5 items", 200)
FAIL = Verdict(Outcome.UPSTREAM_ERROR, "fetch failed (ENOTFOUND)", 503)


@pytest.fixture
def route(db):
    platform = Platform.objects.create(namespace="healthcheck", name="Health")
    return Route.objects.create(platform=platform, key="/:id", path="/healthcheck/:id", name="x")


def record(route, verdict=FAIL, *, latency=100, at=NOW, newest=None):
    return route_health_record(
        route_id=route.id, verdict=verdict, latency_ms=latency, newest_item_at=newest, now=at
    )


def fail_times(route, n, *, at=NOW):
    for i in range(n):
        record(route, at=at + timedelta(seconds=i))


def test_a_success_counts_and_sets_latency(route):
    record(route, OK, latency=400, newest=NOW - timedelta(hours=2))
    route.refresh_from_db()
    assert (route.attempts, route.successes, route.consecutive_failures) == (1, 1, 0)
    assert route.latency_ms == 400
    assert route.last_success_at == route.last_attempt_at == NOW
    assert route.newest_item_at == NOW - timedelta(hours=2)


def test_latency_is_an_ewma(route):
    record(route, OK, latency=1000)
    record(route, OK, latency=2000)
    route.refresh_from_db()
    assert route.latency_ms == pytest.approx(1000 * 0.7 + 2000 * 0.3)


def test_newest_item_time_only_moves_forward_and_ignores_the_future(route):
    record(route, OK, newest=NOW - timedelta(hours=1))
    record(route, OK, newest=NOW - timedelta(days=3))
    record(route, OK, newest=NOW + timedelta(days=30))
    route.refresh_from_db()
    assert route.newest_item_at == NOW - timedelta(hours=1)


def test_a_failure_keeps_its_class_and_message(route):
    record(route, OK, latency=300)
    record(route, FAIL, latency=5)
    route.refresh_from_db()
    assert (route.attempts, route.successes, route.consecutive_failures) == (2, 1, 1)
    assert (route.last_error_class, route.last_error) == ("upstream_error", FAIL.message)
    assert route.latency_ms == 300  # a fast error page says nothing about speed
    assert route.circuit == CircuitState.CLOSED


def test_a_timeout_counts_toward_latency(route):
    record(route, Verdict(Outcome.TIMEOUT, "no answer in 20 s"), latency=20000)
    route.refresh_from_db()
    assert route.latency_ms == 20000


def test_a_success_resets_consecutive_failures(route):
    fail_times(route, 2)
    record(route, OK)
    route.refresh_from_db()
    assert route.consecutive_failures == 0 and route.last_error_class == "upstream_error"


def test_each_attempt_is_one_update_of_the_route(route):
    table = Route._meta.db_table
    for verdict in (OK, FAIL, FAIL, FAIL):  # the last one also opens the circuit
        with CaptureQueriesContext(connection) as queries:
            record(route, verdict)
        updates = [q for q in queries if q["sql"].startswith(f'UPDATE "{table}"')]
        assert len(updates) == 1


def test_three_failures_open_the_circuit_with_a_record(route):
    fail_times(route, 2)
    assert not CircuitChange.objects.exists()
    change = record(route, at=NOW + timedelta(seconds=2))
    route.refresh_from_db()
    assert route.circuit == CircuitState.OPEN
    wait = (route.circuit_open_until - (NOW + timedelta(seconds=2))).total_seconds()
    assert 48 <= wait <= 72  # 60 s with +-20% jitter
    assert (change.from_state, change.to_state, change.open_until) == (
        CircuitState.CLOSED, CircuitState.OPEN, route.circuit_open_until,
    )  # fmt: skip
    assert "upstream_error" in change.reason


def test_backoff_doubles_and_is_capped():
    assert [backoff_seconds(n) for n in (3, 4, 5)] == [60, 120, 240]
    assert backoff_seconds(50) == BACKOFF_CAP
    assert backoff_seconds(3, jitter=1.2) == 72


def test_retry_after_opens_at_once_for_at_least_that_long(route):
    record(route, Verdict(Outcome.RATE_LIMITED, "429", 429, retry_after=600))
    route.refresh_from_db()
    assert route.circuit == CircuitState.OPEN
    assert route.circuit_open_until == NOW + timedelta(seconds=600)


def test_an_open_circuit_refuses_until_its_time(route):
    fail_times(route, 3)
    route.refresh_from_db()
    refused = circuit_admit(route.id, now=route.circuit_open_until - timedelta(seconds=1))
    assert not refused.allowed
    assert (refused.last_error_class, refused.open_until) == (
        "upstream_error", route.circuit_open_until,
    )  # fmt: skip


def test_exactly_one_probe_is_let_through(route):
    fail_times(route, 3)
    route.refresh_from_db()
    later = route.circuit_open_until + timedelta(seconds=1)
    first = circuit_admit(route.id, now=later)
    second = circuit_admit(route.id, now=later)
    assert (first.allowed, first.probe_at) == (True, later)
    assert not second.allowed
    route.refresh_from_db()
    assert (route.circuit, route.circuit_probe_at) == (CircuitState.HALF_OPEN, later)
    latest = CircuitChange.objects.filter(route=route).first()
    assert (latest.from_state, latest.to_state) == (CircuitState.OPEN, CircuitState.HALF_OPEN)


def test_a_successful_probe_closes_the_circuit(route):
    fail_times(route, 3)
    route.refresh_from_db()
    later = route.circuit_open_until + timedelta(seconds=1)
    circuit_admit(route.id, now=later)
    change = record(route, OK, at=later)
    route.refresh_from_db()
    assert (route.circuit, route.circuit_open_until, route.circuit_probe_at) == (
        CircuitState.CLOSED, None, None,
    )  # fmt: skip
    assert (change.from_state, change.to_state) == (CircuitState.HALF_OPEN, CircuitState.CLOSED)
    assert CircuitChange.objects.filter(route=route).count() == 3  # open, half-open, closed


def test_a_failed_probe_reopens_for_longer(route):
    fail_times(route, 3)
    route.refresh_from_db()
    later = route.circuit_open_until + timedelta(seconds=1)
    circuit_admit(route.id, now=later)
    change = record(route, at=later)
    route.refresh_from_db()
    assert route.circuit == CircuitState.OPEN
    wait = (route.circuit_open_until - later).total_seconds()
    assert 96 <= wait <= 144  # the 4th failure: 120 s +-20%
    assert (change.from_state, change.to_state) == (CircuitState.HALF_OPEN, CircuitState.OPEN)


def test_a_released_probe_can_be_claimed_again(route):
    fail_times(route, 3)
    route.refresh_from_db()
    later = route.circuit_open_until + timedelta(seconds=1)
    claimed = circuit_admit(route.id, now=later)
    circuit_probe_release(route.id, claimed.probe_at)
    assert circuit_admit(route.id, now=later).allowed


def test_a_stale_probe_is_reclaimed(route):
    fail_times(route, 3)
    route.refresh_from_db()
    later = route.circuit_open_until + timedelta(seconds=1)
    circuit_admit(route.id, now=later)  # this worker dies
    assert not circuit_admit(route.id, now=later + PROBE_STALE - timedelta(seconds=1)).allowed
    assert circuit_admit(route.id, now=later + PROBE_STALE + timedelta(seconds=1)).allowed


def test_a_closed_route_is_let_through_without_a_write(route):
    with CaptureQueriesContext(connection) as queries:
        assert circuit_admit(route.id).allowed
    assert len(queries) == 1


@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_the_probe_get_one(route):
    fail_times(route, 3)
    route.refresh_from_db()
    later = route.circuit_open_until + timedelta(seconds=1)
    barrier = threading.Barrier(8)
    results = []

    def worker():
        barrier.wait()
        try:
            results.append(circuit_admit(route.id, now=later).allowed)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]
    assert CircuitChange.objects.filter(route=route, to_state=CircuitState.HALF_OPEN).count() == 1
