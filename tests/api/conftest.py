"""Fixtures for the API: token-authenticated clients for the one world of users, briefs.

Settings the API reads with defaults (rates, quotas, webhook options) are pinned here so tests
do not depend on the project's values: generous rates, so only the throttle tests throttle.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from briefs.models import Brief
from briefs.tokens.service import token_issue
from tests import brief_examples
from tests.httpserver import ScriptedServer


@pytest.fixture(autouse=True)
def api_settings(settings):
    settings.API_THROTTLE_RATE = "100000/minute"
    settings.API_CREATE_THROTTLE_RATE = "100000/minute"
    settings.API_BRIEFS_PER_DAY = 1000
    settings.WEBHOOK_ALLOW_PRIVATE = False
    settings.WEBHOOK_TIMEOUT = 2.0
    settings.OPENAI_API_KEY = ""  # offline: no LLM quota unless a test turns it on
    cache.clear()  # throttle counts live in the cache
    yield settings
    cache.clear()


class ApiClient:
    """A Django test client that sends a bearer token and speaks JSON."""

    def __init__(self, secret: str | None = None, client: Client | None = None):
        self.secret = secret
        self.client = client or Client()

    def _headers(self, headers: dict[str, str] | None) -> dict[str, str]:
        base = {"Authorization": f"Bearer {self.secret}"} if self.secret else {}
        return {**base, **(headers or {})}

    def get(self, path: str, params: dict | None = None, headers: dict | None = None):
        return self.client.get(path, params or {}, headers=self._headers(headers))

    def post(self, path: str, data: Any = None, *, raw: bytes | None = None, **kw):
        body = raw if raw is not None else (b"" if data is None else json.dumps(data).encode())
        content_type = kw.pop("content_type", "application/json")
        headers = self._headers(kw.pop("headers", None))
        return self.client.post(path, body, content_type=content_type, headers=headers, **kw)

    def delete(self, path: str, headers: dict | None = None):
        return self.client.delete(path, headers=self._headers(headers))

    def generic(self, method: str, path: str, body: bytes = b"", headers: dict | None = None):
        return self.client.generic(
            method, path, body, content_type="application/json", headers=self._headers(headers)
        )


@pytest.fixture
def api_for():
    def make(user, **kw) -> ApiClient:
        return ApiClient(token_issue(user=user, name="test", **kw).secret)

    return make


@pytest.fixture
def api(owner, api_for) -> ApiClient:
    return api_for(owner)


@pytest.fixture
def other_api(other_user, api_for) -> ApiClient:
    return api_for(other_user)


@pytest.fixture
def staff_api(staff, api_for) -> ApiClient:
    return api_for(staff)


@pytest.fixture
def anon() -> ApiClient:
    return ApiClient()


@pytest.fixture
def make_brief():
    return brief_examples.make_brief


@pytest.fixture
def finished_brief(owner) -> Brief:
    return brief_examples.finished_brief(owner)


def error_of(response) -> dict:
    """The body of an error answer, after checking it has the API's one error shape."""
    body = response.json()
    assert set(body) == {"message", "extra"}, f"not the error shape: {body}"
    assert isinstance(body["message"], str) and body["message"], body
    assert isinstance(body["extra"], dict), body
    return body


@pytest.fixture
def receiver():
    with ScriptedServer() as server:
        yield server
