"""Every kind of outcome, end to end, offline, against a stand-in RSSHub on 127.0.0.1: what the
brief says, the outcome and reason stored with it, and the ``brief_ready`` step.

In the ``world`` catalog "Alpha Wire flash news" reads /alpha/flash first, whose items are
general wire news; a question that also names a subject (Zephyrcorp) is answered from the
items that mention it, or is off topic when none does. The ``delta`` platform's only route needs
a repository: a question that names none is asked for it, and its follow-up reads it.
"""

import pytest
from django.utils import translation

from agent.summary.draft import row_explanation
from briefs.models import BriefOutcome, BriefStatus
from briefs.services import brief_needs_answer
from briefs.tasks import run_brief
from briefs.tokens.service import token_issue
from tests.agent.conftest import (
    RSS_TYPE,
    FeedItem,
    brief_run,
    decisions,
    delta_platform_create,
    feed,
    fetched,
    rss_body,
    steps_of,
)
from tests.api.conftest import ApiClient
from tests.briefs.test_views import Tags
from tests.httpserver import Reply
from tests.ports import free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world", "offline")]

WIRE = ("Chip prices fall", "Port strike ends", "Rain in the north", "Markets open higher")
EMPTY_FEED = Reply(200, RSS_TYPE, rss_body([]))
ROUTE_EMPTY = Reply(
    503, {"Content-Type": "text/html"}, b"<title>Error: this route is empty</title>"
)


def ready(brief) -> dict:
    return steps_of(brief, "brief_ready")[-1]


def test_items_that_answer_the_question_make_it_answered(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed(*WIRE))

    brief = brief_run(run_owner, "Alpha Wire flash news")

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert (brief.outcome, brief.outcome_reason, brief.needs) == ("answered", "", [])
    assert ready(brief)["outcome"] == "answered"
    assert len(brief.citations) == 4


def test_a_source_of_the_answering_batch_failing_makes_it_partial(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed(*WIRE))  # /beta/latest: 404

    brief = brief_run(run_owner, "Alpha Wire and Beta Daily flash news")

    assert brief.outcome == BriefOutcome.PARTIAL
    assert ready(brief)["outcome"] == "partial"
    assert brief.citations and "`/beta/latest`: beta has no such page" in brief.body


def test_items_outside_the_window_asked_for_make_it_partial(run_owner, stub_rsshub):
    old = [FeedItem(title, hours_ago=24 * 10 + n) for n, title in enumerate(WIRE)]
    stub_rsshub.route("/alpha/flash", Reply(200, RSS_TYPE, rss_body(old)))

    brief = brief_run(run_owner, "Alpha Wire flash news today")

    assert brief.window_label == "today"
    assert brief.outcome == BriefOutcome.PARTIAL
    assert "None of the fetched items falls in the window asked for (today)" in brief.body
    assert len(brief.citations) == 4


def test_feeds_that_answer_with_nothing_are_no_data_not_found(run_owner, stub_rsshub, settings):
    settings.AGENT_ROUTER_BUDGET = 30
    for path in ("/alpha/flash", "/alpha/archive", "/beta/latest"):
        stub_rsshub.route(path, EMPTY_FEED)
    for path in ("/alpha/stories", "/beta/opinion"):
        stub_rsshub.route(path, ROUTE_EMPTY)

    brief = brief_run(run_owner, "Alpha Wire flash news")

    assert brief.status == BriefStatus.SUCCEEDED
    assert (brief.outcome, brief.outcome_reason) == ("no_data", "empty")
    assert ready(brief) | {"as_of": None} == {
        "status": "succeeded",
        "outcome": "no_data",
        "reason": "empty",
        "citations": 0,
        "items": 0,
        "as_of": None,
    }
    assert brief.body.startswith("**Not found.** As of ")
    assert "the sources read answered but had no items" in brief.body
    assert "`/alpha/stories`: alpha answered but had no items" in brief.body


def test_every_route_failing_is_no_data_unreachable(run_owner, stub_rsshub, settings):
    settings.AGENT_ROUTER_BUDGET = 30  # every path: 404

    brief = brief_run(run_owner, "Alpha Wire flash news")

    assert len(fetched(stub_rsshub)) == 5
    assert (brief.outcome, brief.outcome_reason) == ("no_data", "unreachable")
    assert brief.body.startswith("**Can't query.** As of ")
    assert "5 sources were tried and none could be read" in brief.body


def test_rsshub_down_is_no_data_unreachable(run_owner, settings):
    # A port nothing listens on: connections are refused.
    settings.RSSHUB_URL = f"http://127.0.0.1:{free_port()}"
    settings.RSSHUB_ACCESS_KEY = ""

    brief = brief_run(run_owner, "Alpha Wire flash news")

    outcomes = {row["outcome"] for row in brief.coverage["failed"]}
    assert outcomes == {"rsshub_unavailable"}
    assert (brief.outcome, brief.outcome_reason) == ("no_data", "unreachable")
    assert "RSSHub itself did not answer, so no source was fetched" in brief.body
    with translation.override("en"):  # the row tells the same story in the same words
        [row] = brief.coverage["failed"]
        assert row_explanation(row).startswith("RSSHub itself did not answer, so alpha was not")
    # One route, retried; no other route is tried through the same silent RSSHub.
    assert len(brief.coverage["tried"]) == 1
    assert steps_of(brief, "router")[-1]["reason"] == "RSSHub itself does not answer"


def test_general_items_none_about_the_subject_are_off_topic(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed(*WIRE, "Harbour reopens", "Trains delayed"))

    brief = brief_run(run_owner, "Alpha Wire flash news about Zephyrcorp")

    assert brief.outcome == BriefOutcome.OFF_TOPIC
    assert ready(brief)["outcome"] == "off_topic"
    first = brief.body.splitlines()[0]
    assert first.endswith(
        "none of the 6 items from Alpha Wire · /alpha/flash mention Zephyrcorp."
    ), first
    assert "## Newest items, not about Zephyrcorp" in brief.body
    # At most five of the newest, each still linked.
    assert [c["title"] for c in brief.citations] == [*WIRE, "Harbour reopens"]


def test_items_that_mention_the_subject_come_first_and_alone(run_owner, stub_rsshub):
    stub_rsshub.route(
        "/alpha/flash",
        feed("Chip prices fall", "Zephyrcorp opens a plant", "Port strike ends", "ZEPHYRCORP sued"),
    )

    brief = brief_run(run_owner, "Alpha Wire flash news about Zephyrcorp")

    assert brief.outcome == BriefOutcome.ANSWERED
    assert [c["title"] for c in brief.citations] == ["Zephyrcorp opens a plant", "ZEPHYRCORP sued"]
    assert "2 of the 4 items fetched mention Zephyrcorp; only those are listed." in brief.body


def test_a_subject_every_item_mentions_is_said_under_the_lead_line(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed("Zephyrcorp opens a plant", "ZEPHYRCORP sued"))

    brief = brief_run(run_owner, "Alpha Wire flash news about Zephyrcorp")

    lines = brief.body.splitlines()
    # the older item is two hours and some seconds old: the span rounds up
    assert (
        lines[0].startswith("As of ") and ": 2 items from 1 source in the last 3 hours" in lines[0]
    )
    assert lines[1] == "All 2 items fetched are about Zephyrcorp."


@pytest.fixture
def delta(world):
    delta_platform_create()


@pytest.mark.usefixtures("delta")
def test_a_question_without_the_value_a_route_needs_asks_for_it(run_owner, stub_rsshub):
    brief = brief_run(run_owner, "Delta Code repo issues")

    assert fetched(stub_rsshub) == []  # neither the example's repository nor another platform
    assert decisions(brief) == ["needs_input"]
    assert (brief.outcome, brief.outcome_reason) == ("needs_input", "")
    assert [(n["source"], n["parameter"]) for n in brief.needs] == [
        ("Delta Code", "user"),
        ("Delta Code", "repo"),
    ]
    assert ready(brief)["outcome"] == "needs_input"
    assert brief.body.startswith("As of ")
    assert "the question does not say what to look up" in brief.body
    assert "**Which Delta Code repo?** Give it as " in brief.body
    assert "What it is: Repo name" in brief.body
    assert "Read from: Delta Code, /delta/issues/:user/:repo" in brief.body
    assert brief.citations == []


@pytest.mark.usefixtures("delta")
def test_the_values_given_for_a_brief_that_asked_are_read_in_its_follow_up(run_owner, stub_rsshub):
    stub_rsshub.route("/delta/issues/acme/widget", feed("Widget crashes on start"))
    asked = brief_run(run_owner, "Delta Code repo issues")

    follow_up = brief_needs_answer(owner=run_owner, brief_id=asked.pk, values=["acme", "widget"])
    run_brief(follow_up.pk)
    follow_up.refresh_from_db()

    assert follow_up.follow_up_of_id == asked.pk
    assert follow_up.question == 'Delta Code repo issues "acme" "widget"'
    assert fetched(stub_rsshub) == ["/delta/issues/acme/widget"]
    assert (follow_up.outcome, follow_up.needs) == ("answered", [])
    assert [c["title"] for c in follow_up.citations] == ["Widget crashes on start"]


def test_the_outcome_of_a_run_shows_on_its_page_and_in_the_api(
    run_owner, stub_rsshub, settings, client
):
    settings.AGENT_ROUTER_BUDGET = 30  # every path: 404
    brief = brief_run(run_owner, "Alpha Wire flash news")
    client.force_login(run_owner)

    html = client.get(brief.get_absolute_url()).content.decode()
    [badge] = [a for a in Tags(html).find("span") if "data-status" in a]
    assert (badge["data-outcome"], badge["class"]) == ("no_data", "badge tone-bad")
    api = ApiClient(token_issue(user=run_owner, name="t").secret)
    body = api.get(f"/api/v1/briefs/{brief.pk}").json()
    assert (body["status"], body["outcome"], body["reason"]) == (
        "succeeded",
        "no_data",
        "unreachable",
    )


def test_the_framing_follows_the_questions_language(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed(*WIRE))

    brief = brief_run(run_owner, "阿尔法快讯 关于 泽菲尔 的消息")

    assert (brief.language, brief.outcome) == ("zh-hans", BriefOutcome.OFF_TOPIC)
    assert brief.body.startswith(f"截至 {brief.as_of:%Y-%m-%d %H:%M} UTC，来自 "), brief.body  # noqa: RUF001
    assert "的 4 条内容都没有提到 泽菲尔。" in brief.body.splitlines()[0]
    assert "## 最新内容（与 泽菲尔 无关）" in brief.body  # noqa: RUF001
    assert "## 覆盖情况" in brief.body
    assert "`/alpha/flash`: alpha 返回了 4 条内容" in brief.body


def test_an_english_question_after_a_chinese_page_stays_english(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed(*WIRE))

    with translation.override("zh-hans"):
        brief = brief_run(run_owner, "Alpha Wire flash news")

    assert brief.body.startswith("As of "), brief.body
    assert "## Coverage" in brief.body
