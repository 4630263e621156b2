"""Per-user daily token budget: reserve an estimate atomically before a call, settle after it."""

import json
from datetime import date
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F

from briefs.models import TokenUsage
from briefs.steps import commit_without_flush_wait


def budget_reserve(*, user_id: int, tokens: int, day: date) -> bool:
    """Atomically reserve ``tokens`` of the user's budget for ``day``; False when it would not fit.

    One conditional UPDATE decides (``tokens <= budget - estimate``), so concurrent callers can
    never admit more than the budget together. The day's row is created on first use.
    """
    budget = settings.LLM_DAILY_TOKEN_BUDGET
    if tokens > budget:
        return False
    fits = TokenUsage.objects.filter(user_id=user_id, day=day, tokens__lte=budget - tokens)
    if fits.update(tokens=F("tokens") + tokens):
        return True
    # No row yet, or no room: create the row if missing (a racing creator is fine), try once more.
    TokenUsage.objects.bulk_create([TokenUsage(user_id=user_id, day=day)], ignore_conflicts=True)
    return fits.update(tokens=F("tokens") + tokens) == 1


def budget_settle(*, user_id: int, day: date, reserved: int, spent: int) -> None:
    """Replace a reservation by the tokens really spent, and count the call. The commit does
    not wait for the WAL flush (``briefs.steps.commit_without_flush_wait``)."""
    with transaction.atomic():
        commit_without_flush_wait()
        TokenUsage.objects.filter(user_id=user_id, day=day).update(
            tokens=F("tokens") + (spent - reserved), calls=F("calls") + 1
        )


def estimate_tokens(payload: Any) -> int:
    """A deliberately high token estimate: UTF-8 bytes / 3 (about 1 per CJK character, 1.3x
    English), so a reservation rarely falls short of the real prompt."""
    return len(json.dumps(payload, ensure_ascii=False, default=str).encode()) // 3 + 1
