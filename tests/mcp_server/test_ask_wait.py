"""ask waits for its brief up to wait_seconds: a brief still running then is given as its id and
status, and a client that goes away mid-ask leaves the brief running to completion.

The stand-in RSSHub holds ``/test/hold<name>`` until the test releases ``<name>``, so the brief
is known to be mid-fetch while the client waits, gives up, or leaves.
"""

import anyio
import pytest

from tests.mcp_server.clients import MODES, ProgressLog, over_http
from tests.waiting import eventually

pytestmark = pytest.mark.postgres


def _brief_id_of(stack, question: str) -> int | None:
    rows = stack.rows("SELECT id FROM briefs_brief WHERE question = %s", question)
    return rows[0]["id"] if rows else None


def _get_brief(stack, brief_id: int):
    async def go():
        async with over_http(stack.url, stack.secrets["alice"]) as client:
            return await client.call_tool("get_brief", {"id": brief_id})

    return anyio.run(go)


def test_a_brief_not_ready_in_time_is_given_as_its_id_and_status(stack):
    question = "holdlate news on RSSHub Test"

    async def go():
        async with over_http(stack.url, stack.secrets["alice"]) as client:
            return await client.call_tool(
                "ask", {"question": question, "offline": True, "wait_seconds": 1}
            )

    result = anyio.run(go)
    assert not result.is_error, result.content
    data = result.structured_content
    assert data["finished"] is False
    assert data["status"] in ("queued", "running")
    assert data["id"] == _brief_id_of(stack, question)
    assert "answer" not in data
    assert f"get_brief (id {data['id']})" in result.content[0].text
    stack.rsshub.release("late")
    assert stack.wait_finished(data["id"])["status"] == "succeeded"
    later = _get_brief(stack, data["id"]).structured_content
    assert later["outcome"] == "answered"
    assert later["citations"][0]["path"] == "/test/holdlate"


def test_wait_seconds_zero_returns_at_once_with_the_queued_brief(stack):
    async def go():
        async with over_http(stack.url, stack.secrets["alice"]) as client:
            return await client.call_tool(
                "ask", {"question": "prompt news on RSSHub Test", "offline": True,
                        "wait_seconds": 0},
            )  # fmt: skip

    data = anyio.run(go).structured_content
    assert data["finished"] is False
    assert stack.wait_finished(data["id"])["status"] == "succeeded"


@pytest.mark.parametrize("mode", MODES)
def test_a_client_that_leaves_mid_ask_leaves_the_brief_running_to_completion(stack, mode):
    question = f"holdgone{mode} news on RSSHub Test"
    progress = ProgressLog()
    outcome: list = []

    async def asking() -> None:
        async with over_http(stack.url, stack.secrets["alice"], mode=mode) as client:
            arguments = {"question": question, "offline": True, "wait_seconds": 120}
            outcome.append(await client.call_tool("ask", arguments, progress_callback=progress))

    async def go():
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(asking)
            await eventually(lambda: stack.rsshub.is_held(f"gone{mode}"), what="the fetch")
            await eventually(lambda: progress.seen, what="a progress notification")
            tasks.cancel_scope.cancel()  # the client goes away: its connection closes

    anyio.run(go)
    assert outcome == [], "the call was abandoned before its answer"
    brief_id = _brief_id_of(stack, question)
    assert stack.brief(brief_id)["status"] == "running"
    stack.rsshub.release(f"gone{mode}")
    finished = stack.wait_finished(brief_id)
    assert finished["status"] == "succeeded", stack.log_tail()
    assert finished["cancel_requested"] is False
    later = _get_brief(stack, brief_id)
    assert later.structured_content["outcome"] == "answered"
    assert "Traceback" not in (stack.logs / "daphne.log").read_text()


def test_progress_stops_with_the_wait_but_the_run_goes_on(stack):
    question = "holdslow news on RSSHub Test"
    progress = ProgressLog()

    async def go():
        async with over_http(stack.url, stack.secrets["alice"]) as client:
            return await client.call_tool(
                "ask", {"question": question, "offline": True, "wait_seconds": 2},
                progress_callback=progress,
            )  # fmt: skip

    result = anyio.run(go)
    brief_id = result.structured_content["id"]
    assert progress.progresses == sorted(set(progress.progresses)), "in order, each once"
    stack.rsshub.release("slow")
    steps = [s["seq"] for s in stack.steps(stack.wait_finished(brief_id)["id"])]
    assert progress.progresses == steps[: len(progress.progresses)]
    assert len(steps) > len(progress.progresses), "the run went on after the wait"
