"""The profile's default brief language where no session carries it: the API's POST /briefs
and MCP's ``ask`` take it when the request names no language, as the dashboard's ask form
does; a language named still wins; no default (or a garbled one) leaves it to the question."""

import asyncio
import json

import pytest
from django.test import Client

from accounts.models import Profile
from briefs.models import Brief
from briefs.tokens.service import token_issue
from mcp_server.briefs_tools import ask
from mcp_server.caller import Caller
from mcp_server.tool import ToolCall

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

ENGLISH = "what is new on hacker news"


def api_ask(owner, body: dict) -> Brief:
    secret = token_issue(user=owner, name="test").secret
    response = Client().post(
        "/api/v1/briefs",
        json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert response.status_code == 202, response.content
    return Brief.objects.get(pk=response.json()["id"])


@pytest.mark.parametrize(
    ("default", "body", "language"),
    [
        ("zh-hans", {"question": ENGLISH}, "zh-hans"),
        ("zh-hans", {"question": ENGLISH, "language": "en"}, "en"),
        ("en", {"question": "36kr 今天有什么新闻"}, "en"),
        ("", {"question": "36kr 今天有什么新闻"}, "zh-hans"),
        ("klingon", {"question": ENGLISH}, "en"),  # a stored value the site does not write
        (None, {"question": ENGLISH}, "en"),  # no profile yet (an API-only reader)
    ],
)
def test_the_api_takes_the_profiles_brief_language(owner, default, body, language):
    if default is not None:
        Profile.objects.create(user=owner, brief_language=default)
    assert api_ask(owner, body).language == language


async def _noop(_seq: int, _line: str) -> None:
    return None


def mcp_ask(owner, arguments: dict) -> Brief:
    call = ToolCall(
        caller=Caller(user=owner, site_url="http://testserver"),
        arguments={**arguments, "offline": True, "wait_seconds": 0},
        progress=_noop,
    )
    answer = asyncio.run(ask(call))
    return Brief.objects.get(pk=answer.data["id"])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("default", "arguments", "language"),
    [
        ("zh-hans", {"question": ENGLISH}, "zh-hans"),
        ("zh-hans", {"question": ENGLISH, "language": "en"}, "en"),
        ("", {"question": "36kr 今天有什么新闻"}, "zh-hans"),
    ],
)
def test_mcp_ask_takes_the_profiles_brief_language(owner, default, arguments, language):
    Profile.objects.create(user=owner, brief_language=default)
    assert mcp_ask(owner, arguments).language == language
