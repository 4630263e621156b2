"""What staff see of housekeeping: the size of the tables that grow, and the last run.

PostgreSQL sizes come from the catalog (``reltuples``, kept by autovacuum's ANALYZE, and
``pg_total_relation_size``): free to read on any table size. SQLite has no such estimate, so rows
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
    estimated: bool  # rows is PostgreSQL's estimate, not a count


def table_sizes() -> list[TableSize]:
    tables = [model._meta.db_table for model in GROWING_MODELS]
    if connection.vendor == "postgresql":
        return _postgres_sizes(tables)
    return [_sqlite_size(table) for table in tables]


def _postgres_sizes(tables: list[str]) -> list[TableSize]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.name, c.reltuples::bigint, pg_total_relation_size(c.oid) "
            "FROM unnest(%s::text[]) AS t(name) JOIN pg_class c ON c.oid = to_regclass(t.name)",
            [tables],
        )
        found = {name: (rows, size) for name, rows, size in cursor.fetchall()}
    sizes = []
    for table in tables:
        rows, size = found.get(table, (0, None))
        if rows < 0:  # never analysed yet: count once (a new, small table)
            sizes.append(TableSize(table, _count(table), size, estimated=False))
        else:
            sizes.append(TableSize(table, rows, size, estimated=True))
    return sizes


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
