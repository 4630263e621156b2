"""Route health, all its rules in one place: the circuit states, the health states with their
threshold and their database condition, and the health score route search multiplies with
relevance.

Health states, a one-word summary for staff and filters (admin, API, route health page):

- open: the circuit is not closed (open or half-open);
- unknown: closed and never tried;
- failing: closed, tried, and the last attempt failed (``consecutive_failures``);
- healthy: closed, tried, no failure since the last success, and at least
  ``HEALTHY_SUCCESS_RATE`` of the attempts succeeded; degraded: the same below it.

``route_health_state`` reads them from a row and ``health_condition`` from the database: one
rule written twice in two languages, side by side, so they cannot drift apart.

The health score: ``health = success x speed x freshness``, each factor in (0, 1]:

- success: the success rate smoothed with a Beta prior of 3 successes in 4 attempts, so a new
  route scores 0.75 (neither best nor worst) and a few results move it only gradually;
- speed: 1.0 up to 2 s of EWMA latency, falling linearly to 0.6 at 20 s (the fetch deadline);
- freshness: 1.0 when the newest item is under 7 days old or unknown, 0.7 past 90 days.

An open circuit multiplies the score by 0.1: the route is skipped unless nothing else is left.
"""

from datetime import datetime, timedelta

from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

HEALTHY_SUCCESS_RATE = 0.8


# Why a circuit changed (``CircuitChange.reason``), stored in English: a success, a staff reset,
# an outage repair ("outage repair: <span>"), or "<outcome class>: <message>" for a failure.
# The pages show them in the reader's language (briefs.templatetags.dashboard.circuit_reason).
CIRCUIT_REASON_SUCCESS = "success"
CIRCUIT_REASON_STAFF_RESET = "reset by staff"
CIRCUIT_REASON_OUTAGE_REPAIR = "outage repair"


class CircuitState(models.TextChoices):
    CLOSED = "closed", _("closed")
    OPEN = "open", _("open")
    HALF_OPEN = "half_open", _("half-open")


class HealthState(models.TextChoices):
    UNKNOWN = "unknown", _("unknown")
    HEALTHY = "healthy", _("healthy")
    DEGRADED = "degraded", _("degraded")
    FAILING = "failing", _("failing")
    OPEN = "open", _("open")


def health_state(
    *, attempts: int, successes: int, consecutive_failures: int, circuit: str = CircuitState.CLOSED
) -> HealthState:
    """The health state of any row with the health fields (a route, a route on one instance)."""
    if circuit != CircuitState.CLOSED:
        return HealthState.OPEN
    if not attempts:
        return HealthState.UNKNOWN
    if consecutive_failures:
        return HealthState.FAILING
    rate = successes / attempts
    return HealthState.HEALTHY if rate >= HEALTHY_SUCCESS_RATE else HealthState.DEGRADED


def route_health_state(route) -> HealthState:
    """The health state of a ``catalog.Route`` row (``Route.health_state``)."""
    return health_state(
        attempts=route.attempts,
        successes=route.successes,
        consecutive_failures=route.consecutive_failures,
        circuit=route.circuit,
    )


def health_condition(state: str) -> Q:
    """``route_health_state`` as a database condition on routes; ``KeyError`` for no state."""
    closed = Q(circuit=CircuitState.CLOSED)
    tried = closed & Q(attempts__gt=0)
    rate_reached = Q(successes__gte=F("attempts") * HEALTHY_SUCCESS_RATE)
    return {
        HealthState.OPEN: ~closed,
        HealthState.UNKNOWN: closed & Q(attempts=0),
        HealthState.FAILING: tried & Q(consecutive_failures__gt=0),
        HealthState.HEALTHY: tried & Q(consecutive_failures=0) & rate_reached,
        HealthState.DEGRADED: tried & Q(consecutive_failures=0) & ~rate_reached,
    }[state]


# --- The health score ---------------------------------------------------------------------------

PRIOR_SUCCESSES = 3.0
PRIOR_ATTEMPTS = 4.0


def health_score(
    *,
    attempts: int,
    successes: int,
    latency_ms: float | None,
    newest_item_at: datetime | None,
    circuit_open: bool,
    now: datetime | None = None,
) -> float:
    success = (successes + PRIOR_SUCCESSES) / (attempts + PRIOR_ATTEMPTS)
    speed = 1.0
    if latency_ms is not None and latency_ms > 2000:
        speed = max(0.6, 1.0 - 0.4 * (latency_ms - 2000) / 18000)
    freshness = 1.0
    if newest_item_at is not None:
        age = (now or timezone.now()) - newest_item_at
        if age > timedelta(days=90):
            freshness = 0.7
        elif age > timedelta(days=7):
            freshness = 1.0 - 0.3 * (age - timedelta(days=7)) / timedelta(days=83)
    score = success * speed * freshness
    return score * 0.1 if circuit_open else score


def route_health_score(route, *, now: datetime | None = None) -> float:
    """``health_score`` of a ``catalog.Route`` row."""
    now = now or timezone.now()
    circuit_open = route.circuit != CircuitState.CLOSED and (
        route.circuit_open_until is None or route.circuit_open_until > now
    )
    return health_score(
        attempts=route.attempts,
        successes=route.successes,
        latency_ms=route.latency_ms,
        newest_item_at=route.newest_item_at,
        circuit_open=circuit_open,
        now=now,
    )
