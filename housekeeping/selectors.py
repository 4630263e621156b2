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
    return [_sqlite_size(table) for table in tables]


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


def _sqlite_size(table: str) -> TableSize:
    size = None
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT SUM(pgsize) FROM dbstat WHERE name = %s", [table])
            size = cursor.fetchone()[0]
    except DatabaseError:  # SQLite built without dbstat
        size = None
    return TableSize(table, _count(table), size, estimated=False)


def _count(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608 - a model's own table name
        return cursor.fetchone()[0]


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
