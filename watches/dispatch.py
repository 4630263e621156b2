"""The dispatcher: one django-q schedule, every minute (``watches/migrations/0002``), claims
the due watches and starts their runs; it also settles runs whose end nobody handled yet.

A claim is a compare-and-set on the watch's row::

    UPDATE watch SET next_run_at = <next slot after now>, last_run_at = now
     WHERE id = :id AND active AND next_run_at = :seen AND next_run_at <= now

and the run's brief is created in the same transaction, only when the UPDATE changed the row. Two
dispatchers (two clusters, or a slow one and the next) that read the same due watch both try;
PostgreSQL makes the second wait for the first's commit and re-check the condition, which then
fails: the watch runs once. The next slot is the next one after *now*, not after the missed one,
so a watch that missed slots while the service was down runs once when it comes back. The run
record is unique per (watch, slot) as well, so even a claim that somehow passed twice could not
start a second run for one slot.

Each claimed run is then admitted by its owner's limits (``briefs.admission``: the daily quota,
the per-minute throttle, the token budget), as every other way a brief starts; a run refused is
not started, and its watch records it as skipped with the limit that refused it (its page says
so). The slot is spent either way: the next run is at the next slot.

Claims go in batches of ``CLAIM_BATCH`` watches, one transaction each: the claims, the briefs and
run records in bulk, and their tasks queued after the commit in one more. The batch is read with
``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so a second dispatcher takes other watches instead of
waiting for a batch it would lose anyway (SQLite, one writer at a time, has no need of it).
"""

import logging
import time
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from watches.models import Watch
from watches.services import slot_next, watch_briefs_start, watch_slots_admit

log = logging.getLogger(__name__)

CLAIM_BATCH = 200  # due watches claimed per transaction
SETTLE_BATCH = 200


@dataclass
class DispatchReport:
    claimed: int = 0
    lost: int = 0  # due watches another dispatcher claimed first
    settled: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"claimed": self.claimed, "lost": self.lost, "settled": self.settled}


def watches_due(now: datetime, *, after_id: int = 0):
    return (
        Watch.objects.filter(active=True, next_run_at__lte=now, owner__is_active=True)
        .filter(pk__gt=after_id)
        .order_by("pk")
    )


def watches_claim(watches: list[Watch], now: datetime) -> list[tuple[Watch, datetime]]:
    """Claim the due slot of each of ``watches`` by compare-and-set; the (watch, slot) pairs
    this dispatcher won. Call inside the transaction that starts their runs."""
    won = []
    for watch in watches:
        seen = watch.next_run_at
        claimed = Watch.objects.filter(
            pk=watch.pk, active=True, next_run_at=seen, next_run_at__lte=now
        ).update(next_run_at=slot_next(watch, now), last_run_at=now)
        if claimed:
            won.append((watch, seen))
    return won


def watch_claim(watch: Watch, now: datetime) -> bool:
    """Claim one watch's due slot and start its run; False when another dispatcher had it."""
    with transaction.atomic():
        won = watches_claim([watch], now)
        admitted = watch_slots_admit(won, now=now) if won else []
        if admitted:
            watch_briefs_start(admitted)
    return bool(won)


def _batch_claim(now: datetime, after_id: int) -> tuple[int, int, int | None]:
    """Claim one batch of due watches and start their runs, in one transaction; how many were
    claimed and lost, and the last id read (None when no watch was due)."""
    with transaction.atomic():
        # SKIP LOCKED (PostgreSQL): a batch another dispatcher is claiming is left to it, not
        # waited for; the claim itself is still the compare-and-set.
        batch = list(
            watches_due(now, after_id=after_id).select_for_update(skip_locked=True, of=("self",))[
                :CLAIM_BATCH
            ]
        )
        won = watches_claim(batch, now)
        admitted = watch_slots_admit(won, now=now) if won else []
        if admitted:
            watch_briefs_start(admitted)
    return len(won), len(batch) - len(won), (batch[-1].pk if batch else None)


def watches_dispatch(*, now: datetime | None = None, seconds: float | None = None) -> dict:
    """Claim every watch due at ``now`` (for at most ``seconds``), then settle finished runs."""
    from watches.notify import watch_runs_settle_pending

    now = now or timezone.now()
    limit = dispatch_seconds() if seconds is None else seconds
    report, deadline, after = DispatchReport(), time.monotonic() + limit, 0
    while time.monotonic() < deadline:
        claimed, lost, last = _batch_claim(now, after)
        report.claimed += claimed
        report.lost += lost
        if last is None:
            break
        after = last
    report.settled = watch_runs_settle_pending(limit=SETTLE_BATCH)
    if report.claimed or report.lost:
        log.info("watches dispatched: %s", report.as_dict())
    return report.as_dict()


def dispatch_seconds() -> float:
    """A dispatch claims until a minute before django-q's task timeout would stop it: what is
    due is claimed in one go, not left to a next dispatch that may wait behind the runs."""
    return max(settings.Q_CLUSTER["timeout"] - 60, 30)
