"""Worker tasks (django-q2). Thin: claim the brief by id, run the agent, settle what is left.

What django-q2 1.11 with the ORM broker does when the worker running a task dies (SIGKILL, OOM):

- The pusher took the task with a conditional UPDATE that set ``OrmQ.lock = now + retry``
  (``brokers/orm.py``: ``dequeue``, ``timeout``). Only the monitor deletes the row (the ack), and
  only when a result comes back (``monitor.py``). A killed worker sends no result, so the row
  stays and any cluster's pusher hands the task out again once ``lock`` has passed: ``retry``
  seconds after the first hand-out, and again every ``retry`` seconds until some delivery acks it.
- The sentinel's guard only starts a new worker in place of the dead one (``cluster.py``:
  ``guard``, ``reincarnate``); it re-queues nothing, and nothing is recorded in ``Task``.
- ``max_attempts`` counts *results* (``monitor.py``: ``save_task``): a killed worker never
  reaches it. So django-q would redeliver a task that keeps killing its worker forever; the
  bound is ours, ``MAX_ATTEMPTS`` on ``Brief.attempts``.
- A task over ``timeout`` gets ``TimeoutException`` (a ``SystemExit``) from SIGALRM inside the
  task (``timeout.py``); the worker reports the failure, which ``ack_failures`` acks (no
  redelivery), and the guard then terminates that worker (``timer`` 0). A worker whose alarm
  did not fire is terminated by the guard at ``timeout + 3`` s. Either way, no worker still runs
  a task ``timeout + LEASE_MARGIN_SECONDS`` after it started it: that is the claim's lease.

So: a delivery claims the brief by a conditional UPDATE that also counts the attempt; a brief
still ``running`` is claimable only after its lease has run out (its worker is certainly gone),
so a second delivery of a live run (a task that waited in a busy cluster's local queue until
its lock ran out) leaves the run alone. A delivery that finds an orphaned brief it may not run
settles it: cancelled if its owner asked, failed once ``MAX_ATTEMPTS`` attempts stopped their
worker. ``briefs_recover`` (scheduled every few minutes) does the same for orphans no delivery
comes back for (an ack of a duplicate delivery), and hands the others to a worker again.

On the Redis broker (``Q_BROKER=redis``) nothing is ever handed out again (``briefs/queue.py``):
the sweep takes a running brief as orphaned as soon as its lease has run out, and also
re-enqueues queued briefs whose task is no longer in the broker (they were in the local queue of
a cluster that was killed, or Redis lost them). Whatever delivers a brief twice, the claim lets
one run hold it, so the guarantees are the same on both brokers: a brief whose worker was killed
finishes once, with one step log.
"""

import logging
from collections import Counter
from datetime import datetime, timedelta

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import connections
from django.db.models import F, Q
from django.utils import timezone
from django_q.exceptions import TimeoutException

from briefs import reasons
from briefs.agent_hooks import agent_hooks
from briefs.models import Brief, BriefStatus
from briefs.queue import brief_tasks_waiting, broker_redelivers
from briefs.services import brief_enqueue
from briefs.steps import step_append

MAX_ATTEMPTS = 3
# django-q's guard terminates a worker at timeout + 3 s, checking every guard_cycle (0.5 s).
LEASE_MARGIN_SECONDS = 5
RECOVER_BATCH = 100
REASON_EXHAUSTED = f"the worker running it stopped {MAX_ATTEMPTS} times (killed or restarted)"
log = logging.getLogger(__name__)


def run_lease() -> timedelta:
    """How long a claimed run may hold its brief: past it, its worker is gone."""
    return timedelta(seconds=settings.Q_CLUSTER["timeout"] + LEASE_MARGIN_SECONDS)


def _redelivery_seconds() -> int:
    """How long after a lease ran out the broker may still hand the task out again."""
    return settings.Q_CLUSTER.get("retry", 60) if broker_redelivers() else 0


def _unheld(now: datetime) -> Q:
    """Briefs no live run holds: queued, or running with an expired lease."""
    expired = Q(started_at__lt=now - run_lease()) | Q(started_at__isnull=True)
    return Q(status=BriefStatus.QUEUED) | (Q(status=BriefStatus.RUNNING) & expired)


def brief_claim(brief_id: int) -> int | None:
    """Claim a queued or orphaned brief and count the attempt; its number, or None."""
    now = timezone.now()
    claimed = Brief.objects.filter(
        _unheld(now), pk=brief_id, cancel_requested=False, attempts__lt=MAX_ATTEMPTS
    ).update(status=BriefStatus.RUNNING, attempts=F("attempts") + 1, started_at=now)
    if not claimed:
        return None
    return Brief.objects.values_list("attempts", flat=True).get(pk=brief_id)


def brief_fail(brief_id: int, reason: str, *, attempt: int | None = None) -> bool:
    """Mark an unfinished brief failed (only ``attempt``'s run, when given); True if it was."""
    unfinished = Brief.objects.filter(
        pk=brief_id, status__in=[BriefStatus.QUEUED, BriefStatus.RUNNING]
    )
    if attempt is not None:
        unfinished = unfinished.filter(attempts=attempt)
    reason = reason[:500]
    if not unfinished.update(status=BriefStatus.FAILED, error=reason, finished_at=timezone.now()):
        return False
    step_append(brief_id=brief_id, kind="run_failed", payload={"reason": reason})
    return True


def brief_orphan_settle(brief_id: int) -> str | None:
    """End a brief that no run holds and none may start: "cancelled" when its owner asked,
    "failed" when its attempts are spent; None when there is nothing to settle (it finished,
    a live run holds it, it was deleted, or it may still be run)."""
    now = timezone.now()
    orphan = Brief.objects.filter(_unheld(now), pk=brief_id)
    if orphan.filter(cancel_requested=True).update(
        status=BriefStatus.CANCELLED, finished_at=now, error=reasons.CANCELLED_ERROR.english()
    ):
        reason = reasons.CANCELLED_ORPHAN.english()
        step_append(brief_id=brief_id, kind="run_cancelled", payload={"reason": reason})
        return "cancelled"
    if orphan.filter(attempts__gte=MAX_ATTEMPTS).update(
        status=BriefStatus.FAILED, finished_at=now, error=REASON_EXHAUSTED
    ):
        log.warning("brief %s failed: %s", brief_id, REASON_EXHAUSTED)
        step_append(brief_id=brief_id, kind="run_failed", payload={"reason": REASON_EXHAUSTED})
        return "failed"
    return None


def run_brief(brief_id: int) -> str:
    """The task: claim, run, and record how the run ended. Returns a word for django-q's log."""
    attempt = brief_claim(brief_id)
    if attempt is None:
        return brief_orphan_settle(brief_id) or "not claimed"
    if attempt > 1:
        log.warning("brief %s: attempt %d after its worker stopped", brief_id, attempt)
        step_append(
            brief_id=brief_id,
            kind="run_resumed",
            payload={"attempt": attempt, "reason": "the previous worker stopped mid-run"},
        )
    try:
        async_to_sync(agent_hooks().run)(brief_id)
    except Brief.DoesNotExist:
        return "deleted"
    except TimeoutException:
        # django-q's alarm went off, maybe mid-query: start from a fresh connection. The task's
        # failure is acked (ack_failures), so no delivery would come back to this brief.
        connections.close_all()
        limit = settings.Q_CLUSTER["timeout"]
        brief_fail(
            brief_id, f"the run exceeded the worker's time limit ({limit} s)", attempt=attempt
        )
        raise
    except Exception as exc:
        log.exception("brief %s failed", brief_id)
        brief_fail(brief_id, f"internal error: {type(exc).__name__}", attempt=attempt)
        return "failed"
    return "done"


def briefs_recover() -> dict[str, int]:
    """The periodic sweep (a django-q Schedule): running briefs whose lease ran out and whose
    task did not come back within ``retry`` are settled, or handed to a worker again; so are
    queued briefs, older than a lease, whose task the broker no longer holds."""
    stale = timezone.now() - run_lease() - timedelta(seconds=_redelivery_seconds())
    orphans = Brief.objects.filter(status=BriefStatus.RUNNING, started_at__lt=stale)
    counts: Counter[str] = Counter()
    for brief in orphans.only("id")[:RECOVER_BATCH]:
        settled = brief_orphan_settle(brief.pk)
        if settled is None:
            brief_enqueue(brief)  # a duplicate delivery is harmless: the claim decides
            settled = "requeued"
        counts[settled] += 1
    counts["requeued"] += _lost_queued_requeue()
    counts = +counts  # drop zero counts
    if counts:
        log.warning("briefs_recover: %s", dict(counts))
    return dict(counts)


def _lost_queued_requeue() -> int:
    """Enqueue again the queued briefs, older than a lease, whose task is not in the broker."""
    old = Brief.objects.filter(
        status=BriefStatus.QUEUED, created_at__lt=timezone.now() - run_lease()
    ).order_by("created_at")
    candidates = list(old.only("id")[:RECOVER_BATCH])
    if not candidates:
        return 0
    waiting = brief_tasks_waiting()
    if waiting is None:
        return 0
    lost = [brief for brief in candidates if brief.pk not in waiting]
    for brief in lost:
        brief_enqueue(brief)
    return len(lost)
