"""Per-user daily quotas: briefs per UTC day, and LLM tokens per UTC day.

Briefs: one counter row per user and day (``BriefQuotaDay``). A brief takes its slot with one
conditional ``UPDATE ... SET count = count + 1 WHERE count < limit`` in the same transaction
that inserts the brief. Concurrent requests at the edge queue on that row's lock and PostgreSQL
re-checks ``count < limit`` against the committed value, so exactly ``limit`` are admitted; a
brief that then fails validation rolls its slot back with it.

LLM tokens: the daily budget is ``LLM_DAILY_TOKEN_BUDGET``, reserved atomically before each
model call by ``agent.llm.budget`` (a conditional UPDATE on ``TokenUsage``), which is where it
is enforced. Creation adds an early refusal: a brief that would use the model is refused once
the day's tokens are spent, instead of being silently answered offline; ``offline=True`` briefs
are still accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.db.models import F

from agent.llm import llm_configured
from briefs.models import Brief, BriefQuotaDay, TokenUsage
from briefs.services import brief_create, brief_rerun

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

DEFAULT_BRIEFS_PER_DAY = 200
QUOTA_BRIEFS = "briefs_per_day"
QUOTA_LLM_TOKENS = "llm_tokens_per_day"


class QuotaExceeded(Exception):
    """A daily quota is spent; ``retry_after`` is the number of seconds until it resets."""

    def __init__(self, *, quota: str, limit: int, used: int, resets_at: datetime, message: str):
        super().__init__(message)
        self.quota = quota
        self.limit = limit
        self.used = used
        self.resets_at = resets_at
        self.message = message

    @property
    def retry_after(self) -> int:
        seconds = (self.resets_at - datetime.now(UTC)).total_seconds()
        return max(1, int(seconds) + 1)


@dataclass(frozen=True)
class QuotaState:
    day: date
    resets_at: datetime
    briefs_limit: int
    briefs_used: int
    llm_tokens_limit: int
    llm_tokens_used: int


def briefs_per_day() -> int:
    return getattr(settings, "API_BRIEFS_PER_DAY", DEFAULT_BRIEFS_PER_DAY)


def llm_tokens_per_day() -> int:
    return settings.LLM_DAILY_TOKEN_BUDGET


def quota_day(now: datetime | None = None) -> date:
    return (now or datetime.now(UTC)).astimezone(UTC).date()


def quota_resets_at(day: date) -> datetime:
    return datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)


def quota_brief_take(*, user_id: int, day: date, limit: int) -> bool:
    """Take one of the day's ``limit`` brief slots; False when none is left.

    Call inside the transaction that creates the brief: the row lock taken here is what
    serialises concurrent requests at the edge."""
    fits = BriefQuotaDay.objects.filter(user_id=user_id, day=day, count__lt=limit)
    if fits.update(count=F("count") + 1):
        return True
    # No row yet, or no room. A racing creator of the row is fine (the conflict waits for it).
    BriefQuotaDay.objects.bulk_create(
        [BriefQuotaDay(user_id=user_id, day=day)], ignore_conflicts=True
    )
    return fits.update(count=F("count") + 1) == 1


def llm_tokens_used(*, user_id: int, day: date) -> int:
    row = TokenUsage.objects.filter(user_id=user_id, day=day).values_list("tokens", flat=True)
    return row.first() or 0


def quota_state(*, user_id: int) -> QuotaState:
    day = quota_day()
    used = BriefQuotaDay.objects.filter(user_id=user_id, day=day).values_list("count", flat=True)
    return QuotaState(
        day=day,
        resets_at=quota_resets_at(day),
        briefs_limit=briefs_per_day(),
        briefs_used=used.first() or 0,
        llm_tokens_limit=llm_tokens_per_day(),
        llm_tokens_used=llm_tokens_used(user_id=user_id, day=day),
    )


def _quota_take(*, owner: AbstractBaseUser, offline: bool) -> None:
    day = quota_day()
    if not offline and llm_configured():
        spent, budget = llm_tokens_used(user_id=owner.pk, day=day), llm_tokens_per_day()
        if spent >= budget:
            raise QuotaExceeded(
                quota=QUOTA_LLM_TOKENS,
                limit=budget,
                used=spent,
                resets_at=quota_resets_at(day),
                message="Today's LLM tokens are spent; ask with offline=true, or retry tomorrow.",
            )
    limit = briefs_per_day()
    if not quota_brief_take(user_id=owner.pk, day=day, limit=limit):
        raise QuotaExceeded(
            quota=QUOTA_BRIEFS,
            limit=limit,
            used=limit,
            resets_at=quota_resets_at(day),
            message=f"The quota of {limit} briefs a day is spent.",
        )


def quota_take(*, owner, offline: bool) -> None:
    """Take one of today's brief slots for a brief created another way (a watch run on demand):
    ``QuotaExceeded`` when none is left. Call inside the transaction that creates the brief."""
    _quota_take(owner=owner, offline=offline)


def brief_create_limited(
    *,
    owner: AbstractBaseUser,
    question: object,
    follow_up_of: int | None = None,
    offline: bool = False,
    refresh: bool = False,
) -> Brief:
    """``brief_create`` within the owner's daily quotas: ``QuotaExceeded``, ``BriefInvalid``."""
    with transaction.atomic():
        _quota_take(owner=owner, offline=offline)
        return brief_create(
            owner=owner, question=question, follow_up_of=follow_up_of, offline=offline,
            refresh=refresh,
        )  # fmt: skip


def brief_rerun_limited(*, owner: AbstractBaseUser, brief_id: int) -> Brief:
    """``brief_rerun`` within the owner's daily quotas (``Brief.DoesNotExist`` for others')."""
    with transaction.atomic():
        offline = Brief.objects.values_list("offline", flat=True).get(owner=owner, pk=brief_id)
        _quota_take(owner=owner, offline=offline)
        return brief_rerun(owner=owner, brief_id=brief_id)
