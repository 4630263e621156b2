"""Reads for the route health page: the tried routes by state or text, each one's success and
latency over the last ``HEALTH_DAYS`` days in ``BUCKET_HOURS`` buckets, the summary tiles and the
recent circuit changes, and each route's health on each RSSHub instance. Failures while RSSHub
itself was unavailable count against no route (DESIGN.md 2.3), here as in route health.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db.models import Avg, Count, Q, QuerySet
from django.db.models.functions import TruncHour
from django.utils import timezone

from catalog.health import CircuitState, HealthState, health_condition
from catalog.models import CircuitChange, Route
from fetching.models import SUCCESS_OUTCOMES, FetchAttempt, Outcome, RouteInstanceHealth

HEALTH_DAYS = 7
BUCKET_HOURS = 6
ROUTES_PER_PAGE = 40
RECENT_CHANGES = 12


@dataclass
class Series:
    """One point per bucket, oldest first: the share of successes and the mean latency."""

    success: list[float | None] = field(default_factory=list)
    latency: list[float | None] = field(default_factory=list)
    attempts: list[int] = field(default_factory=list)


def routes_for_health(*, state: str = "", text: str = "") -> QuerySet[Route]:
    """Routes that have been tried (or whose circuit is not closed), by platform then path."""
    routes = Route.objects.select_related("platform").filter(
        Q(attempts__gt=0) | ~Q(circuit=CircuitState.CLOSED)
    )
    if state in HealthState.values:
        routes = routes.filter(health_condition(state))
    if text:
        routes = routes.filter(
            Q(path__icontains=text)
            | Q(name__icontains=text)
            | Q(platform__name__icontains=text)
            | Q(platform__namespace__icontains=text)
        )
    return routes.order_by("platform__namespace", "path")


def _buckets(now: datetime) -> tuple[datetime, int]:
    """The start of the first bucket (aligned to ``BUCKET_HOURS`` in UTC) and the count."""
    end = now.replace(minute=0, second=0, microsecond=0)
    end -= timedelta(hours=end.hour % BUCKET_HOURS)
    count = HEALTH_DAYS * 24 // BUCKET_HOURS
    return end - timedelta(hours=BUCKET_HOURS * (count - 1)), count


def health_series(*, route_ids: list[int] | None, now: datetime | None = None) -> dict:
    """Per route (or ``None`` for all routes together), the success/latency series of the last
    ``HEALTH_DAYS`` days. One aggregate query, grouped by route and hour."""
    start, count = _buckets(now or timezone.now())
    attempts = FetchAttempt.objects.filter(created_at__gte=start).exclude(
        outcome=Outcome.RSSHUB_UNAVAILABLE  # RSSHub down is no route's fault (DESIGN.md 2.3)
    )
    keys: tuple[str, ...] = ("hour",)
    if route_ids is not None:
        attempts = attempts.filter(route_id__in=route_ids)
        keys = ("route_id", "hour")
    rows = (
        attempts.annotate(hour=TruncHour("created_at", tzinfo=UTC))
        .values(*keys)
        .annotate(
            n=Count("id"),
            ok=Count("id", filter=Q(outcome__in=list(SUCCESS_OUTCOMES))),
            latency=Avg("latency_ms"),
        )
        .order_by()
    )
    totals: dict = defaultdict(lambda: [[0, 0, 0.0] for _ in range(count)])
    for row in rows:
        index = int((row["hour"] - start).total_seconds() // (BUCKET_HOURS * 3600))
        if 0 <= index < count:
            bucket = totals[row.get("route_id")][index]
            bucket[0] += row["n"]
            bucket[1] += row["ok"]
            bucket[2] += (row["latency"] or 0) * row["n"]
    return {key: _series(buckets) for key, buckets in totals.items()}


def series_empty() -> Series:
    """The series of a route without attempts in the period: every bucket empty."""
    _, count = _buckets(timezone.now())
    return _series([[0, 0, 0.0]] * count)


def _series(buckets: list[list]) -> Series:
    series = Series()
    for n, ok, latency_sum in buckets:
        series.attempts.append(n)
        series.success.append(ok / n if n else None)
        series.latency.append(latency_sum / n if n else None)
    return series


@dataclass(frozen=True)
class HealthSummary:
    routes_tried: int
    open_circuits: int
    failing: int
    attempts_24h: int
    success_24h: float | None
    latency_24h: float | None


def health_summary(*, now: datetime | None = None) -> HealthSummary:
    now = now or timezone.now()
    counts = Route.objects.aggregate(
        tried=Count("id", filter=Q(attempts__gt=0)),
        open=Count("id", filter=health_condition(HealthState.OPEN)),
        failing=Count("id", filter=health_condition(HealthState.FAILING)),
    )
    day = (
        FetchAttempt.objects.filter(created_at__gte=now - timedelta(hours=24))
        .exclude(outcome=Outcome.RSSHUB_UNAVAILABLE)
        .aggregate(
            n=Count("id"),
            ok=Count("id", filter=Q(outcome__in=list(SUCCESS_OUTCOMES))),
            latency=Avg("latency_ms"),
        )
    )
    return HealthSummary(
        routes_tried=counts["tried"],
        open_circuits=counts["open"],
        failing=counts["failing"],
        attempts_24h=day["n"],
        success_24h=day["ok"] / day["n"] if day["n"] else None,
        latency_24h=day["latency"],
    )


def instance_health_by_route(route_ids: list[int]) -> dict[int, list[RouteInstanceHealth]]:
    """Each route's health on each RSSHub instance that answered for it, in one query (the
    instances' order: priority, then id)."""
    rows = (
        RouteInstanceHealth.objects.filter(route_id__in=route_ids)
        .select_related("instance")
        .order_by("-instance__priority", "instance_id")
    )
    by_route: dict[int, list[RouteInstanceHealth]] = defaultdict(list)
    for row in rows:
        by_route[row.route_id].append(row)
    return dict(by_route)


def circuit_changes_recent(
    *, routes: QuerySet[Route] | None = None, limit: int = RECENT_CHANGES
) -> list[CircuitChange]:
    """The newest circuit changes, of ``routes`` only when given (the page's filters)."""
    changes = CircuitChange.objects.select_related("route")
    if routes is not None:
        changes = changes.filter(route__in=routes.order_by().values("pk"))
    return list(changes[:limit])
