"""What a model call checks before it goes out, in one round trip when all is well.

A call may go out when its endpoint's breaker admits it (``breaker``) and the user's daily budget
has room for its estimate, which is then reserved (``budget``). Checked one after the other that
is a SELECT and an UPDATE, each a round trip, on every call. In the common case (the breaker
closed, the day's budget row there and with room) one conditional UPDATE decides both: it
reserves the tokens only while no ``LLMBreaker`` row of the endpoint is open. Anything else (an
open or half-open breaker and its probe, the day's first call, a spent budget) takes the long
way through the breaker's and the budget's own rules, which stay the only definitions of them.
The reservation's commit does not wait for the WAL flush (``briefs.steps``): it is settled
within the run, whose final write is flushed.
"""

from datetime import date, datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F

from agent.llm.breaker import breaker_admit
from agent.llm.budget import budget_reserve
from briefs.models import LLMBreaker, TokenUsage
from briefs.steps import commit_without_flush_wait

ADMITTED = ""
REFUSED_BREAKER = "breaker"
REFUSED_BUDGET = "budget"


def call_admit(*, key: str, user_id: int, tokens: int, day: date, now: datetime) -> str:
    """``ADMITTED`` with ``tokens`` reserved, or what refused the call (nothing reserved then;
    a half-open probe this call claimed is the caller's to give back)."""
    budget = settings.LLM_DAILY_TOKEN_BUDGET
    if tokens <= budget:
        open_breaker = LLMBreaker.objects.filter(key=key, open_until__isnull=False)
        room = TokenUsage.objects.filter(user_id=user_id, day=day, tokens__lte=budget - tokens)
        with transaction.atomic():
            commit_without_flush_wait()  # settled within the run (see there)
            reserved = room.filter(~Exists(open_breaker)).update(tokens=F("tokens") + tokens)
        if reserved:
            return ADMITTED
    if not breaker_admit(key, now=now):
        return REFUSED_BREAKER
    if not budget_reserve(user_id=user_id, tokens=tokens, day=day):
        return REFUSED_BUDGET
    return ADMITTED
