"""The shape of one housekeeping step, and batched deletion by age.

Every write is one statement on at most ``HOUSEKEEP_BATCH_SIZE`` rows, committed on its own
(autocommit), so the web and the workers never queue behind a long transaction. A batch deletes
rows by the ids it just selected: the count it reports is the database's, so a row removed by
someone else in between is never counted twice.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet


@dataclass
class Pass:
    """What one run knows: its clock, its batch size, and the cited items (read once, lazily)."""

    now: datetime
    batch_size: int
    cited_reader: Callable[[], frozenset[int]]
    _cited: frozenset[int] | None = field(default=None, repr=False)

    def days_ago(self, days: int) -> datetime:
        return self.now - timedelta(days=days)

    @property
    def cited(self) -> frozenset[int]:
        if self._cited is None:
            self._cited = self.cited_reader()
        return self._cited


@dataclass(frozen=True)
class Step:
    """One table's pruning: ``pending`` counts what would go (a dry run); ``run`` does it,
    yielding the rows each batch removed so the caller can stop between two batches."""

    table: str
    pending: Callable[[Pass], int]
    run: Callable[[Pass], Iterator[int]]


def batch_size() -> int:
    return settings.HOUSEKEEP_BATCH_SIZE


def delete_in_batches(rows: QuerySet, size: int) -> Iterator[int]:
    """Delete every row of ``rows``, ``size`` at a time; yields each batch's count of rows of
    ``rows``' model (not of rows cascaded to). The delete re-applies ``rows``' conditions, so a
    row that stopped matching since it was selected stays."""
    label = rows.model._meta.label
    while True:
        ids = list(rows.order_by().values_list("pk", flat=True)[:size])
        if not ids:
            return
        _, per_model = rows.filter(pk__in=ids).delete()
        yield per_model.get(label, 0)


def by_age(table: str, rows: Callable[[Pass], QuerySet]) -> Step:
    """A step that deletes ``rows(pass)``: rows past their age, in batches."""
    return Step(
        table=table,
        pending=lambda run: rows(run).count(),
        run=lambda run: delete_in_batches(rows(run), run.batch_size),
    )
