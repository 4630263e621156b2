"""A brief told again in another language, without fetching again.

The retelling is a brief of its own (``Brief.translation_of`` names the one it retells) so it
has a page, a share link, steps and a ``usage`` like any other. Its run
(``agent.retell``) reads the original's stored data, never RSSHub: the items it cited, its
coverage, its time window and its "as of"; everything the brief says is then written in the new
language as a new brief would be: offline, the framing, outcome texts, dates and coverage words
from those stored data; with a model, the sentences written anew in that language from the same
items, and the titles of items in another language translated (cached per item,
``agent.translate``).

One live retelling per brief and language (a constraint): a second reader asking for it, or the
same reader asking twice, gets the first, and no second model call is made. A retelling of a
retelling retells the original. It does not count against the daily quota of briefs: it fetches
nothing and at most one exists per brief and language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction

from briefs.errors import FieldInvalid
from briefs.language import brief_locale, language_clean
from briefs.models import Brief, BriefStatus
from briefs.services import BriefInvalid, brief_enqueue
from briefs.steps import step_append

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

GIVEN_UP = (BriefStatus.FAILED, BriefStatus.CANCELLED)


def brief_translate(*, owner: AbstractBaseUser, brief_id: int, language: object) -> Brief:
    """The owner's brief retold in ``language`` (``en`` or ``zh-hans``): the live retelling
    when there is one, else a new queued one; the brief itself when it is already in that
    language. ``Brief.DoesNotExist`` for another's brief; ``BriefInvalid`` for an unknown
    language or a brief that has not succeeded."""
    try:
        target = language_clean(language)
    except FieldInvalid as exc:
        raise BriefInvalid(exc.field, exc.message) from None
    if not target:
        raise BriefInvalid("language", "Name the language: en or zh-hans.")
    brief = Brief.objects.select_related("translation_of").get(owner=owner, pk=brief_id)
    original = brief.translation_of or brief
    if original.status != BriefStatus.SUCCEEDED:
        raise BriefInvalid("brief", "Only a finished brief can be told in another language.")
    if brief_locale(original.language) == target:
        return original
    return _live_retelling(original, target) or _retelling_create(original, target)


def _live_retelling(original: Brief, target: str) -> Brief | None:
    rows = Brief.objects.filter(translation_of=original, language=target)
    return rows.exclude(status__in=GIVEN_UP).first()


def _retelling_create(original: Brief, target: str) -> Brief:
    try:
        with transaction.atomic():
            brief = Brief.objects.create(
                owner_id=original.owner_id,
                question=original.question,
                follow_up_of_id=original.follow_up_of_id,
                offline=original.offline,
                language=target,
                translation_of=original,
            )
            payload = {"offline": original.offline, "translation_of": original.pk}
            step_append(brief_id=brief.pk, kind="brief_queued", payload=payload)
            brief_enqueue(brief)
    except IntegrityError:  # another request made it first: the constraint decided
        found = _live_retelling(original, target)
        if found is None:
            raise
        return found
    return brief
