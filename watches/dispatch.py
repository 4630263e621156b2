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
"""

import logging
import time
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from watches.models import Watch
from watches.services import slot_next, watch_brief_start

log = logging.getLogger(__name__)

CLAIM_BATCH = 200  # due watches read per query
DISPATCH_SECONDS = 50  # a dispatch stops claiming after this; the next one goes on
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
        .select_related("owner")
        .order_by("pk")
    )


def watch_claim(watch: Watch, now: datetime) -> bool:
    """Claim ``watch``'s due slot and start its run; False when another dispatcher had it."""
    seen = watch.next_run_at
    with transaction.atomic():
        claimed = Watch.objects.filter(
            pk=watch.pk, active=True, next_run_at=seen, next_run_at__lte=now
        ).update(next_run_at=slot_next(watch, now), last_run_at=now)
        if not claimed:
            return False
        watch_brief_start(watch, due_at=seen)
    return True


def watches_dispatch(*, now: datetime | None = None, seconds: float = DISPATCH_SECONDS) -> dict:
    """Claim every watch due at ``now`` (within ``seconds``), then settle finished runs."""
    from watches.notify import watch_runs_settle_pending

    now = now or timezone.now()
    report, deadline, after = DispatchReport(), time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        batch = list(watches_due(now, after_id=after)[:CLAIM_BATCH])
        for watch in batch:
            if watch_claim(watch, now):
                report.claimed += 1
            else:
                report.lost += 1
        if len(batch) < CLAIM_BATCH:
            break
        after = batch[-1].pk
    report.settled = watch_runs_settle_pending(limit=SETTLE_BATCH)
    if report.claimed or report.lost:
        log.info("watches dispatched: %s", report.as_dict())
    return report.as_dict()
