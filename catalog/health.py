"""The health score that route search multiplies with relevance.

``health = success x speed x freshness``, each factor in (0, 1]:

- success: the success rate smoothed with a Beta prior of 3 successes in 4 attempts, so a new
  route scores 0.75 (neither best nor worst) and a few results move it only gradually;
- speed: 1.0 up to 2 s of EWMA latency, falling linearly to 0.6 at 20 s (the fetch deadline);
- freshness: 1.0 when the newest item is under 7 days old or unknown, 0.7 past 90 days.

An open circuit multiplies the score by 0.1: the route is skipped unless nothing else is left.
"""

from datetime import datetime, timedelta

from django.utils import timezone

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
    circuit_open = route.circuit != "closed" and (
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
