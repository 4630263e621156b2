"""End to end, offline, against a real RSSHub: its ``/test/...`` routes answer without internet.

The catalog's ``test`` platform (route ``/test/:id/:params?``, example ``/test/1``) has the alias
测试源, so a question naming it routes there; its ``:id`` is a subject, so the question gives it
(the example is a format hint, never a value)."""

import json

import pytest
from django.core.management import call_command

from briefs.models import BriefStatus
from tests.agent.conftest import brief_run, decisions, steps_of

pytestmark = [
    pytest.mark.rsshub,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("world", "offline"),
]


@pytest.fixture
def real_rsshub(settings, rsshub):
    settings.RSSHUB_URL = rsshub.url
    settings.RSSHUB_ACCESS_KEY = ""
    settings.RSSHUB_TIMEOUT = 10.0
    return rsshub


def test_a_question_becomes_a_cited_brief_from_a_real_rsshub(run_owner, real_rsshub):
    brief = brief_run(run_owner, "测试源 1 的最新内容")

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert brief.outcome == "answered"
    assert brief.mode == "offline"
    assert [r["path"] for r in brief.coverage["succeeded"]] == ["/test/1"]
    assert decisions(brief) == ["summarize"]
    assert steps_of(brief, "fetch_result")[0]["items_new"] == 5
    assert [c["title"] for c in brief.citations] == [f"Title{n}" for n in range(1, 6)]
    assert all(c["link"] and c["published_at"] for c in brief.citations)
    assert "- **Title1** · RSSHub Test · " in brief.body
    assert "来自 1 个来源的 5 条内容" in brief.body.splitlines()[0], "the question is in Chinese"
    assert brief.as_of is not None


def test_ask_prints_the_run_as_json_from_a_real_rsshub(real_rsshub, capsys):
    call_command("ask", "测试源 1 的最新内容", "--json", "--offline")

    result = json.loads(capsys.readouterr().out)
    assert (result["status"], result["outcome"]) == ("succeeded", "answered")
    assert len(result["citations"]) == 5
    assert result["coverage"]["succeeded"][0]["items"] == 5
