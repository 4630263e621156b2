"""Writes on briefs: create, cancel, rerun, delete. Every function takes the acting user and
only ever touches that user's briefs (another user's brief is ``Brief.DoesNotExist``)."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from briefs import reasons
from briefs.errors import FieldInvalid
from briefs.language import brief_language_decide, interface_language, language_clean
from briefs.models import (
    FINISHED_STATUSES,
    Brief,
    BriefOutcome,
    BriefStatus,
)
from briefs.queue import brief_task_name
from briefs.steps import step_append
from catalog.search_terms import MAX_QUESTION_CHARS
from fetching.plaintext import invisible_strip

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser


class BriefInvalid(FieldInvalid):
    """The request cannot become a brief; ``field`` names the offending input."""


def question_clean(question: object) -> str:
    """The question as stored, or ``BriefInvalid`` naming what is wrong with it."""
    if not isinstance(question, str):
        raise BriefInvalid("question", "The question must be text.")
    text = invisible_strip(unicodedata.normalize("NFC", question)).strip()
    if not text:
        raise BriefInvalid("question", "The question is empty.")
    if len(text) > MAX_QUESTION_CHARS:
        raise BriefInvalid(
            "question", f"The question is longer than {MAX_QUESTION_CHARS} characters."
        )
    if any(unicodedata.category(c) in ("Cc", "Cs", "Co") and c not in "\n\t" for c in text):
        raise BriefInvalid("question", "The question contains control characters.")
    return " ".join(text.split())


def brief_enqueue(brief: Brief) -> None:
    """Hand the brief to a worker once the transaction that created it has committed."""
    from django_q.tasks import async_task

    name = brief_task_name(brief.pk)  # briefs.queue finds waiting briefs by it
    transaction.on_commit(lambda: async_task("briefs.tasks.run_brief", brief.pk, task_name=name))


def brief_create(
    *,
    owner: AbstractBaseUser,
    question: object,
    follow_up_of: int | None = None,
    offline: bool = False,
    refresh: bool = False,
    refresh_limited: bool = False,
    enqueue: bool = True,
    language: object = "",
    interface: str | None = None,
) -> Brief:
    """A queued brief, handed to a worker on commit (``enqueue=False``: the caller runs it).

    A queued brief's first step, ``brief_queued``, is written with it: the page that shows the
    new brief (and any watcher) has the queued state and a first step at once, never waiting
    for a worker's first write. ``refresh_limited``: a forced refresh was asked and refused
    (``briefs.admission``); the first step says so. ``language``: the reader's choice of the
    brief's language, if any; ``interface``: the reader's interface language
    (``briefs.language``)."""
    text = question_clean(question)
    try:
        chosen = language_clean(language)
    except FieldInvalid as exc:
        raise BriefInvalid(exc.field, exc.message) from None
    written_in = brief_language_decide(chosen=chosen, question=text, interface=interface)
    parent = None
    if follow_up_of is not None:
        parent = Brief.objects.filter(owner=owner, pk=follow_up_of).first()
        if parent is None:
            raise BriefInvalid("follow_up_of", "No such brief to follow up.")
    with transaction.atomic():
        brief = Brief.objects.create(
            owner=owner,
            question=text,
            follow_up_of=parent,
            offline=offline,
            refresh=refresh,
            language=written_in,
        )
        if enqueue:
            payload = {"offline": offline, "follow_up_of": parent.pk if parent else None}
            if refresh_limited:
                payload["refresh_limited"] = True
            step_append(brief_id=brief.pk, kind="brief_queued", payload=payload)
            brief_enqueue(brief)
    return brief


def brief_cancel(*, owner: AbstractBaseUser, brief_id: int) -> Brief:
    """Ask a run to stop. A queued brief is cancelled at once; a running one at its next step; a
    finished one is returned as it is (``cancel_requested`` stays False)."""
    brief = Brief.objects.get(owner=owner, pk=brief_id)
    # Only an unfinished brief takes the request, in one conditional UPDATE: a run that ends
    # between the read above and here is not marked as cancelled by a request it never saw.
    live = (BriefStatus.QUEUED, BriefStatus.RUNNING)
    if not Brief.objects.filter(pk=brief.pk, status__in=live).update(cancel_requested=True):
        brief.refresh_from_db()
        return brief
    cancelled_now = Brief.objects.filter(pk=brief.pk, status=BriefStatus.QUEUED).update(
        status=BriefStatus.CANCELLED,
        finished_at=timezone.now(),
        error=reasons.CANCELLED_EARLY_ERROR.english(),
    )
    if cancelled_now:
        step_append(
            brief_id=brief.pk, kind="run_cancelled", payload={"reason": "cancelled while queued"}
        )
    brief.refresh_from_db()
    return brief


def brief_rerun(*, owner: AbstractBaseUser, brief_id: int) -> Brief:
    """A new brief with the same question (and thread) as a finished one."""
    original = Brief.objects.get(owner=owner, pk=brief_id)
    return brief_create(
        owner=owner,
        question=original.question,
        follow_up_of=original.follow_up_of_id,
        offline=original.offline,
        refresh=original.refresh,
        language=_language_kept(original),
    )


def _language_kept(original: Brief) -> str:
    """A rerun or an answered brief is written in its original's language (rows from before
    the language was decided at creation hold ``zh`` or nothing)."""
    return interface_language(original.language) if original.language else ""


NEED_VALUE_MAX_LENGTH = 200


def need_value_clean(value: object) -> str:
    """A value given for a missing parameter, or ``BriefInvalid`` naming what is wrong."""
    if not isinstance(value, str):
        raise BriefInvalid("value", "The value must be text.")
    text = " ".join(invisible_strip(unicodedata.normalize("NFC", value)).replace('"', " ").split())
    if not text:
        raise BriefInvalid("value", "The value is empty.")
    if len(text) > NEED_VALUE_MAX_LENGTH:
        raise BriefInvalid("value", f"The value is longer than {NEED_VALUE_MAX_LENGTH} characters.")
    return text


def question_with_values(question: str, values: list[str]) -> str:
    """The question with the given values quoted after it, where the route filler looks for a
    subject: the question keeps what it asked, the quotes say what it is about."""
    quoted = " ".join(f'"{v}"' for v in values)
    room = MAX_QUESTION_CHARS - len(quoted) - 1
    return f"{question[:room]} {quoted}"


def brief_needs_answer(*, owner: AbstractBaseUser, brief_id: int, values: list[object]) -> Brief:
    """A follow-up of a ``needs_input`` brief whose question carries the values it asked for,
    one per need, in order; run like any new brief."""
    original = Brief.objects.get(owner=owner, pk=brief_id)
    if original.outcome != BriefOutcome.NEEDS_INPUT or not original.needs:
        raise BriefInvalid("value", "This brief does not ask for a value.")
    if len(values) != len(original.needs):
        raise BriefInvalid("value", f"Give {len(original.needs)} values, one for each asked.")
    cleaned = [need_value_clean(v) for v in values]
    return brief_create(
        owner=owner,
        question=question_with_values(original.question, cleaned),
        follow_up_of=original.pk,
        offline=original.offline,
        language=_language_kept(original),
    )


def brief_delete(*, owner: AbstractBaseUser, brief_id: int) -> None:
    """Delete a brief; a running one is cancelled first so its worker stops writing."""
    brief = Brief.objects.get(owner=owner, pk=brief_id)
    if brief.status not in FINISHED_STATUSES:
        Brief.objects.filter(pk=brief.pk).update(cancel_requested=True)
    brief.delete()
