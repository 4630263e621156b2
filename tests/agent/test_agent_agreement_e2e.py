"""End to end against a stand-in RSSHub: two outlets tell one story. With different figures the
brief (page, API, markdown export, share link, MCP, ``ask --json``) shows the difference with both
citations; with the same figure it shows agreement and no difference; one outlet alone, or one
outlet's two feeds, shows neither."""

import json

import pytest
from django.core.management import call_command
from django.test import Client

from briefs.models import BriefStatus
from mcp_server.caller import Caller
from mcp_server.present import brief_data
from sharing.services import brief_share_create
from tests.agent.conftest import brief_run
from tests.feeds import RSS_TYPE, FeedItem, rss_body
from tests.httpserver import Reply
from tests.llmserver import text, tool_call

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world")]
offline = pytest.mark.usefixtures("offline")

QUESTION = "Alpha Wire and Beta Daily flash news"
TITLE = "Acme to cut {n} jobs in a worldwide restructuring"
TEXT = "Acme said it would cut {n} jobs in a worldwide restructuring of its factories."
DIFFER = "Sources differ: Alpha Wire says 3,000 [1]; Beta Daily says 5,000 [2]"


def story(n: str, hours_ago: float) -> Reply:
    item = FeedItem(
        TITLE.format(n=n), TEXT.format(n=n), hours_ago=hours_ago, link=f"https://e.x/{n}"
    )
    return Reply(200, RSS_TYPE, rss_body([item]))


def serve(server, alpha: str, beta: str) -> None:
    server.route("/alpha/flash", story(alpha, 1))
    server.route("/beta/latest", story(beta, 2))


@offline
def test_two_outlets_with_different_figures_show_the_difference_everywhere(run_owner, stub_rsshub):
    serve(stub_rsshub, "3,000", "5,000")
    brief = brief_run(run_owner, QUESTION)
    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert DIFFER in brief.body, brief.body
    said = brief.agreements[0]["differences"][0]["said"]
    assert [(s["source"], s["text"], s["items"]) for s in said] == [
        ("Alpha Wire", "3,000", [1]), ("Beta Daily", "5,000", [2]),
    ]  # fmt: skip

    client = Client()
    client.force_login(run_owner)
    page = client.get(f"/briefs/{brief.pk}/").content.decode()
    assert "Sources differ: Alpha Wire says 3,000" in page and "Beta Daily says 5,000" in page
    markdown = client.get(f"/briefs/{brief.pk}/markdown/").content.decode()
    assert "Sources differ: Alpha Wire says 3,000 [1]; Beta Daily says 5,000 [2]" in markdown
    api = client.get(f"/api/v1/briefs/{brief.pk}").json()
    assert api["agreements"] == brief.agreements
    mcp = brief_data(brief, caller=Caller(user=run_owner, site_url="http://t"))
    assert mcp["agreements"][0]["differences"][0]["said"][1]["source"] == "Beta Daily"
    share, _ = brief_share_create(owner=run_owner, brief_id=brief.pk)
    shared = Client().get(f"/s/{share.secret}").content.decode()
    assert "Sources differ: Alpha Wire says 3,000" in shared


@offline
def test_the_same_figure_shows_agreement_and_no_difference(run_owner, stub_rsshub):
    serve(stub_rsshub, "3,000", "3,000")
    brief = brief_run(run_owner, QUESTION)
    assert "Sources agree: 3,000 [1] [2]" in brief.body, brief.body
    assert "Sources differ" not in brief.body
    assert brief.agreements[0]["differences"] == []


@offline
def test_one_outlet_shows_neither(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", story("3,000", 1))  # /beta/latest: 404
    brief = brief_run(run_owner, QUESTION)
    assert brief.citations, brief.body
    assert "Sources agree" not in brief.body and "Sources differ" not in brief.body
    assert brief.agreements == []


@offline
def test_one_outlets_two_feeds_show_neither(run_owner, stub_rsshub):
    body = rss_body([
        FeedItem(TITLE.format(n="3,000"), TEXT.format(n="3,000"), hours_ago=1, link="https://e.x/1"),
        FeedItem(TITLE.format(n="5,000"), TEXT.format(n="5,000"), hours_ago=2, link="https://e.x/2"),
    ])  # fmt: skip
    stub_rsshub.route("/alpha/flash", Reply(200, RSS_TYPE, body))
    brief = brief_run(run_owner, "Alpha Wire flash news")
    assert len(brief.citations) == 2, brief.body
    assert "Sources differ" not in brief.body and brief.agreements == []


@offline
def test_ask_json_carries_the_table(stub_rsshub, capsys):
    serve(stub_rsshub, "3,000", "5,000")
    call_command("ask", QUESTION, "--json", "--offline")
    result = json.loads(capsys.readouterr().out)
    assert result["agreements"][0]["differences"][0]["said"][0]["text"] == "3,000", result


def test_the_writer_model_is_told_the_difference_and_its_report_is_kept(
    run_owner, stub_rsshub, llm_server
):
    serve(stub_rsshub, "3,000", "5,000")
    written = "Acme would cut jobs in a worldwide restructuring: Alpha Wire says 3,000 [1]; "
    written += "Beta Daily says 5,000 [2]."
    llm_server.script(
        tool_call({"query": QUESTION, "language": "en", "keywords": ["flash"], "window": "latest"}),
        tool_call({"chosen": ["alpha", "beta"], "reason": "named"}),
        tool_call({"routes": [{"route": "/alpha/flash", "params": {}},
                              {"route": "/beta/latest", "params": {}}], "reason": "flash"}),
        text(written),
    )  # fmt: skip
    brief = brief_run(run_owner, QUESTION)
    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    prompt = llm_server.requests[-1]["messages"][1]["content"]
    assert "differ on a number: Alpha Wire says 3,000 [1]; Beta Daily says 5,000 [2]" in prompt
    assert brief.mode != "offline" and written in brief.body, brief.body
    assert brief.agreements[0]["differences"][0]["kind"] == "number"
