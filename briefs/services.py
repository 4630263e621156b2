"""Writes on briefs: create, cancel, rerun, delete. Every function takes the acting user and
only ever touches that user's briefs (another user's brief is ``Brief.DoesNotExist``)."""

import unicodedata

from django.db import transaction
from django.utils import timezone

from briefs.errors import FieldInvalid
from briefs.models import FINISHED_STATUSES, QUESTION_MAX_LENGTH, Brief, BriefStatus
from briefs.steps import step_append


class BriefInvalid(FieldInvalid):
    """The request cannot become a brief; ``field`` names the offending input."""


def question_clean(question: object) -> str:
    """The question as stored, or ``BriefInvalid`` naming what is wrong with it."""
    if not isinstance(question, str):
        raise BriefInvalid("question", "The question must be text.")
    text = unicodedata.normalize("NFC", question).strip()
    if not text:
        raise BriefInvalid("question", "The question is empty.")
    if len(text) > QUESTION_MAX_LENGTH:
        raise BriefInvalid(
            "question", f"The question is longer than {QUESTION_MAX_LENGTH} characters."
        )
    if any(unicodedata.category(c) in ("Cc", "Cs", "Co") and c not in "\n\t" for c in text):
        raise BriefInvalid("question", "The question contains control characters.")
    return " ".join(text.split())


def brief_enqueue(brief: Brief) -> None:
    """Hand the brief to a worker once the transaction that created it has committed."""
    from django_q.tasks import async_task

    transaction.on_commit(
        lambda: async_task("briefs.tasks.run_brief", brief.pk, task_name=f"brief-{brief.pk}")
    )


def brief_create(
    *,
    owner,
    question: object,
    follow_up_of: int | None = None,
    offline: bool = False,
    refresh: bool = False,
    enqueue: bool = True,
) -> Brief:
    """A queued brief, handed to a worker on commit (``enqueue=False``: the caller runs it)."""
    text = question_clean(question)
    parent = None
    if follow_up_of is not None:
        parent = Brief.objects.filter(owner=owner, pk=follow_up_of).first()
        if parent is None:
            raise BriefInvalid("follow_up_of", "No such brief to follow up.")
    with transaction.atomic():
        brief = Brief.objects.create(
            owner=owner, question=text, follow_up_of=parent, offline=offline, refresh=refresh
        )
        if enqueue:
            brief_enqueue(brief)
    return brief


def brief_cancel(*, owner, brief_id: int) -> Brief:
    """Ask a run to stop. A queued brief is cancelled at once; a running one at its next step."""
    brief = Brief.objects.get(owner=owner, pk=brief_id)
    if brief.is_finished:
        return brief
    Brief.objects.filter(pk=brief.pk).update(cancel_requested=True)
    cancelled_now = Brief.objects.filter(pk=brief.pk, status=BriefStatus.QUEUED).update(
        status=BriefStatus.CANCELLED,
        finished_at=timezone.now(),
        error="Cancelled before it started.",
    )
    if cancelled_now:
        step_append(
            brief_id=brief.pk, kind="run_cancelled", payload={"reason": "cancelled while queued"}
        )
    brief.refresh_from_db()
    return brief


def brief_rerun(*, owner, brief_id: int) -> Brief:
    """A new brief with the same question (and thread) as a finished one."""
    original = Brief.objects.get(owner=owner, pk=brief_id)
    return brief_create(
        owner=owner,
        question=original.question,
        follow_up_of=original.follow_up_of_id,
        offline=original.offline,
        refresh=original.refresh,
    )


def brief_delete(*, owner, brief_id: int) -> None:
    """Delete a brief; a running one is cancelled first so its worker stops writing."""
    brief = Brief.objects.get(owner=owner, pk=brief_id)
    if brief.status not in FINISHED_STATUSES:
        Brief.objects.filter(pk=brief.pk).update(cancel_requested=True)
    brief.delete()
