"""Every MCP request over HTTP counts against its token owner's API request throttle, whatever it
asks (``initialize``, ``tools/list``, ``resources/list``, ``resources/read``, a tool call): past the
rate it is a 429 with ``Retry-After`` before the SDK sees it. The ASGI app runs in process."""

import anyio
import httpx
import pytest

from briefs.tokens.service import token_issue
from mcp_server.http import McpHttpApp
from mcp_server.server import build_server

pytestmark = pytest.mark.django_db(transaction=True)

URL = "http://localhost/mcp/"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "raw", "version": "0"},
}
REQUESTS = {
    "initialize": INITIALIZE,
    "tools/list": {},
    "resources/list": {},
    "resources/read": {"uri": "rsshub-agent://briefs/1"},
    "tools/call": {"name": "list_briefs", "arguments": {}},
}


def posts(secret: str, methods: list[str]) -> list[httpx.Response]:
    async def go():
        transport = httpx.ASGITransport(app=McpHttpApp(build_server()))
        headers = {**ACCEPT, "Authorization": f"Bearer {secret}"}
        async with httpx.AsyncClient(transport=transport, headers=headers) as http:
            return [
                await http.post(URL, json={"jsonrpc": "2.0", "id": n, "method": m,
                                           "params": REQUESTS[m]})
                for n, m in enumerate(methods, start=1)
            ]  # fmt: skip

    return anyio.run(go)


@pytest.mark.parametrize("last", list(REQUESTS))
def test_every_kind_of_request_counts_and_is_refused_past_the_rate(owner, settings, last):
    settings.API_THROTTLE_RATE = "4/minute"
    others = [m for m in REQUESTS if m != last]
    answers = posts(token_issue(user=owner, name="mcp").secret, [*others, last])
    assert [r.status_code for r in answers[:4]] == [200] * 4, [r.text for r in answers]
    refused = answers[4]
    assert refused.status_code == 429, f"{last} past the rate was served"
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.json()["error"]["message"].startswith("Request was throttled.")


def test_the_request_throttle_is_per_user(owner, other_user, settings):
    settings.API_THROTTLE_RATE = "1/minute"
    mine = posts(token_issue(user=owner, name="mcp").secret, ["tools/list", "tools/list"])
    theirs = posts(token_issue(user=other_user, name="mcp").secret, ["tools/list"])
    assert [r.status_code for r in mine] == [200, 429]
    assert theirs[0].status_code == 200, "one user's requests throttled another"
