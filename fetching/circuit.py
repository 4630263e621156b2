"""The circuit breaker and the route health record (DESIGN.md section 4), written by every fetch
attempt.

Health is data on the ``catalog.Route`` row, written in one ``UPDATE`` per attempt: attempts,
successes, consecutive failures, EWMA latency, last success, last error, newest item, circuit.

The circuit, per route:

- **closed** -> **open** after ``CIRCUIT_THRESHOLD`` consecutive failures, for a backoff of
  ``BACKOFF_BASE x 2^(failures - threshold)`` seconds, capped at ``BACKOFF_CAP``, times a jitter
  in [0.8, 1.2] so routes that failed together do not all come back together. A failure that
  carries ``Retry-After`` opens it at once, for at least that long: RSSHub said when to return.
- **open** -> **half-open** when ``open_until`` has passed and a fetch claims the single probe
  with a compare-and-set; every other fetch of that route is refused meanwhile.
- **half-open** -> **closed** on a successful probe, -> **open** (longer backoff) on a failure.
  A probe whose worker died is reclaimable after ``PROBE_STALE``.

Each change of state is a ``CircuitChange`` row, for statistics and alerts. What the row means
lives in ``catalog.health``: the circuit and health states, the healthy threshold, and the score
search uses (success with a prior x speed x freshness, x 0.1 when open).

The same breaker guards each RSSHub instance (``fetching.instances``): a ``Breaker`` names the
rows that carry the circuit (``Route`` or ``RSSHubInstance``) and the rows that record its
changes (``CircuitChange`` or ``InstanceCircuitChange``); the rules above are the same for both.
A route's health on one instance (``RouteInstanceHealth``) has the health fields and no circuit.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import models, transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone

from catalog.health import CIRCUIT_REASON_SUCCESS, CircuitState
from catalog.models import CircuitChange, Route
from fetching.models import (
    SUCCESS_OUTCOMES,
    FetchAttempt,
    InstanceCircuitChange,
    Outcome,
    RSSHubInstance,
)
from fetching.outcomes import Verdict, message_clean

CIRCUIT_THRESHOLD = 3
BACKOFF_BASE = 60.0  # seconds, at the threshold
BACKOFF_CAP = 3600.0
RETRY_AFTER_CAP = 6 * 3600.0  # honour Retry-After, but not a request to forget the route
JITTER = (0.8, 1.2)
PROBE_STALE = timedelta(minutes=2)  # far past one fetch's deadline plus parse and store
LATENCY_ALPHA = 0.3  # weight of the newest latency in the EWMA
FUTURE_SLACK = timedelta(hours=1)  # newer "newest item" dates than this are clock errors


def backoff_seconds(failures: int, *, retry_after: int | None = None, jitter: float = 1.0) -> float:
    """How long the circuit stays open after ``failures`` consecutive failures."""
    steps = max(0, failures - CIRCUIT_THRESHOLD)
    seconds = min(BACKOFF_CAP, BACKOFF_BASE * 2 ** min(steps, 20)) * jitter
    if retry_after:
        seconds = max(seconds, min(float(retry_after), RETRY_AFTER_CAP))
    return seconds


@dataclass(frozen=True)
class Breaker:
    """Whose circuit: the rows that carry it, and the rows that record its changes (with the
    name of their foreign key to the first)."""

    model: type[models.Model]
    change_model: type[models.Model]
    owner: str


ROUTES = Breaker(Route, CircuitChange, "route_id")
INSTANCES = Breaker(RSSHubInstance, InstanceCircuitChange, "instance_id")


@dataclass(frozen=True)
class Admission:
    """Whether a fetch of a route may go out now: ``allowed``; ``probe_at`` set when it is the
    single half-open probe (the claim time identifies it). ``open_until`` and the last error
    describe a circuit that is not closed."""

    allowed: bool
    probe_at: datetime | None = None
    open_until: datetime | None = None
    last_error_class: str = ""
    last_error: str = ""


def _change_record(
    breaker: Breaker, owner_id: int, old: str, new: str, reason: str, open_until=None, now=None
):
    return breaker.change_model.objects.create(
        **{breaker.owner: owner_id},
        from_state=old,
        to_state=new,
        reason=message_clean(reason, limit=300),
        open_until=open_until,
        created_at=now or timezone.now(),
    )


ADMIT_FIELDS = [
    "circuit",
    "circuit_open_until",
    "circuit_probe_at",
    "last_error_class",
    "last_error",
]


def _probe_claim(breaker: Breaker, row: dict, now: datetime) -> bool:
    """Compare-and-set on the row: of two workers racing for the probe, exactly one wins."""
    owner_id, rows = row["id"], breaker.model.objects
    if row["circuit"] == CircuitState.OPEN:
        expired = Q(circuit_open_until__isnull=True) | Q(circuit_open_until__lte=now)
        with transaction.atomic():
            claimed = rows.filter(expired, id=owner_id, circuit=CircuitState.OPEN).update(
                circuit=CircuitState.HALF_OPEN, circuit_probe_at=now
            )
            if claimed:
                old, new = CircuitState.OPEN, CircuitState.HALF_OPEN
                _change_record(breaker, owner_id, old, new, "probe claimed", now=now)
        return bool(claimed)
    free = Q(circuit_probe_at__isnull=True) | Q(circuit_probe_at__lt=now - PROBE_STALE)
    claimed = rows.filter(free, id=owner_id, circuit=CircuitState.HALF_OPEN).update(
        circuit_probe_at=now
    )
    return bool(claimed)


def admission_of(breaker: Breaker, row: dict, now: datetime) -> Admission:
    """Admit a fetch on ``row`` (its ``ADMIT_FIELDS`` and id, as read): closed lets it through;
    otherwise it is let through only as the claimed half-open probe."""
    if row["circuit"] == CircuitState.CLOSED:
        return Admission(allowed=True)
    claimed = _probe_claim(breaker, row, now)
    return Admission(
        allowed=claimed,
        probe_at=now if claimed else None,
        open_until=row["circuit_open_until"],
        last_error_class=row["last_error_class"],
        last_error=row["last_error"],
    )


def circuits_admit(
    route_ids: Iterable[int], *, now: datetime | None = None
) -> dict[int, Admission]:
    """For each route: let a fetch through, claim its half-open probe, or refuse. One query
    reads all states; only routes whose circuit is not closed cost a write (the claim)."""
    now = now or timezone.now()
    rows = Route.objects.filter(id__in=set(route_ids)).values("id", *ADMIT_FIELDS)
    return {row["id"]: admission_of(ROUTES, row, now) for row in rows}


def circuit_admit(route_id: int, *, now: datetime | None = None) -> Admission:
    """``circuits_admit`` for one route (a route that does not exist is let through)."""
    return circuits_admit([route_id], now=now).get(route_id, Admission(allowed=True))


def circuit_probe_release(owner_id: int, probe_at: datetime, *, breaker: Breaker = ROUTES) -> None:
    """Give the probe back unused (the attempt said nothing about the route, or instance)."""
    breaker.model.objects.filter(
        id=owner_id, circuit=CircuitState.HALF_OPEN, circuit_probe_at=probe_at
    ).update(circuit_probe_at=None)


def _next_circuit(
    old: str, failures: int, verdict: Verdict, now: datetime
) -> tuple[str, datetime | None]:
    """The circuit state and ``open_until`` after this attempt (``failures`` already counted)."""
    if verdict.success:
        return CircuitState.CLOSED, None
    opens = failures >= CIRCUIT_THRESHOLD or old != CircuitState.CLOSED or verdict.retry_after
    if not opens:
        return CircuitState.CLOSED, None
    jitter = random.uniform(*JITTER)
    seconds = backoff_seconds(failures, retry_after=verdict.retry_after, jitter=jitter)
    return CircuitState.OPEN, now + timedelta(seconds=seconds)


def _newest(newest_item_at: datetime | None, now: datetime) -> datetime | None:
    if newest_item_at is None or newest_item_at > now + FUTURE_SLACK:
        return None
    return newest_item_at


def health_updates(verdict: Verdict, latency_ms: int, newest: datetime | None, now: datetime):
    """The column updates of one attempt on a row with the health fields (``HealthFields``):
    counters as ``F()`` expressions, so concurrent writers add up without a lock."""
    updates = {"attempts": F("attempts") + 1, "last_attempt_at": Value(now)}
    if verdict.success:
        updates |= {
            "successes": F("successes") + 1,
            "consecutive_failures": Value(0),
            "last_success_at": Value(now),
        }
    else:
        updates |= {
            "consecutive_failures": F("consecutive_failures") + 1,
            "last_error_class": Value(str(verdict.outcome)),
            "last_error": Value(message_clean(verdict.message, limit=500)),
        }
    # A fast error page says nothing about speed; a success or a timeout does.
    if verdict.success or verdict.outcome == Outcome.TIMEOUT:
        updates["latency_ms"] = Case(
            When(latency_ms__isnull=True, then=Value(float(latency_ms))),
            default=F("latency_ms") * (1 - LATENCY_ALPHA) + LATENCY_ALPHA * float(latency_ms),
        )
    if newest is not None:
        updates["newest_item_at"] = Case(
            When(Q(newest_item_at__isnull=True) | Q(newest_item_at__lt=newest), then=Value(newest)),
            default=F("newest_item_at"),
        )
    return updates


@dataclass(frozen=True)
class HealthRecord:
    """One attempt, as the health of the row it is credited to (a route, an instance) sees it."""

    owner_id: int
    verdict: Verdict
    latency_ms: int
    newest_item_at: datetime | None = None


def _record_apply(breaker: Breaker, record: HealthRecord, row: dict, now: datetime):
    """One ``UPDATE`` for one attempt; ``row`` (the locked state) is advanced to match. Returns
    the change row when the circuit changed state."""
    verdict = record.verdict
    failures = 0 if verdict.success else row["consecutive_failures"] + 1
    circuit, open_until = _next_circuit(row["circuit"], failures, verdict, now)
    updates = health_updates(verdict, record.latency_ms, _newest(record.newest_item_at, now), now)
    # Every outcome leaves half-open (to closed or open), so a claimed probe is spent.
    updates |= {
        "circuit": Value(circuit),
        "circuit_open_until": Value(open_until),
        "circuit_probe_at": Value(None),
    }
    breaker.model.objects.filter(id=record.owner_id).update(**updates)
    old = row["circuit"]
    row["circuit"], row["consecutive_failures"] = circuit, failures
    if circuit == old:
        return None
    reason = CIRCUIT_REASON_SUCCESS if verdict.success else f"{verdict.outcome}: {verdict.message}"
    return _change_record(breaker, record.owner_id, old, circuit, reason, open_until, now)


def health_record(
    breaker: Breaker, records: Sequence[HealthRecord], *, now: datetime | None = None
) -> list:
    """Record attempts on their rows, in order: one ``UPDATE`` per attempt, plus a change row
    for each change of circuit state (returned).

    The rows are locked first, together and in id order (so two workers cannot deadlock), only
    to know the state each change starts *from*; the counters are ``F()`` expressions."""
    now = now or timezone.now()
    changes = []
    # No savepoint of its own: inside the fetch batch's transaction that would be two more
    # statements, and a failure here fails the batch, which then retries attempt by attempt.
    with transaction.atomic(savepoint=False):
        ids = sorted({r.owner_id for r in records})
        locked = breaker.model.objects.select_for_update().filter(id__in=ids).order_by("id")
        rows = {row["id"]: row for row in locked.values("id", "circuit", "consecutive_failures")}
        for record in records:
            row = rows.get(record.owner_id)
            change = _record_apply(breaker, record, row, now) if row else None
            if change is not None:
                changes.append(change)
    return changes


def routes_health_record(
    records: Sequence[HealthRecord], *, now: datetime | None = None
) -> list[CircuitChange]:
    """``health_record`` on routes (``HealthRecord.owner_id`` is the route)."""
    return health_record(ROUTES, records, now=now)


def route_health_record(
    *,
    route_id: int,
    verdict: Verdict,
    latency_ms: int,
    newest_item_at: datetime | None = None,
    now: datetime | None = None,
) -> CircuitChange | None:
    """Record one attempt on its route (``routes_health_record`` for one); returns the
    ``CircuitChange`` row when the circuit changed state."""
    record = HealthRecord(route_id, verdict, latency_ms, newest_item_at)
    changes = routes_health_record([record], now=now)
    return changes[0] if changes else None


def health_success_quick(
    breaker: Breaker, owner_id: int, *, latency_ms: int, now: datetime | None = None
) -> bool:
    """A success on a row whose circuit is closed and that has not failed since its last
    success, in one ``UPDATE`` and without a lock: nothing can change state, so nothing needs
    to know the state it starts from. False when the row is in any other state: then
    ``health_record`` takes the lock. (Every fetch succeeds on the same few instance rows; a
    lock on them per attempt would queue the workers behind each other.)"""
    now = now or timezone.now()
    updates = health_updates(Verdict(Outcome.OK), latency_ms, None, now)
    steady = breaker.model.objects.filter(
        id=owner_id, circuit=CircuitState.CLOSED, consecutive_failures=0
    )
    return bool(steady.update(**updates))


# Attempts that never said anything against their route (RSSHub down or without internet, a
# path refused before sending): an outage repair has nothing to undo for them.
_NEVER_COUNTED = (Outcome.RSSHUB_UNAVAILABLE, Outcome.REJECTED)


def routes_failed_between(
    *, start: datetime, end: datetime, route_ids: Iterable[int] | None = None
) -> set[int]:
    """The routes (of ``route_ids``, or all) with a failed attempt in ``[start, end]``: what an
    outage from before the egress guard may have wrongly counted against them."""
    failed = FetchAttempt.objects.filter(created_at__gte=start, created_at__lte=end).exclude(
        outcome__in=[*SUCCESS_OUTCOMES, Outcome.EMPTY, *_NEVER_COUNTED]
    )
    if route_ids is not None:
        failed = failed.filter(route_id__in=list(route_ids))
    return set(failed.exclude(route_id=None).values_list("route_id", flat=True).distinct())
