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


@pytest.fixture(scope="module")
def asked(stack):
    """One answered brief of alice's, asked over HTTP."""
    result = call(stack, "ask", {"question": "asked news on RSSHub Test", "offline": True})
    assert result.structured_content["status"] == "succeeded", stack.log_tail()
    return result.structured_content


def test_get_brief_reads_the_brief_ask_gave(stack, asked):
    result = call(stack, "get_brief", {"id": asked["id"]})
    assert not result.is_error, result.content
    data = result.structured_content
    assert {k: data[k] for k in ("id", "answer", "citations", "as_of")} == {
        k: asked[k] for k in ("id", "answer", "citations", "as_of")
    }
    assert result.content[0].text.startswith(f"Brief {asked['id']}: succeeded")


def test_list_briefs_finds_the_brief_by_text_and_outcome(stack, asked):
    found = call(stack, "list_briefs", {"query": "asked news", "outcome": "answered"})
    assert [b["id"] for b in found.structured_content["briefs"]] == [asked["id"]]
    assert json.loads(found.content[0].text) == found.structured_content
    none = call(stack, "list_briefs", {"query": "asked news", "outcome": "off_topic"})
    assert none.structured_content == {"briefs": []}
    recent = call(stack, "list_briefs", {"limit": 1})
    assert len(recent.structured_content["briefs"]) == 1


def test_follow_up_runs_a_brief_in_the_thread(stack, asked):
    progress = ProgressLog()
    result = call(
        stack, "follow_up", {"id": asked["id"], "question": "more news on RSSHub Test"},
        progress_callback=progress,
    )  # fmt: skip
    assert not result.is_error, result.content
    data = result.structured_content
    assert data["follow_up_of"] == asked["id"]
    assert data["status"] == "succeeded"
    assert stack.brief(data["id"])["offline"] is True, "a follow-up runs as its thread did"
    assert progress.progresses == [s["seq"] for s in stack.steps(data["id"])]


def test_search_routes_ranks_routes_with_their_health(stack, asked):
    result = call(stack, "search_routes", {"query": "RSSHub Test news", "limit": 5})
    assert not result.is_error, result.content
    [route] = result.structured_content["routes"]
    assert route["path"] == "/test/:keyword"
    assert route["namespace"] == "test"
    assert route["health"]["state"] == "healthy"  # the asks fetched it
    assert route["health"]["attempts"] >= 1
    assert route["health"]["circuit"] == "closed"
    assert result.structured_content["platforms"][0]["namespace"] == "test"


@pytest.mark.parametrize("asked_for", ["/test/:keyword", "/test/asked"])
def test_route_health_reads_a_route_by_template_or_by_path(stack, asked, asked_for):
    result = call(stack, "route_health", {"path_or_namespace": asked_for})
    assert not result.is_error, result.content
    route = result.structured_content["route"]
    assert route["path"] == "/test/:keyword"
    assert set(route["health"]) >= {"success_rate", "latency_ms", "last_error_class", "circuit"}
    assert route["health"]["success_rate"] == 1.0


def test_route_health_of_a_namespace_sums_up_its_routes(stack, asked):
    result = call(stack, "route_health", {"path_or_namespace": "test"})
    platform = result.structured_content["platform"]
    assert platform["namespace"] == "test"
    assert platform["summary"]["total"] == 1
    assert platform["summary"]["healthy"] == 1
    assert [r["path"] for r in platform["routes"]] == ["/test/:keyword"]


@pytest.mark.parametrize(
    ("asked_for", "message"),
    [("nothing-here", "No such platform."), ("/nothing/here", "No such route.")],
)
def test_route_health_of_an_unknown_route_is_not_found(stack, asked_for, message):
    result = call(stack, "route_health", {"path_or_namespace": asked_for})
    assert result.is_error
    assert result.content[0].text == message


def test_another_users_brief_is_not_found_by_any_tool(stack):
    theirs = stack.secrets["mallory_brief"]
    for name, arguments in [
        ("get_brief", {"id": theirs}),
        ("follow_up", {"id": theirs, "question": "their news on RSSHub Test"}),
    ]:
        result = call(stack, name, arguments)
        assert result.is_error, name
        assert result.content[0].text == "No such brief."
        assert result.structured_content == {"message": "No such brief.", "extra": {}}
    found = call(stack, "list_briefs", {"query": "mallory"})
    assert found.structured_content == {"briefs": []}
    assert stack.rows("SELECT id FROM briefs_brief WHERE follow_up_of_id = %s", theirs) == []


def test_a_spent_quota_is_a_tool_error_in_the_apis_words(stack):
    result = call(stack, "ask", {"question": "spent news on RSSHub Test"}, token="spent")
    assert result.is_error
    # The REST API's 429 says the same, with the wait DRF adds to every throttle message.
    assert result.content[0].text.startswith("The quota of 200 briefs a day is spent. Expected")
    extra = result.structured_content["extra"]
    assert extra["quota"] == "briefs_per_day"
    assert extra["limit"] == 200 and extra["retry_after"] >= 1
    assert stack.rows("SELECT id FROM briefs_brief WHERE question LIKE 'spent%%'") == []


def test_resources_give_briefs_as_markdown_and_the_namespaces(stack, asked):
    async def go():
        async with over_http(stack.url, stack.secrets["alice"]) as client:
            templates = await client.list_resource_templates()
            listed = await client.list_resources()
            brief = await client.read_resource(f"brief://{asked['id']}")
            namespaces = await client.read_resource("catalog://namespaces")
            return templates, listed, brief, namespaces

    templates, listed, brief, namespaces = anyio.run(go)
    assert [t.uri_template for t in templates.resource_templates] == ["brief://{id}"]
    uris = [r.uri for r in listed.resources]
    assert "catalog://namespaces" in uris
    assert f"brief://{asked['id']}" in uris
    assert f"brief://{stack.secrets['mallory_brief']}" not in uris
    [content] = brief.contents
    assert content.mime_type == "text/markdown"
    assert content.text.startswith("# asked news on RSSHub Test\n")
    assert "## Sources" in content.text
    [rows] = namespaces.contents
    assert [row["namespace"] for row in json.loads(rows.text)] == ["delta", "test"]
    assert json.loads(rows.text)[1] == {
        "namespace": "test", "name": "RSSHub Test", "lang": "en", "enabled": True,
        "routes": 1, "routes_enabled": 1,
    }  # fmt: skip


@pytest.mark.parametrize("uri", ["brief://{mallory}", "brief://999999999", "feed://x"])
def test_reading_a_resource_that_is_not_yours_or_not_there_fails(stack, uri):
    from mcp.shared.exceptions import MCPError

    async def go():
        async with over_http(stack.url, stack.secrets["alice"]) as client:
            with pytest.raises(MCPError) as failed:
                await client.read_resource(uri.format(mallory=stack.secrets["mallory_brief"]))
            return failed.value

    expected = "No such resource: 'feed://x'." if uri == "feed://x" else "No such brief."
    assert anyio.run(go).message == expected


def test_a_question_lacking_a_value_says_what_to_give_and_follow_up_gives_it(stack):
    asked = call(stack, "ask", {"question": "Delta Code repo issues", "offline": True})
    assert not asked.is_error, asked.content
    data = asked.structured_content
    assert (data["status"], data["outcome"]) == ("succeeded", "needs_input")
    assert [n["parameter"] for n in data["needs"]] == ["user", "repo"]
    text = asked.content[0].text
    assert "The question lacks a value a source needs:" in text
    assert "- user: User name (written as a name as it appears in the site's address)" in text
    assert f"Ask again with follow_up (id {data['id']}), giving it in the question." in text
    given = call(
        stack, "follow_up", {"id": data["id"], "question": "Delta Code repo issues of octo/cat"}
    )
    assert given.structured_content["follow_up_of"] == data["id"]
    assert given.structured_content["coverage"]["tried"] == ["/delta/issues/octo/cat"]
