"""Cancellation: a running brief stops at the next step boundary, and a fetch in flight is
cancelled rather than waited for. The owner cancels from a stand-in's handler (the model's or
RSSHub's), so the step is known to be under way when the cancel arrives."""

import pytest
from django.db import connections

from briefs.models import Brief, BriefStatus
from briefs.services import brief_cancel
from briefs.tasks import run_brief
from fetching.models import FetchAttempt
from tests.agent.conftest import brief_run, fetched, kinds_of, steps_of
from tests.llmserver import tool_call

QUESTION = "Alpha Wire flash news"
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world")]


def cancel_by_owner():
    """What the owner's click does, from the stand-in's thread (its own connection)."""
    try:
        brief = Brief.objects.get(question=QUESTION)
        brief_cancel(owner=brief.owner, brief_id=brief.pk)
    finally:
        connections.close_all()


def test_a_cancel_during_a_step_takes_effect_at_the_next_step_boundary(
    run_owner, stub_rsshub, llm_server
):
    rewrite = {"query": QUESTION, "language": "en", "keywords": [], "window": "latest"}
    platform = tool_call({"chosen": ["alpha"], "reason": "named"})

    def cancel_then_answer(request):
        cancel_by_owner()  # while the platform step waits for the model
        return platform(request)

    llm_server.script(tool_call(rewrite), cancel_then_answer)

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.CANCELLED
    kinds = kinds_of(brief)
    assert kinds[-3:] == ["llm_usage", "choice", "run_cancelled"]  # the step finished, then stop
    assert [s["node"] for s in steps_of(brief, "step_started")] == ["platform"]
    assert steps_of(brief, "run_cancelled") == [{"reason": "cancelled by its owner", "step": 1}]
    assert llm_server.count == 2
    assert fetched(stub_rsshub) == []
    assert "brief_ready" not in kinds
    assert brief.body == ""


@pytest.mark.usefixtures("offline")
def test_a_fetch_in_flight_is_cancelled_not_waited_for(run_owner, stub_rsshub, settings):
    settings.RSSHUB_TIMEOUT = 30.0

    def cancel_then_hang(request):
        cancel_by_owner()
        request.stopping.wait(30)  # never answers while the test runs

    stub_rsshub.route("/alpha/flash", cancel_then_hang)

    brief = brief_run(run_owner, QUESTION)

    # Had the run waited, the fetch would have ended (timed out or broken off) and been recorded.
    assert brief.status == BriefStatus.CANCELLED
    assert "fetch_result" not in kinds_of(brief)
    assert kinds_of(brief)[-1] == "run_cancelled"
    assert not FetchAttempt.objects.filter(brief_id=brief.pk).exists()


@pytest.mark.usefixtures("offline")
def test_a_brief_cancelled_before_its_run_never_fetches(run_owner, stub_rsshub):
    brief = Brief.objects.create(owner=run_owner, question=QUESTION)
    brief_cancel(owner=run_owner, brief_id=brief.pk)

    run_brief(brief.pk)
    brief.refresh_from_db()

    assert brief.status == BriefStatus.CANCELLED
    assert fetched(stub_rsshub) == []
    assert kinds_of(brief) == ["run_cancelled"]
