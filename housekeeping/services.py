"""The housekeeping run: every step of ``housekeeping_steps`` in turn, under one lock.

What is kept until a person deletes it: briefs (body, citations, coverage, page), users, tokens,
webhooks and the catalog with its curation. What goes by age: ``prune_fetching`` and
``prune_briefs`` say, table by table. A run that reaches ``max_seconds`` stops between two
batches and records ``stopped``: the next run goes on where it stopped, since every step selects
by age again.
"""

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from housekeeping.batches import Pass, Step, batch_size, by_age
from housekeeping.lock import Lease, housekeeping_lock
from housekeeping.models import HousekeepingRun, RunStatus
from housekeeping.prune_briefs import brief_steps, cited_item_ids
from housekeeping.prune_fetching import fetching_steps

log = logging.getLogger(__name__)
# Runs of housekeeping itself are kept this long.
RUN_RECORD_DAYS = 90


@dataclass
class TableResult:
    table: str
    rows: int
    seconds: float


@dataclass
class HousekeepingReport:
    """What a run did (or, dry, would do), table by table, and whether it finished."""

    dry_run: bool
    tables: list[TableResult] = field(default_factory=list)
    status: str = RunStatus.FINISHED
    seconds: float = 0.0

    @property
    def removed(self) -> dict[str, int]:
        return {row.table: row.rows for row in self.tables}


def _runs_old(run: Pass) -> QuerySet:
    return HousekeepingRun.objects.filter(started_at__lt=run.days_ago(RUN_RECORD_DAYS))


def housekeeping_steps() -> list[Step]:
    """Every step, in order. Attempts go before feeds: a deleted feed sets ``feed`` to NULL on
    its attempts, and by then few are left to rewrite."""
    return [
        *fetching_steps(),
        *brief_steps(),
        by_age("housekeeping_housekeepingrun", _runs_old),
    ]


def housekeep_run(
    *,
    dry_run: bool = False,
    max_seconds: float | None = None,
    on_table: Callable[[TableResult], None] | None = None,
) -> HousekeepingReport:
    """Run housekeeping once. Raises ``HousekeepingBusy`` when another run holds the lock (a dry
    run takes no lock and writes nothing). ``on_table`` hears of each table as it is done."""
    run = Pass(now=timezone.now(), batch_size=batch_size(), cited_reader=cited_item_ids)
    if dry_run:
        return _pass(run, dry_run=True, deadline=None, lease=None, on_table=on_table)
    deadline = time.monotonic() + max_seconds if max_seconds else None
    with housekeeping_lock() as lease:
        record = HousekeepingRun.objects.create(started_at=run.now)
        try:
            report = _pass(run, dry_run=False, deadline=deadline, lease=lease, on_table=on_table)
        except Exception as exc:
            _record_end(record, RunStatus.FAILED, {}, error=f"{type(exc).__name__}: {exc}")
            raise
        _record_end(record, report.status, report.removed)
    log.info("housekeeping %s in %.1f s: %s", report.status, report.seconds, report.removed)
    return report


def _pass(
    run: Pass,
    *,
    dry_run: bool,
    deadline: float | None,
    lease: Lease | None,
    on_table: Callable[[TableResult], None] | None,
) -> HousekeepingReport:
    report = HousekeepingReport(dry_run=dry_run)
    started = time.monotonic()
    for step in housekeeping_steps():
        began = time.monotonic()
        if dry_run:
            rows = step.pending(run)
        else:
            rows, finished = _step_run(step, run, deadline)
            if not finished:
                report.status = RunStatus.STOPPED
        result = TableResult(step.table, rows, time.monotonic() - began)
        report.tables.append(result)
        if on_table:
            on_table(result)
        if lease:
            lease.renew()
        if report.status == RunStatus.STOPPED:
            break
    report.seconds = time.monotonic() - started
    return report


def _step_run(step: Step, run: Pass, deadline: float | None) -> tuple[int, bool]:
    """Rows the step removed, and whether it got to the end before ``deadline``."""
    total = 0
    batches: Iterator[int] = step.run(run)
    for removed in batches:
        total += removed
        if deadline is not None and time.monotonic() > deadline:
            return total, False
    return total, True


def _record_end(record: HousekeepingRun, status: str, removed: dict, error: str = "") -> None:
    now = timezone.now()
    HousekeepingRun.objects.filter(pk=record.pk).update(
        status=status,
        finished_at=now,
        removed=removed,
        duration_ms=int((now - record.started_at).total_seconds() * 1000),
        error=error[:500],
    )


def housekeep_time_limit() -> float:
    """The scheduled run stops a minute before django-q's task timeout would kill it."""
    return max(settings.Q_CLUSTER["timeout"] - 60, 30)
