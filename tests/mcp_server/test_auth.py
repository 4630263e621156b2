"""No anonymous access: every request to /mcp/ needs a live API token, checked as the REST API
checks it, and a refusal is a 401 whose JSON-RPC error says why."""

import anyio
import httpx
import pytest

from tests.mcp_server.clients import MODES, mcp_error_in, over_http

pytestmark = pytest.mark.postgres

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
UNKNOWN = "rsa_" + "A" * 43
REFUSALS = [
    (None, "Authentication credentials were not provided."),
    (f"Bearer {UNKNOWN}", "Invalid token."),
    ("Bearer {revoked}", "This token has been revoked."),
    ("Bearer rsa_short", "Malformed token: expected rsa_ followed by 43 characters."),
    ("Basic YWxpY2U6cGFzcw==", "Unsupported Authorization scheme: use 'Bearer <token>'."),
    ("Bearer", "The Authorization header holds no token."),
]


@pytest.mark.parametrize(("header", "message"), REFUSALS)
def test_a_request_without_a_live_token_is_a_401_saying_why(stack, header, message):
    headers = dict(ACCEPT)
    if header is not None:
        headers["Authorization"] = header.format(revoked=stack.secrets["revoked"])
    response = httpx.post(stack.url, json=INITIALIZE, headers=headers, timeout=10)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Bearer realm="mcp"'
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": message},
    }
    assert "mcp-session-id" not in response.headers


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_every_method_needs_the_token(stack, method):
    response = httpx.request(method, stack.url, headers=ACCEPT, timeout=10)
    assert response.status_code == 401


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT", "OPTIONS"])
def test_with_a_token_only_post_is_served_no_stream_is_held_open(stack, method):
    headers = {**ACCEPT, "Authorization": f"Bearer {stack.secrets['alice']}"}
    response = httpx.request(method, stack.url, headers=headers, timeout=10)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json()["error"]["message"] == "Method not allowed: send POST."


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("token", "message"),
    [(None, REFUSALS[0][1]), (UNKNOWN, "Invalid token."), ("revoked", REFUSALS[2][1])],
)
def test_the_sdk_client_cannot_connect_without_a_live_token(stack, mode, token, message):
    secret = stack.secrets.get(token, token)

    async def go():
        with pytest.raises(Exception) as refused:
            async with over_http(stack.url, secret, mode=mode):
                pass
        return refused.value

    error = mcp_error_in(anyio.run(go))
    assert error is not None and error.message == message


def test_a_live_token_is_served(stack):
    headers = {**ACCEPT, "Authorization": f"Bearer {stack.secrets['alice']}"}
    response = httpx.post(stack.url, json=INITIALIZE, headers=headers, timeout=10)
    assert response.status_code == 200
    assert "serverInfo" in response.text
    assert response.headers["x-content-type-options"] == "nosniff"


def test_a_host_not_allowed_is_refused_before_the_token_is_read(stack):
    headers = {**ACCEPT, "Host": "evil.example", "Authorization": f"Bearer {UNKNOWN}"}
    response = httpx.post(stack.url, json=INITIALIZE, headers=headers, timeout=10)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "Invalid Host header."


def test_other_paths_are_still_djangos(stack):
    response = httpx.get(f"{stack.site}/mcp/other", timeout=10)
    assert response.status_code == 404
    assert "jsonrpc" not in response.text
