"""Every tool and resource over Streamable HTTP against a running Daphne, with the SDK's client,
in both protocol eras."""

import json

import anyio
import pytest

from tests.mcp_server.clients import MODES, ProgressLog, over_http

pytestmark = pytest.mark.postgres

TOOLS = {"ask", "get_brief", "list_briefs", "follow_up", "search_routes", "route_health"}


def call(stack, name: str, arguments: dict, *, mode: str = "auto", token: str = "alice", **kw):
    async def go():
        async with over_http(stack.url, stack.secrets[token], mode=mode) as client:
            return await client.call_tool(name, arguments, **kw)

    return anyio.run(go)


@pytest.mark.parametrize("mode", MODES)
def test_it_lists_the_tools_with_their_schemas(stack, mode):
    async def go():
        async with over_http(stack.url, stack.secrets["alice"], mode=mode) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in anyio.run(go)}
    assert set(tools) == TOOLS
    ask = tools["ask"]
    assert ask.input_schema["required"] == ["question"]
    assert ask.input_schema["properties"]["wait_seconds"]["maximum"] == 120
    assert ask.input_schema["additionalProperties"] is False
    assert "cites" in ask.description
    assert tools["get_brief"].annotations.read_only_hint is True
    assert ask.annotations.read_only_hint is False


@pytest.mark.parametrize("mode", MODES)
def test_ask_returns_a_cited_brief_and_reports_each_step_in_order(stack, mode):
    progress = ProgressLog()
    result = call(
        stack, "ask", {"question": f"{mode} news on RSSHub Test", "offline": True},
        mode=mode, progress_callback=progress,
    )  # fmt: skip
    assert not result.is_error, result.content
    data = result.structured_content
    assert data["status"] == "succeeded", stack.log_tail()
    assert data["outcome"] == "answered"
    assert data["citations"], data
    first = data["citations"][0]
    assert first["link"].startswith(f"https://example.com/{mode}/")
    assert first["path"] == f"/test/{mode}"
    assert first["published_at"].startswith("2026-11-01")
    assert data["coverage"]["succeeded"][0]["path"] == f"/test/{mode}"
    assert data["as_of"]
    assert data["dashboard_url"] == f"{stack.site}/briefs/{data['id']}/"
    assert "[1]" in data["answer"]
    text = result.content[0].text
    assert f"Brief {data['id']}: succeeded, outcome answered" in text
    steps = stack.steps(data["id"])
    assert progress.progresses == [s["seq"] for s in steps]
    assert steps[-1]["kind"] == "brief_ready"
    assert progress.messages[-1].startswith("brief ready: answered")
