"""One admission rule for every way a brief starts: the dashboard's ask, rerun, follow-up and
needs_input answer, the API's create and rerun, the MCP tools, a watch run by its schedule or by
"run now". Each goes through ``briefs_admit`` in the transaction that inserts its briefs, and a
refusal is one error, ``QuotaExceeded`` (the API's 429 with ``Retry-After``, the dashboard's
message in the reader's language, the MCP tool error).

What it applies, in this order, for each brief asked:

- the model token budget: a brief that would use the model is refused once the day's tokens are
  spent (``offline`` briefs are not);
- the daily brief quota (``BriefQuotaDay``);
- the per-minute throttle: briefs created in the last minute, every way in together;
- the forced-refresh budget: ``refresh`` is granted ``forced_refreshes_per_hour`` times an hour;
  past it the brief still runs, served from the freshness window, and its first step says so.

Why a row lock and not the conditional ``UPDATE count = count + 1 WHERE count < limit`` alone:
the throttle and the refresh budget are counted from the briefs themselves, which a concurrent
request may be inserting. Every admission of one user first locks their day's quota row
(``SELECT ... FOR UPDATE``), so the counts it reads after the lock include the briefs of every
admission that went before (PostgreSQL's READ COMMITTED reads each statement afresh), and the
increment it writes is final when it commits. A brief that then fails validation rolls its slot
back with it. A watch dispatch admits one user's due watches in one go, under one lock.

Deleting a brief gives back nothing of the day's quota (the counter row is what counts), but it
does leave the per-minute count: a minute later that is moot.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Count, Min
from django.utils import timezone

from briefs import services
from briefs.agent_hooks import agent_hooks
from briefs.language import interface_language
from briefs.models import Brief, BriefQuotaDay
from briefs.quotas import (
    QUOTA_BRIEFS,
    QUOTA_LLM_TOKENS,
    QUOTA_THROTTLE,
    Limits,
    QuotaExceeded,
    limits_of,
    llm_tokens_per_day,
    llm_tokens_used,
    quota_day,
    quota_resets_at,
)

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

REFRESH_HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class Ask:
    """One brief asked for: whether it runs offline, and whether it asks a forced refresh."""

    offline: bool = False
    refresh: bool = False


@dataclass(frozen=True)
class Admitted:
    """A brief admitted; ``refresh`` is whether its forced refresh is granted."""

    refresh: bool
    refresh_limited: bool  # asked for one and was refused it (the hourly budget is spent)


@dataclass
class _Counts:
    """What one user has used, read under the lock on their day's row."""

    limits: Limits
    now: datetime
    day_used: int
    minute_used: int
    minute_oldest: datetime | None
    refreshes_used: int
    tokens_spent: bool


def _day_row_locked(user_id: int, day) -> BriefQuotaDay:
    rows = BriefQuotaDay.objects.select_for_update()
    row = rows.filter(user_id=user_id, day=day).first()
    if row is None:  # the day's first brief; a racing creator of the row is fine
        BriefQuotaDay.objects.bulk_create(
            [BriefQuotaDay(user_id=user_id, day=day)], ignore_conflicts=True
        )
        row = rows.get(user_id=user_id, day=day)
    return row


def _counts(user_id: int, row: BriefQuotaDay, asks: list[Ask]) -> _Counts:
    limits, now = limits_of(user_id), timezone.now()
    mine = Brief.objects.filter(owner_id=user_id)
    minute = mine.filter(created_at__gt=now - timedelta(seconds=limits.minute_seconds))
    recent = minute.aggregate(n=Count("id"), oldest=Min("created_at"))
    refreshes = 0
    if any(a.refresh for a in asks):
        refreshes = mine.filter(refresh=True, created_at__gt=now - REFRESH_HOUR).count()
    tokens_spent = False
    if any(not a.offline for a in asks) and agent_hooks().llm_configured():
        tokens_spent = llm_tokens_used(user_id=user_id, day=row.day) >= llm_tokens_per_day()
    return _Counts(limits, now, row.count, recent["n"], recent["oldest"], refreshes, tokens_spent)


def _refusal(quota: str, counts: _Counts) -> QuotaExceeded:
    limits, day_ends = counts.limits, quota_resets_at(quota_day(counts.now))
    if quota == QUOTA_LLM_TOKENS:
        budget = llm_tokens_per_day()
        message = "Today's LLM tokens are spent; ask with offline=true, or retry tomorrow."
        return QuotaExceeded(
            quota=quota, limit=budget, used=budget, resets_at=day_ends, message=message
        )
    if quota == QUOTA_THROTTLE:
        limit, oldest = limits.briefs_per_minute, counts.minute_oldest or counts.now
        message = f"At most {limit} briefs a minute; retry in a moment."
        clears = oldest + timedelta(seconds=limits.minute_seconds)
        return QuotaExceeded(
            quota=quota, limit=limit, used=limit, resets_at=clears, message=message
        )
    limit = limits.briefs_per_day
    message = f"The quota of {limit} briefs a day is spent."
    return QuotaExceeded(quota=quota, limit=limit, used=limit, resets_at=day_ends, message=message)


def _admit_one(ask: Ask, counts: _Counts) -> Admitted | QuotaExceeded:
    limits = counts.limits
    if not ask.offline and counts.tokens_spent:
        return _refusal(QUOTA_LLM_TOKENS, counts)
    if counts.day_used >= limits.briefs_per_day:
        return _refusal(QUOTA_BRIEFS, counts)
    if counts.minute_used >= limits.briefs_per_minute:
        return _refusal(QUOTA_THROTTLE, counts)
    counts.day_used += 1
    counts.minute_used += 1
    counts.minute_oldest = counts.minute_oldest or counts.now
    granted = ask.refresh and counts.refreshes_used < limits.forced_refreshes_per_hour
    counts.refreshes_used += granted
    return Admitted(refresh=granted, refresh_limited=ask.refresh and not granted)


def briefs_admit(*, user_id: int, asks: list[Ask]) -> list[Admitted | QuotaExceeded]:
    """Admit each of ``asks`` of one user, in order: an ``Admitted`` or the refusal, for each.
    Must run inside the transaction that creates the admitted briefs (their slots are taken
    here and given back if it rolls back)."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("briefs_admit must run inside the transaction creating the briefs")
    row = _day_row_locked(user_id, quota_day())
    counts = _counts(user_id, row, asks)
    answers = [_admit_one(ask, counts) for ask in asks]
    if counts.day_used != row.count:
        BriefQuotaDay.objects.filter(pk=row.pk).update(count=counts.day_used)
    return answers


def brief_admit(*, user_id: int, offline: bool, refresh: bool = False) -> Admitted:
    """Admit one brief, or raise its ``QuotaExceeded``; inside the creating transaction."""
    [answer] = briefs_admit(user_id=user_id, asks=[Ask(offline=offline, refresh=refresh)])
    if isinstance(answer, QuotaExceeded):
        raise answer
    return answer


# --- The ways in ---------------------------------------------------------------------------------


def brief_ask(
    *,
    owner: AbstractBaseUser,
    question: object,
    follow_up_of: int | None = None,
    offline: bool = False,
    refresh: bool = False,
    language: object = "",
    interface: str | None = None,
) -> Brief:
    """A new brief (dashboard, API, MCP ``ask``): ``QuotaExceeded``, ``BriefInvalid``.
    ``language`` and ``interface``: the reader's choice and interface (``briefs.language``)."""
    with transaction.atomic():
        admitted = brief_admit(user_id=owner.pk, offline=offline, refresh=refresh)
        return services.brief_create(
            owner=owner, question=question, follow_up_of=follow_up_of, offline=offline,
            refresh=admitted.refresh, refresh_limited=admitted.refresh_limited,
            language=language, interface=interface,
        )  # fmt: skip


def brief_follow_up(
    *, owner: AbstractBaseUser, brief_id: int, question: object, interface: str | None = None
) -> Brief:
    """A follow-up of the owner's brief ``brief_id`` (``Brief.DoesNotExist`` for anyone
    else's), run as its thread was: offline when it was. ``interface``: the reader's, for the
    language (``briefs.language``)."""
    offline = Brief.objects.values_list("offline", flat=True).get(owner=owner, pk=brief_id)
    return brief_ask(
        owner=owner, question=question, follow_up_of=brief_id, offline=offline, interface=interface
    )


def brief_rerun(*, owner: AbstractBaseUser, brief_id: int) -> Brief:
    """The owner's brief asked again, thread, mode and forced refresh alike
    (``Brief.DoesNotExist`` for others')."""
    original = Brief.objects.get(owner=owner, pk=brief_id)
    return brief_ask(
        owner=owner, question=original.question, follow_up_of=original.follow_up_of_id,
        offline=original.offline, refresh=original.refresh,
        language=interface_language(original.language) if original.language else "",
    )  # fmt: skip


def brief_needs_answer(*, owner: AbstractBaseUser, brief_id: int, values: list[object]) -> Brief:
    """The values a needs_input brief asked for, as a follow-up brief that carries them."""
    original = Brief.objects.get(owner=owner, pk=brief_id)
    with transaction.atomic():
        brief_admit(user_id=owner.pk, offline=original.offline)
        return services.brief_needs_answer(owner=owner, brief_id=brief_id, values=values)
