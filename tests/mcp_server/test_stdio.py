"""stdio: ``manage.py mcp --user NAME`` as a desktop client starts it, driven by the SDK's own
client. Stdout carries the protocol and nothing else."""

import json
import select
import subprocess
import sys

import anyio
import pytest

from tests.mcp_server.clients import MODES, ProgressLog, over_stdio
from tests.mcp_server.stack import ROOT
from tests.waiting import eventually

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def stdio_stack(stack):
    """The stack, with the dashboard address the stdio server links to."""
    stack.env = {**stack.env, "MCP_SITE_URL": "http://agent.example:8123"}
    return stack


@pytest.mark.parametrize("mode", MODES)
def test_it_lists_the_tools_over_stdio(stdio_stack, mode):
    async def go():
        async with over_stdio(stdio_stack, "alice", mode=mode) as client:
            return (await client.list_tools()).tools

    assert {t.name for t in anyio.run(go)} == {
        "ask", "get_brief", "list_briefs", "follow_up", "search_routes", "route_health",
    }  # fmt: skip


def test_ask_over_stdio_runs_on_the_worker_and_reports_each_step(stdio_stack):
    progress = ProgressLog()

    async def go():
        async with over_stdio(stdio_stack, "alice") as client:
            return await client.call_tool(
                "ask", {"question": "stdio news on RSSHub Test", "offline": True},
                progress_callback=progress,
            )  # fmt: skip

    result = anyio.run(go)
    assert not result.is_error, result.content
    data = result.structured_content
    assert data["status"] == "succeeded", stdio_stack.log_tail()
    assert data["citations"][0]["path"] == "/test/stdio"
    assert data["dashboard_url"] == f"http://agent.example:8123/briefs/{data['id']}/"
    assert progress.progresses == [s["seq"] for s in stdio_stack.steps(data["id"])]
    assert (
        stdio_stack.brief(data["id"])["owner_id"]
        == stdio_stack.rows("SELECT id FROM auth_user WHERE username = 'alice'")[0]["id"]
    )


def test_over_stdio_another_users_brief_is_not_found(stdio_stack):
    async def go():
        async with over_stdio(stdio_stack, "alice") as client:
            return await client.call_tool("get_brief", {"id": stdio_stack.secrets["mallory_brief"]})

    result = anyio.run(go)
    assert result.is_error
    assert result.content[0].text == "No such brief."


def test_a_spent_quota_over_stdio_is_a_tool_error(stdio_stack):
    async def go():
        async with over_stdio(stdio_stack, "spent") as client:
            return await client.call_tool("ask", {"question": "more news on RSSHub Test"})

    result = anyio.run(go)
    assert result.is_error
    assert result.structured_content["extra"]["quota"] == "briefs_per_day"


def _serve(stack, user: str, lines: list[dict]) -> subprocess.CompletedProcess:
    """Run the server with ``lines`` on stdin, keeping stdin open until every request has its
    reply (as a client does: at end of input the server stops, dropping calls in flight)."""
    server = subprocess.Popen(
        [sys.executable, "manage.py", "mcp", "--user", user], cwd=ROOT, env=stack.env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    replies: list[str] = []
    try:
        for line in lines:
            server.stdin.write(json.dumps(line) + "\n")
            server.stdin.flush()
            if "id" in line:
                replies.append(_line(server, line["id"]))
        # A bound, not a margin: a busy machine may take long to start and stop the process.
        stdout, stderr = server.communicate(timeout=120)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    return subprocess.CompletedProcess(server.args, server.returncode, "".join(replies) + stdout,
                                       stderr)  # fmt: skip


def _line(server: subprocess.Popen, request_id: int) -> str:
    """The next line of the server's stdout, within a deadline."""
    ready, _, _ = select.select([server.stdout], [], [], 120)  # a bound, as above
    assert ready, f"no reply to request {request_id}"
    return server.stdout.readline()


def test_stdout_carries_only_protocol_messages_and_logs_go_to_stderr(stdio_stack):
    done = _serve(
        stdio_stack,
        "alice",
        [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "route_health", "arguments": {"path_or_namespace": "test"}}},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "get_brief", "arguments": {"id": "x"}}},
        ],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    assert replies[1]["result"]["structuredContent"]["platform"]["namespace"] == "test"
    assert replies[2]["result"]["isError"] is True
    assert "Traceback" not in done.stderr


def test_an_unknown_user_stops_it_with_a_message_on_stderr(stdio_stack):
    done = _serve(stdio_stack, "nobody", [])
    assert done.returncode == 1
    assert done.stdout == ""
    assert "no active user named 'nobody'" in done.stderr


def test_every_tool_answers_over_stdio(stdio_stack):
    theirs = stdio_stack.secrets["mallory_brief"]

    async def go():
        async with over_stdio(stdio_stack, "mallory") as client:
            return {
                "get_brief": await client.call_tool("get_brief", {"id": theirs}),
                "list_briefs": await client.call_tool("list_briefs", {"query": "mallory"}),
                "follow_up": await client.call_tool(
                    "follow_up", {"id": theirs, "question": "again", "wait_seconds": 0}
                ),
                "search_routes": await client.call_tool("search_routes", {"query": "RSSHub Test"}),
                "route_health": await client.call_tool(
                    "route_health", {"path_or_namespace": "/test/:keyword"}
                ),
            }

    results = anyio.run(go)
    assert all(not r.is_error for r in results.values()), {
        name: r.content for name, r in results.items() if r.is_error
    }
    assert results["get_brief"].structured_content["answer"] == "Theirs [1]."
    assert [b["id"] for b in results["list_briefs"].structured_content["briefs"]] == [theirs]
    follow_up = results["follow_up"].structured_content
    assert follow_up["finished"] is False
    assert stdio_stack.brief(follow_up["id"])["follow_up_of_id"] == theirs
    assert results["search_routes"].structured_content["routes"][0]["path"] == "/test/:keyword"
    assert results["route_health"].structured_content["route"]["namespace"] == "test"
    stdio_stack.wait_finished(follow_up["id"])


def test_a_stdio_client_that_quits_mid_ask_leaves_the_brief_running(stdio_stack):
    question = "holdquit news on RSSHub Test"

    async def go():
        async with anyio.create_task_group() as tasks:

            async def asking() -> None:
                async with over_stdio(stdio_stack, "alice") as client:
                    await client.call_tool("ask", {"question": question, "offline": True})

            tasks.start_soon(asking)
            # A bound, not a margin: the server process starts, the brief is queued, a worker
            # takes it and fetches; on a busy machine that chain can take long.
            await eventually(
                lambda: stdio_stack.rsshub.is_held("quit"), what="the fetch", seconds=120
            )
            tasks.cancel_scope.cancel()  # the client ends its server process

    anyio.run(go)
    [row] = stdio_stack.rows("SELECT id, status FROM briefs_brief WHERE question = %s", question)
    assert row["status"] == "running"
    stdio_stack.rsshub.release("quit")
    assert stdio_stack.wait_finished(row["id"])["status"] == "succeeded"
