"""A model call's admission: the breaker and the budget in one UPDATE when the breaker is closed
and the day's budget has room; the breaker's and the budget's own rules otherwise."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agent.llm.admission import ADMITTED, REFUSED_BREAKER, REFUSED_BUDGET, call_admit
from briefs.models import LLMBreaker, TokenUsage

pytestmark = pytest.mark.django_db
KEY = "http://127.0.0.1:9/v1|router-model"


@pytest.fixture
def budget(settings):
    settings.LLM_DAILY_TOKEN_BUDGET = 1000
    return 1000


def admit(owner, tokens: int, *, now=None) -> str:
    now = now or timezone.now()
    return call_admit(key=KEY, user_id=owner.pk, tokens=tokens, day=now.date(), now=now)


def spent(owner) -> int:
    return TokenUsage.objects.get(user=owner).tokens


def checks(queries) -> list[str]:
    """The statements that read or write data (not transaction control or SET LOCAL)."""
    control = ("SAVEPOINT", "RELEASE", "SET ", "ROLLBACK")
    return [q["sql"].split()[0] for q in queries if not q["sql"].startswith(control)]


def test_a_closed_breaker_and_room_are_one_statement(owner, budget):
    assert admit(owner, 100) == ADMITTED  # the day's first call makes the day's row
    LLMBreaker.objects.create(key=KEY, consecutive_failures=2)  # failing, still closed

    with CaptureQueriesContext(connection) as queries:
        assert admit(owner, 300) == ADMITTED

    assert checks(queries.captured_queries) == ["UPDATE"], "one round trip decides both"
    assert spent(owner) == 400


def test_an_open_breaker_refuses_and_reserves_nothing(owner, budget):
    admit(owner, 100)
    LLMBreaker.objects.create(
        key=KEY, consecutive_failures=3, open_until=timezone.now() + timedelta(minutes=1)
    )

    assert admit(owner, 100) == REFUSED_BREAKER
    assert spent(owner) == 100


def test_a_spent_budget_refuses(owner, budget):
    assert admit(owner, 900) == ADMITTED

    assert admit(owner, 101) == REFUSED_BUDGET
    assert admit(owner, 100) == ADMITTED, "exactly the budget fits"
    assert admit(owner, 1001, now=timezone.now() + timedelta(days=1)) == REFUSED_BUDGET
    assert spent(owner) == 1000


def test_a_half_open_breaker_admits_one_probe_with_its_reservation(owner, budget):
    now = timezone.now()
    admit(owner, 100, now=now)
    LLMBreaker.objects.create(key=KEY, consecutive_failures=3, open_until=now)

    assert [admit(owner, 100, now=now), admit(owner, 100, now=now)] == [ADMITTED, REFUSED_BREAKER]
    assert LLMBreaker.objects.get(key=KEY).probe_at == now
    assert spent(owner) == 200
