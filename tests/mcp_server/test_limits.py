"""The briefs' admission (quota, per-minute throttle, token budget) holds for MCP calls, counted
in the same buckets as the API's: the SDK's client talks to the server in process, acting as one
user (as over stdio). The request throttle counts HTTP requests: ``test_request_throttle``."""

import anyio
import pytest
from django.test import Client as DjangoClient
from mcp import Client

from briefs.models import Brief, TokenUsage
from briefs.quotas import quota_day
from briefs.tokens.service import token_issue
from mcp_server.caller import Caller
from mcp_server.server import build_server

pytestmark = pytest.mark.django_db(transaction=True)


def calls(user, *batch: tuple[str, dict]):
    async def go():
        async with Client(build_server(caller=Caller(user=user, site_url="http://t")),
                          cache=None) as client:  # fmt: skip
            return [await client.call_tool(name, args) for name, args in batch]

    return anyio.run(go)


def ask(question: str, **extra) -> tuple[str, dict]:
    return "ask", {"question": question, "offline": True, "wait_seconds": 0, **extra}


def test_the_creation_throttle_counts_api_posts_and_mcp_asks_together(owner, settings):
    settings.API_CREATE_THROTTLE_RATE = "2/minute"
    secret = token_issue(user=owner, name="api").secret
    response = DjangoClient().post(
        "/api/v1/briefs", {"question": "api news", "offline": True},
        content_type="application/json", headers={"Authorization": f"Bearer {secret}"},
    )  # fmt: skip
    assert response.status_code == 202
    first, second = calls(owner, ask("mcp news"), ask("more mcp news"))
    assert not first.is_error
    assert second.is_error
    assert second.content[0].text.startswith("At most 2 briefs a minute; retry in a moment.")
    assert second.structured_content["extra"]["quota"] == "briefs_per_minute"
    assert second.structured_content["extra"]["retry_after"] >= 1
    assert Brief.objects.filter(owner=owner).count() == 2


def test_spent_model_tokens_refuse_a_model_brief_but_not_an_offline_one(owner, settings):
    settings.OPENAI_API_KEY = "sk-test-not-used"
    settings.LLM_DAILY_TOKEN_BUDGET = 1000
    TokenUsage.objects.create(user=owner, day=quota_day(), tokens=1000)
    model, offline = calls(owner, ask("model news", offline=False), ask("offline news"))
    assert model.is_error
    assert model.content[0].text.startswith(
        "Today's LLM tokens are spent; ask with offline=true, or retry tomorrow."
    )
    assert model.structured_content["extra"]["quota"] == "llm_tokens_per_day"
    assert not offline.is_error
    assert list(Brief.objects.values_list("question", flat=True)) == ["offline news"]


def test_the_daily_quota_counts_api_and_mcp_briefs_together(owner, settings):
    settings.API_BRIEFS_PER_DAY = 1
    first, second = calls(owner, ask("one"), ask("two"))
    assert not first.is_error
    assert second.content[0].text.startswith("The quota of 1 briefs a day is spent.")
    secret = token_issue(user=owner, name="api").secret
    response = DjangoClient().post(
        "/api/v1/briefs", {"question": "three", "offline": True},
        content_type="application/json", headers={"Authorization": f"Bearer {secret}"},
    )  # fmt: skip
    assert response.status_code == 429
    assert response.json()["message"].startswith("The quota of 1 briefs a day is spent.")
