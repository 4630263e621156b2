"""What staff see of housekeeping: the size of the tables that grow, and the last run.

PostgreSQL sizes come from its statistics (``n_live_tup``) and ``pg_total_relation_size``: one
query, free on any table size. SQLite has no such estimate, so rows
are counted (an SQLite database is a single machine's, small by design); bytes come from the
``dbstat`` table when SQLite was built with it, else they are unknown.
"""

from dataclasses import asdict, dataclass

from django.db import DatabaseError, connection

from briefs.models import Brief, BriefQuotaDay, RunStep, TokenUsage, WebhookDelivery
from catalog.models import CircuitChange
from fetching.models import Feed, FetchAttempt, Item
from housekeeping.models import HousekeepingRun

# The tables every run writes to, and the briefs (kept) for comparison.
GROWING_MODELS = (
    FetchAttempt,
    RunStep,
    Item,
    Feed,
    Brief,
    CircuitChange,
    WebhookDelivery,
    TokenUsage,
    BriefQuotaDay,
)


@dataclass(frozen=True)
class TableSize:
    table: str
    rows: int
    bytes: int | None
    estimated: bool  # rows is PostgreSQL's running estimate, not a count


def table_sizes() -> list[TableSize]:
    tables = [model._meta.db_table for model in GROWING_MODELS]
    if connection.vendor == "postgresql":
        return _postgres_sizes(tables)
    return _sqlite_sizes(tables)


def _postgres_sizes(tables: list[str]) -> list[TableSize]:
    """One query: live rows as the statistics collector counts them (kept current without an
    ANALYZE), and the bytes of table, indexes and TOAST."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.name, COALESCE(s.n_live_tup, 0), pg_total_relation_size(to_regclass(t.name))"
            " FROM unnest(%s::text[]) AS t(name)"
            " LEFT JOIN pg_stat_user_tables s ON s.relid = to_regclass(t.name)",
            [tables],
        )
        found = {name: (rows, size) for name, rows, size in cursor.fetchall()}
    return [TableSize(t, *found.get(t, (0, None)), estimated=True) for t in tables]


def _sqlite_sizes(tables: list[str]) -> list[TableSize]:
    """One statement for every table (a page must not pay a query per table): the row count,
    and the bytes from ``dbstat`` when SQLite was built with it (else a second, count-only
    statement, and the bytes are unknown)."""
    try:
        found = _sqlite_select(tables, with_bytes=True)
    except DatabaseError:  # SQLite built without dbstat
        found = _sqlite_select(tables, with_bytes=False)
    return [TableSize(t, *found[t], estimated=False) for t in tables]


def _sqlite_select(tables: list[str], *, with_bytes: bool) -> dict[str, tuple[int, int | None]]:
    quote = connection.ops.quote_name
    size = "(SELECT SUM(pgsize) FROM dbstat WHERE name = %s)" if with_bytes else "NULL"
    parts = [f"SELECT %s, (SELECT COUNT(*) FROM {quote(t)}), {size}" for t in tables]  # noqa: S608 - the models' own table names
    params = [p for t in tables for p in ([t, t] if with_bytes else [t])]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        return {name: (rows, size) for name, rows, size in cursor.fetchall()}


def last_run() -> HousekeepingRun | None:
    return HousekeepingRun.objects.first()


def housekeeping_status() -> dict:
    """Table sizes and the last run, as the status API and the route health page show them."""
    run = last_run()
    return {
        "tables": [asdict(size) for size in table_sizes()],
        "last_run": None
        if run is None
        else {
            "started_at": run.started_at,
            "finished_at": run.finished_at,
            "status": run.status,
            "status_label": run.get_status_display(),
            "duration_ms": run.duration_ms,
            "removed": run.removed,
        },
    }
