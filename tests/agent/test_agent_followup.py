"""Follow-up questions: the thread's earlier turns reach the rewrite step, offline and with a
model, so that "and this week?" routes like the question it follows."""

import pytest

from briefs.models import Brief, BriefStatus
from tests.agent.conftest import brief_run, feed, fetched, steps_of
from tests.llmserver import tool_call

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world")]


def earlier_brief(owner, question="Alpha Wire 芯片 news", body="As of today: chips [1]."):
    return Brief.objects.create(
        owner=owner, question=question, status=BriefStatus.SUCCEEDED, body=body
    )


@pytest.mark.usefixtures("offline")
def test_offline_a_follow_up_carries_the_earlier_keywords_and_routes_alike(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed("Chips rally"))
    first = earlier_brief(run_owner)

    brief = brief_run(run_owner, "what about this week?", follow_up_of=first)

    rewritten = steps_of(brief, "query_rewritten")[0]
    assert rewritten["query"] == "what about this week? (Alpha Wire 芯片)"
    assert rewritten["window"]["label"] == "this_week"
    assert brief.keywords[-3:] == ["Alpha", "Wire", "芯片"]
    platforms = [p["chosen"] for p in steps_of(brief, "choice") if p["node"] == "platform"]
    assert platforms == [["alpha"]]
    assert brief.citations[0]["title"] == "Chips rally"


@pytest.mark.usefixtures("offline")
def test_offline_the_thread_reaches_back_through_earlier_follow_ups(run_owner, stub_rsshub):
    first = earlier_brief(run_owner)
    second = Brief.objects.create(
        owner=run_owner, question="and ports?", follow_up_of=first, status=BriefStatus.SUCCEEDED
    )

    brief = brief_run(run_owner, "yesterday?", follow_up_of=second)

    query = steps_of(brief, "query_rewritten")[0]["query"]
    assert query == "yesterday? (Alpha Wire 芯片 ports)"


@pytest.mark.usefixtures("offline")
def test_without_its_thread_the_same_words_find_no_source(run_owner, stub_rsshub):
    brief = brief_run(run_owner, "what about this week?")

    assert steps_of(brief, "query_rewritten")[0]["query"] == "what about this week?"
    assert fetched(stub_rsshub) == []


def test_with_a_model_the_rewrite_prompt_holds_the_earlier_question_and_answer(
    run_owner, stub_rsshub, llm_server, settings
):
    settings.AGENT_ROUTER_BUDGET = 1  # the rewrite is what this test is about
    first = earlier_brief(run_owner, body="As of today: chip prices fell [1].")
    llm_server.script(
        tool_call(
            {
                "query": "Alpha Wire chip news this week",
                "language": "en",
                "keywords": ["chip"],
                "window": "this_week",
            }
        )
    )
    llm_server.responder = lambda body: tool_call({"chosen": [], "reason": "nothing"})

    brief = brief_run(run_owner, "what about this week?", follow_up_of=first)

    prompt = llm_server.requests[0]["messages"][1]["content"]
    assert "Earlier question 1: Alpha Wire 芯片 news" in prompt
    assert "chip prices fell \uff3b1\uff3d." in prompt  # quoted, its citation no longer one
    assert "Question: what about this week?" in prompt
    rewritten = steps_of(brief, "query_rewritten")[0]
    assert (rewritten["query"], rewritten["method"]) == ("Alpha Wire chip news this week", "model")
    assert rewritten["window"]["label"] == "this_week"
