"""Hostile input at the MCP boundary: arguments of the wrong type, too long, out of range or
unknown are tool errors in the REST API's words; an unknown tool, a malformed JSON-RPC body or
an oversized one is a protocol error. None shows a traceback, and none creates a brief."""

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp_server.clients import over_http

pytestmark = pytest.mark.postgres

ASK = "ask"
BAD_ARGUMENTS = [
    (ASK, {"question": 12}, "question: Not a valid string."),
    (ASK, {"question": ["what", "is new"]}, "question: Not a valid string."),
    (ASK, {}, "question: This field is required."),
    (ASK, {"question": "   "}, "question: The question is empty."),
    (ASK, {"question": "x" * 2001},
     "question: Ensure this field has no more than 2000 characters."),
    (ASK, {"question": "news\x00 on RSSHub Test"}, "question: Null characters are not allowed."),
    (ASK, {"question": "news\x07 on RSSHub Test"},
     "question: The question contains control characters."),
    (ASK, {"question": "q", "offline": "yes"}, "offline: Must be true or false."),
    (ASK, {"question": "q", "offline": 1}, "offline: Must be true or false."),
    (ASK, {"question": "q", "wait_seconds": -1},
     "wait_seconds: Ensure this value is greater than or equal to 0."),
    (ASK, {"question": "q", "wait_seconds": 10**12},
     "wait_seconds: Ensure this value is less than or equal to 120."),
    (ASK, {"question": "q", "wait_seconds": "10"}, "wait_seconds: A valid integer is required."),
    (ASK, {"question": "q", "wait_seconds": 1.5}, "wait_seconds: A valid integer is required."),
    (ASK, {"question": "q", "colour": "red"}, "colour: Unknown field."),
    ("get_brief", {"id": 0}, "id: Ensure this value is greater than or equal to 1."),
    ("get_brief", {"id": "1"}, "id: A valid integer is required."),
    ("get_brief", {"id": 2**70},
     "id: Ensure this value is less than or equal to 9223372036854775807."),
    ("follow_up", {"id": 1}, "question: This field is required."),
    ("list_briefs", {"outcome": "great"}, 'outcome: "great" is not a valid choice.'),
    ("list_briefs", {"limit": 101}, "limit: Ensure this value is less than or equal to 100."),
    ("list_briefs", {"query": "a\x0bb"}, "query: Must not contain control characters."),
    ("list_briefs", {"query": "q" * 201},
     "query: Ensure this field has no more than 200 characters."),
    ("search_routes", {"query": "q" * 5000}, None),
    ("route_health", {"path_or_namespace": "/" + "a" * 600},
     "path_or_namespace: Ensure this field has no more than 600 characters."),
    ("route_health", {"path_or_namespace": "/test/%zz"}, "No such route."),
    ("search_routes", {"query": ""}, "query: the question is empty"),
    ("search_routes", {"query": 5}, "query: Not a valid string."),
    ("route_health", {"path_or_namespace": None}, "path_or_namespace: This field may not be null."),
]  # fmt: skip


def test_bad_arguments_are_tool_errors_in_the_apis_words_and_create_nothing(stack):
    before = stack.rows("SELECT count(*) AS n FROM briefs_brief")[0]["n"]

    async def go():
        async with over_http(stack.url, stack.secrets["alice"]) as client:
            return [await client.call_tool(name, args) for name, args, _ in BAD_ARGUMENTS]

    results = anyio.run(go)
    for (name, args, message), result in zip(BAD_ARGUMENTS, results, strict=True):
        assert result.is_error, (name, args)
        text = result.content[0].text
        assert "Traceback" not in text
        if message is None:  # the search's own words: checked to name the argument only
            assert text.startswith("query: the question is "), text
            continue
        assert text == message, (name, args)
    assert stack.rows("SELECT count(*) AS n FROM briefs_brief")[0]["n"] == before


def test_an_unknown_tool_is_a_protocol_error_naming_the_tools(stack):
    async def go():
        async with over_http(stack.url, stack.secrets["alice"]) as client:
            with pytest.raises(MCPError) as failed:
                await client.call_tool("drop_tables", {})
            return failed.value

    error = anyio.run(go)
    assert error.code == -32602
    assert error.message.startswith("No such tool: 'drop_tables'. The tools are: ask, get_brief")


HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
MODERN = {"MCP-Protocol-Version": "2026-07-28"}


@pytest.mark.parametrize("era", [{}, MODERN], ids=["legacy", "modern"])
@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),
        (b"\xff\xfe\x00", -32700),
        (b"[]", None),
        (b'{"jsonrpc": "2.0", "id": 1}', None),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "ask"}', None),
    ],
    ids=["not-json", "not-utf8", "batch", "no-method", "params-not-object"],
)
def test_a_malformed_json_rpc_body_is_a_clear_error(stack, era, body, code):
    headers = {**HEADERS, **era, "Authorization": f"Bearer {stack.secrets['alice']}"}
    response = httpx.post(stack.url, content=body, headers=headers, timeout=10)
    assert 400 <= response.status_code < 500, response.text
    error = response.json()["error"]
    assert error["message"]
    assert error["code"] == code if code is not None else error["code"] in (-32600, -32602)
    assert "Traceback" not in response.text


def test_a_body_over_the_api_limit_is_refused(stack):
    headers = {**HEADERS, "Authorization": f"Bearer {stack.secrets['alice']}"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "ask", "arguments": {"question": "x" * 17_000}}}  # fmt: skip
    response = httpx.post(stack.url, json=body, headers=headers, timeout=10)
    assert response.status_code == 413


def test_a_body_that_is_not_json_is_refused(stack):
    headers = {**HEADERS, "Content-Type": "text/plain"}
    headers["Authorization"] = f"Bearer {stack.secrets['alice']}"
    response = httpx.post(stack.url, content=b"hello", headers=headers, timeout=10)
    assert response.status_code == 400
    assert response.text == "Invalid Content-Type header"
