"""Worker tasks (django-q2). Thin: claim the brief by id, run the agent, record a failure.

Claiming is a conditional UPDATE that also counts the attempt, so a brief whose worker died
(SIGKILL, OOM) is picked up again when django-q hands the task out again, and finishes once:
the final status is written by a conditional UPDATE too. After ``MAX_ATTEMPTS`` started
attempts the brief is marked failed instead of being run again.
"""

import logging

from asgiref.sync import async_to_sync
from django.db.models import F
from django.utils import timezone

from briefs.agent.runner import agent_run
from briefs.models import Brief, BriefStatus
from briefs.steps import step_append

MAX_ATTEMPTS = 3
log = logging.getLogger(__name__)


def brief_claim(brief_id: int) -> int | None:
    """Claim a queued (or orphaned running) brief; its attempt number, or None when not ours."""
    now = timezone.now()
    claimed = Brief.objects.filter(
        pk=brief_id,
        status__in=[BriefStatus.QUEUED, BriefStatus.RUNNING],
        cancel_requested=False,
        attempts__lt=MAX_ATTEMPTS,
    ).update(status=BriefStatus.RUNNING, attempts=F("attempts") + 1, started_at=now)
    if not claimed:
        return None
    return Brief.objects.values_list("attempts", flat=True).get(pk=brief_id)


def brief_fail(brief_id: int, reason: str) -> None:
    updated = Brief.objects.filter(
        pk=brief_id, status__in=[BriefStatus.QUEUED, BriefStatus.RUNNING]
    ).update(status=BriefStatus.FAILED, error=reason[:500], finished_at=timezone.now())
    if updated:
        step_append(brief_id=brief_id, kind="run_failed", payload={"reason": reason[:500]})


def run_brief(brief_id: int) -> str:
    attempt = brief_claim(brief_id)
    if attempt is None:
        _give_up_if_exhausted(brief_id)
        return "not claimed"
    if attempt > 1:
        step_append(
            brief_id=brief_id,
            kind="run_resumed",
            payload={"attempt": attempt, "reason": "the previous worker stopped mid-run"},
        )
    try:
        async_to_sync(agent_run)(brief_id)
    except Brief.DoesNotExist:
        return "deleted"
    except Exception as exc:
        log.exception("brief %s failed", brief_id)
        brief_fail(brief_id, f"internal error: {type(exc).__name__}")
        return "failed"
    return "done"


def _give_up_if_exhausted(brief_id: int) -> None:
    exhausted = Brief.objects.filter(
        pk=brief_id, status=BriefStatus.RUNNING, attempts__gte=MAX_ATTEMPTS
    ).exists()
    if exhausted:
        brief_fail(brief_id, f"the run stopped its worker {MAX_ATTEMPTS} times")
