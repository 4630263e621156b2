"""The end of a watch's run: its failing state, and who is told what.

Settling a run happens once: a compare-and-set on ``WatchRun.settled_at``. The worker that ran
the brief settles it at once (``watches.tasks``); the dispatcher settles, every minute, any run
whose brief finished without that (a worker killed after the end, a run cancelled while queued).

What the owner is told:

- a run that found something new (or any run with data, when the watch notifies on every run):
  the brief by email (``notify_email``), and it counts as unread in the dashboard;
- ``NO_DATA_FAILING`` runs in a row that ended ``no_data``: the watch is failing, and its owner
  is told once, not on every run;
- the first run with data after that: the watch has recovered, and its owner is told again.

Webhooks need nothing here: every brief, a watch's too, sends ``brief.finished`` with its watch.
"""

import logging
from dataclasses import dataclass

from django.db.models import F
from django.utils import timezone

from briefs.models import FINISHED_STATUSES, BriefOutcome, BriefStatus
from watches.emails import email_send, failing_email, run_email
from watches.models import NO_DATA_FAILING, Watch, WatchRun

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Settled:
    """What settling a run decided."""

    worth_telling: bool  # new items (or any data, for a watch that reports every run)
    failing: bool  # this run made the watch failing
    recovered: bool  # this run ended the watch's failing

    @property
    def unread(self) -> bool:
        return self.worth_telling or self.failing or self.recovered


def _no_data_record(watch_id: int) -> bool:
    """One more no_data run; True when this one made the watch failing (only once)."""
    Watch.objects.filter(pk=watch_id).update(no_data_streak=F("no_data_streak") + 1)
    return bool(
        Watch.objects.filter(
            pk=watch_id, failing=False, no_data_streak__gte=NO_DATA_FAILING
        ).update(failing=True)
    )


def _data_record(watch_id: int) -> bool:
    """A run with data; True when it ended the watch's failing (only once)."""
    if Watch.objects.filter(pk=watch_id, failing=True).update(failing=False, no_data_streak=0):
        return True
    Watch.objects.filter(pk=watch_id).exclude(no_data_streak=0).update(no_data_streak=0)
    return False


def run_judge(run: WatchRun) -> Settled:
    """Record the run's end on its watch and decide what to tell (failed and cancelled runs
    say nothing about the sources, and change nothing)."""
    brief, watch = run.brief, run.watch
    if brief.status != BriefStatus.SUCCEEDED:
        return Settled(False, False, False)
    if brief.outcome == BriefOutcome.NO_DATA:
        return Settled(False, _no_data_record(watch.pk), False)
    recovered = _data_record(watch.pk)
    new = (brief.delta or {}).get("new_items") or 0
    return Settled(bool(new) or not watch.notify_only_new, False, recovered)


def watch_run_settle(brief_id: int) -> Settled | None:
    """Settle the run of a finished brief once; None when there is nothing (left) to do."""
    run = (
        WatchRun.objects.select_related("brief", "watch__owner")
        .filter(brief_id=brief_id, settled_at__isnull=True, brief__status__in=FINISHED_STATUSES)
        .first()
    )
    now = timezone.now()
    if run is None or not WatchRun.objects.filter(pk=run.pk, settled_at__isnull=True).update(
        settled_at=now
    ):
        return None
    settled = run_judge(run)
    if not settled.unread:
        WatchRun.objects.filter(pk=run.pk).update(read_at=now)
    _email(run, settled)
    return settled


def _email(run: WatchRun, settled: Settled) -> None:
    watch = run.watch
    if not (watch.notify_email and watch.owner.email and watch.owner.is_active):
        return
    if settled.failing:
        message = failing_email(run)
    elif settled.worth_telling or settled.recovered:
        message = run_email(run, recovered=settled.recovered)
    else:
        return
    if email_send(message, what=f"watch {watch.pk} run {run.pk}"):
        WatchRun.objects.filter(pk=run.pk).update(emailed_at=timezone.now())


def watch_runs_settle_pending(*, limit: int) -> int:
    """Settle runs whose brief finished without being settled; how many were."""
    pending = (
        WatchRun.objects.filter(settled_at__isnull=True, brief__status__in=FINISHED_STATUSES)
        .order_by("created_at")
        .values_list("brief_id", flat=True)[:limit]
    )
    return sum(1 for brief_id in list(pending) if watch_run_settle(brief_id) is not None)
