"""Reads of the catalog: what route search needs (its text, its curation, versions, fresh
states), and the filtered lists the API pages through.

Eligibility is one rule everywhere: a route is searchable when it is enabled and present upstream
and its platform is enabled and present upstream.
"""

import functools
import json
from collections.abc import Collection, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import (
    Case,
    Count,
    F,
    IntegerField,
    Max,
    Q,
    QuerySet,
    Sum,
    TextField,
    Value,
    When,
)
from django.db.models.functions import MD5, Cast, Ord, Substr
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from catalog.health import health_condition
from catalog.models import Platform, Route, UpstreamState


class PlatformRow(NamedTuple):
    id: int
    namespace: str
    name: str
    url: str
    categories: Any
    description: str
    translations: Any
    aliases: Any


class RouteRow(NamedTuple):
    id: int
    platform_id: int
    path: str
    key: str
    name: str
    description: str
    example: str
    categories: Any
    parameters: Any
    translations: Any


class CurationRow(NamedTuple):
    """A row's curation, and the platform id for a route (None for a platform)."""

    id: int
    platform_id: int | None
    enabled: bool
    upstream_state: str
    priority: int

    @property
    def eligible(self) -> bool:
        return self.enabled and self.upstream_state == UpstreamState.PRESENT


class RouteSearchState(NamedTuple):
    """What search reads fresh for its candidates: curation, eligibility and health.

    Its health fields carry the names ``catalog.health.route_health_score`` reads.
    """

    id: int
    enabled: bool
    upstream_state: str
    priority: int
    platform_enabled: bool
    platform_upstream_state: str
    platform_priority: int
    attempts: int
    successes: int
    latency_ms: float | None
    newest_item_at: datetime | None
    circuit: str
    circuit_open_until: datetime | None

    @property
    def eligible(self) -> bool:
        return (
            self.enabled
            and self.upstream_state == UpstreamState.PRESENT
            and self.platform_enabled
            and self.platform_upstream_state == UpstreamState.PRESENT
        )


class PlatformSearchState(NamedTuple):
    id: int
    enabled: bool
    upstream_state: str
    priority: int

    @property
    def eligible(self) -> bool:
        return self.enabled and self.upstream_state == UpstreamState.PRESENT


CURATION = ("enabled", "upstream_state", "priority")


def _id_sum_where(condition: Q) -> Sum:
    return Sum(Case(When(condition, then=F("id")), default=0, output_field=IntegerField()))


def _fingerprint_sum(field: str) -> Sum:
    """Sum over rows of id x a number made of the first three characters of md5(field).

    Any edit of the field changes it but for a 1 in 4096 chance, in SQL both backends run (Django
    gives SQLite its MD5), where a length would miss an alias swapped for one as long.
    """
    digest = MD5(Cast(field, TextField()))
    number = sum((Ord(Substr(digest, k + 1, 1)) * 128**k for k in range(3)), start=Value(0))
    # Only rows with aliases: SQLite's MD5 is a Python function, too dear for every row.
    return Sum(number * F("id"), output_field=IntegerField(), filter=~Q(**{field: []}))


def catalog_search_version() -> tuple[tuple, tuple]:
    """Two cheap signatures: of the catalog's text, and of its curation.

    The text one (counts, latest ``updated_at``, a fingerprint of every platform's aliases) moves
    on every import write and alias edit. The curation one folds id-weighted sums of ``enabled``,
    ``priority`` and ``upstream_state``, so a toggle or a new priority changes it even when a
    plain ``filter().update()`` or an admin form leaves ``updated_at`` alone. Two queries, one
    sequential scan of each table.
    """
    platform = Platform.objects.aggregate(
        n=Count("id"),
        at=Max("updated_at"),
        aliases=_fingerprint_sum("aliases"),
        enabled=_id_sum_where(Q(enabled=True)),
        present=_id_sum_where(Q(upstream_state=UpstreamState.PRESENT)),
        priority=Sum(F("priority") * F("id")),
    )
    route = Route.objects.aggregate(
        n=Count("id"),
        at=Max("updated_at"),
        enabled=_id_sum_where(Q(enabled=True)),
        present=_id_sum_where(Q(upstream_state=UpstreamState.PRESENT)),
        priority=Sum(F("priority") * F("id")),
    )
    text = (platform["n"], platform["at"], platform["aliases"], route["n"], route["at"])
    curation = tuple(platform[k] for k in ("enabled", "present", "priority"))
    curation += tuple(route[k] for k in ("enabled", "present", "priority"))
    return text, curation


def platform_text_rows() -> Iterator[PlatformRow]:
    """Every platform, curated or not: the index holds all, curation decides who is found."""
    rows = Platform.objects.values_list(*PlatformRow._fields)
    for row in rows.iterator(chunk_size=2000):
        yield PlatformRow(*row)


def route_text_rows() -> Iterator[RouteRow]:
    rows = Route.objects.values_list(*RouteRow._fields)
    for row in rows.iterator(chunk_size=2000):
        yield RouteRow(*row)


def text_rows_since(
    *, platforms_at: datetime | None, routes_at: datetime | None, limit: int
) -> tuple[list[PlatformRow], list[RouteRow]] | None:
    """Text rows written after the given times (all rows of a table whose time is None), or
    None when more than ``limit`` of them were."""
    platforms = Platform.objects.all()
    routes = Route.objects.all()
    if platforms_at is not None:
        platforms = platforms.filter(updated_at__gt=platforms_at)
    if routes_at is not None:
        routes = routes.filter(updated_at__gt=routes_at)
    found_platforms = [
        PlatformRow(*r) for r in platforms.values_list(*PlatformRow._fields)[: limit + 1]
    ]
    found_routes = [RouteRow(*r) for r in routes.values_list(*RouteRow._fields)[: limit + 1]]
    if len(found_platforms) + len(found_routes) > limit:
        return None
    return found_platforms, found_routes


def platform_curation_rows() -> list[CurationRow]:
    fields = ("id", "enabled", "upstream_state", "priority")
    return [CurationRow(i, None, *rest) for i, *rest in Platform.objects.values_list(*fields)]


def route_curation_rows() -> list[CurationRow]:
    return [
        CurationRow(*row)
        for row in Route.objects.values_list(
            "id", "platform_id", "enabled", "upstream_state", "priority"
        )
    ]


# The read below runs on every search. It is raw SQL, one UNION ALL of two simple selects,
# because a round trip and the compiling of two ORM queries cost more than running them; the
# tables and columns come from the models.

_HEALTH = ("attempts", "successes", "latency_ms", "newest_item_at", "circuit", "circuit_open_until")


def _id_in(vendor: str, count: int) -> str:
    """``id IN (...)`` for ``count`` ids, or on PostgreSQL ``id = ANY(%s)``: one SQL text
    whatever the count, which psycopg converts once and caches."""
    if vendor == "postgresql":
        return f"{connection.ops.quote_name('id')} = ANY(%s)"
    return f"{connection.ops.quote_name('id')} IN ({', '.join(['%s'] * count)})"


@functools.lru_cache(maxsize=512)
def _search_states_text(vendor: str, routes: int, platforms: int) -> str:
    """The SQL for so many route and platform ids, built once per shape: quoting names through
    the backend cost as much as running the query. (S608 below: names come from the models,
    ids are parameters.)"""
    quote = connection.ops.quote_name
    parts = []
    if routes:
        columns = ", ".join(quote(c) for c in ("id", "platform_id", *CURATION, *_HEALTH))
        table = quote(Route._meta.db_table)
        where = _id_in(vendor, routes)
        parts.append(f"SELECT 'r', {columns} FROM {table} WHERE {where}")  # noqa: S608
    if platforms:  # the same columns: NULL for platform_id and health
        columns = ", ".join(quote(c) for c in CURATION)
        nulls = ", ".join(["NULL"] * len(_HEALTH))
        table = quote(Platform._meta.db_table)
        select = f"SELECT 'p', {quote('id')}, NULL, {columns}, {nulls}"
        parts.append(f"{select} FROM {table} WHERE {_id_in(vendor, platforms)}")
    return " UNION ALL ".join(parts)


def _search_states_sql(route_ids: list[int], platform_ids: list[int]) -> tuple[str, list]:
    """The SQL and its parameters."""
    vendor = connection.vendor
    text = _search_states_text(vendor, len(route_ids), len(platform_ids))
    if vendor == "postgresql":
        return text, [ids for ids in (route_ids, platform_ids) if ids]
    return text, [*route_ids, *platform_ids]


def _aware(value: Any) -> datetime | None:
    """A datetime from a raw row: SQLite gives naive UTC (or text), PostgreSQL aware."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if value is not None and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


def search_states(
    route_ids: Collection[int], platform_ids: Collection[int]
) -> tuple[dict[int, RouteSearchState], dict[int, PlatformSearchState]]:
    """Fresh curation and health of routes, fresh curation of platforms, in one query.

    A route's platform must be among ``platform_ids`` for the route to have a state; missing
    ids are absent from the answer.
    """
    route_ids, platform_ids = [int(i) for i in route_ids], [int(i) for i in platform_ids]
    if not route_ids and not platform_ids:
        return {}, {}
    with connection.cursor() as cursor:
        cursor.execute(*_search_states_sql(route_ids, platform_ids))
        rows = cursor.fetchall()
    platforms = {
        row[1]: PlatformSearchState(row[1], bool(row[3]), row[4], row[5])
        for row in rows
        if row[0] == "p"
    }
    routes = {}
    for kind, id_, platform_id, enabled, state, priority, *health in rows:
        platform = platforms.get(platform_id)
        if kind == "r" and platform is not None:
            health[3], health[5] = _aware(health[3]), _aware(health[5])
            routes[id_] = RouteSearchState(
                id_, bool(enabled), state, priority, platform.enabled, platform.upstream_state,
                platform.priority, *health,
            )  # fmt: skip
    return routes, platforms


# --- Listing the catalog (the API) --------------------------------------------------------------


def platforms_filtered(
    *,
    search: str = "",
    enabled: bool | None = None,
    lang: str = "",
    category: str = "",
    **_page,
) -> QuerySet[Platform]:
    platforms = Platform.objects.all()
    if search:
        platforms = platforms.filter(
            Q(namespace__icontains=search) | Q(name__icontains=search) | Q(url__icontains=search)
        )
    if enabled is not None:
        platforms = platforms.filter(enabled=enabled)
    if lang:
        platforms = platforms.filter(lang=lang)
    if category:
        platforms = platforms.filter(category_condition(category))
    return platforms.order_by("namespace")


def category_condition(category: str) -> Q:
    """Rows (platforms or routes) whose ``categories`` list holds ``category``.

    The JSON text holds the quoted name: portable where JSON containment is not (SQLite),
    whether the backend stores non-ASCII escaped (SQLite) or not (PostgreSQL)."""
    return Q(categories__icontains=json.dumps(category)) | Q(
        categories__icontains=json.dumps(category, ensure_ascii=False)
    )


def routes_filtered(
    *,
    platform: str = "",
    enabled: bool | None = None,
    health: str = "",
    search: str = "",
    ranked: Sequence[int] | None = None,
    **_page,
) -> QuerySet[Route]:
    """Routes matching every given filter, by path; with ``ranked`` (route ids best first, from
    a relevance search) only those, in that order."""
    routes = Route.objects.all()
    if platform:
        routes = routes.filter(platform__namespace=platform)
    if enabled is not None:
        routes = routes.filter(enabled=enabled)
    if health:
        routes = routes.filter(health_condition(health))
    if search:
        routes = routes.filter(
            Q(path__icontains=search) | Q(name__icontains=search) | Q(description__icontains=search)
        )
    if ranked is not None:
        return _in_rank_order(routes, ranked)
    return routes.order_by("path")


def _in_rank_order(routes: QuerySet[Route], route_ids: Sequence[int]) -> QuerySet[Route]:
    if not route_ids:
        return routes.none()
    order = Case(
        *(When(pk=route_id, then=rank) for rank, route_id in enumerate(route_ids)),
        output_field=IntegerField(),
    )
    return routes.filter(pk__in=route_ids).annotate(rank=order).order_by("rank")
