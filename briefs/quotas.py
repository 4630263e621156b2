"""A user's limits and what is used of them: briefs per UTC day, briefs per minute, forced
refreshes per hour, and LLM tokens per UTC day. ``briefs.admission`` applies them.

Briefs per day: one counter row per user and day (``BriefQuotaDay``), taken under that row's lock
in the transaction that inserts the briefs (``briefs.admission``). Briefs per minute and forced
refreshes per hour are counted from the briefs themselves (``Brief.created_at``, indexed with the
owner), read after the lock, so concurrent requests see each other's committed briefs.

LLM tokens: the daily budget is ``LLM_DAILY_TOKEN_BUDGET``, reserved atomically before each
model call by ``agent.llm.budget`` (a conditional UPDATE on ``TokenUsage``), which is where it
is enforced. Admission adds an early refusal: a brief that would use the model is refused once
the day's tokens are spent, instead of being silently answered offline; ``offline=True`` briefs
are still accepted.

Staff set limits per user or per group (``UsageLimits``); a blank field keeps the setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils.translation import gettext as _
from rest_framework.throttling import SimpleRateThrottle

from briefs.models import BriefQuotaDay, TokenUsage, UsageLimits

DEFAULT_BRIEFS_PER_DAY = 200
DEFAULT_FORCED_REFRESHES_PER_HOUR = 10
QUOTA_BRIEFS = "briefs_per_day"
QUOTA_LLM_TOKENS = "llm_tokens_per_day"
QUOTA_THROTTLE = "briefs_per_minute"
LIMIT_FIELDS = ("briefs_per_day", "briefs_per_minute", "forced_refreshes_per_hour")


class QuotaExceeded(Exception):
    """The one refusal of a new brief, whatever the way in: a daily quota is spent or the
    per-minute throttle is reached. ``retry_after`` is the number of seconds until it clears;
    ``message`` is English (the API's), ``reader_message()`` the reader's language."""

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

    def reader_message(self) -> str:
        """The message in the active language (the dashboard's, a watch page's)."""
        if self.quota == QUOTA_LLM_TOKENS:
            return _("Today's model tokens are spent: ask offline, or try again tomorrow.")
        if self.quota == QUOTA_THROTTLE:
            return _("At most %(limit)d briefs a minute: try again in %(seconds)d seconds.") % {
                "limit": self.limit,
                "seconds": self.retry_after,
            }
        return _("The quota of %(limit)d briefs a day is spent: try again tomorrow.") % {
            "limit": self.limit
        }


def quota_reason(quota: str) -> str:
    """Which limit refused, in the reader's language (a skipped watch run's page)."""
    if quota == QUOTA_LLM_TOKENS:
        return _("today's model tokens were spent")
    if quota == QUOTA_THROTTLE:
        return _("more briefs a minute were started than your limit")
    return _("your quota of briefs a day was spent")


@dataclass(frozen=True)
class Limits:
    """One user's limits, as staff set them or the settings say."""

    briefs_per_day: int
    briefs_per_minute: int
    minute_seconds: int  # the throttle's window: a minute unless the rate names another period
    forced_refreshes_per_hour: int


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


UNLIMITED = 2**31 - 1


def briefs_rate() -> tuple[int, int]:
    """``API_CREATE_THROTTLE_RATE`` ("30/minute") as (briefs, seconds); None (as DRF reads it:
    no throttle) admits any number."""
    rate = settings.API_CREATE_THROTTLE_RATE
    if not rate:
        return UNLIMITED, 60
    count, seconds = SimpleRateThrottle.parse_rate(None, rate)
    return count, seconds


def llm_tokens_per_day() -> int:
    return settings.LLM_DAILY_TOKEN_BUDGET


def limits_of(user_id: int) -> Limits:
    """The user's limits: their own ``UsageLimits`` field by field, else the most generous of
    their groups', else the settings. One query."""
    rows = list(UsageLimits.objects.filter(Q(user_id=user_id) | Q(group__user__id=user_id)))
    own = next((r for r in rows if r.user_id == user_id), None)

    def pick(field: str, default: int) -> int:
        if own is not None and getattr(own, field) is not None:
            return getattr(own, field)
        values = [getattr(r, field) for r in rows if r.group_id and getattr(r, field) is not None]
        return max(values, default=default)

    per_minute, seconds = briefs_rate()
    return Limits(
        briefs_per_day=pick("briefs_per_day", briefs_per_day()),
        briefs_per_minute=pick("briefs_per_minute", per_minute),
        minute_seconds=seconds,
        forced_refreshes_per_hour=pick(
            "forced_refreshes_per_hour",
            getattr(settings, "FORCED_REFRESHES_PER_HOUR", DEFAULT_FORCED_REFRESHES_PER_HOUR),
        ),
    )


def quota_day(now: datetime | None = None) -> date:
    return (now or datetime.now(UTC)).astimezone(UTC).date()


def quota_resets_at(day: date) -> datetime:
    return datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)


def llm_tokens_used(*, user_id: int, day: date) -> int:
    row = TokenUsage.objects.filter(user_id=user_id, day=day).values_list("tokens", flat=True)
    return row.first() or 0


def quota_state(*, user_id: int) -> QuotaState:
    day = quota_day()
    used = BriefQuotaDay.objects.filter(user_id=user_id, day=day).values_list("count", flat=True)
    return QuotaState(
        day=day,
        resets_at=quota_resets_at(day),
        briefs_limit=limits_of(user_id).briefs_per_day,
        briefs_used=used.first() or 0,
        llm_tokens_limit=llm_tokens_per_day(),
        llm_tokens_used=llm_tokens_used(user_id=user_id, day=day),
    )
