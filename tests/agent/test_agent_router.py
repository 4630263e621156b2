"""The router table of DESIGN.md 2.2, row by row, offline, against a stand-in RSSHub on 127.0.0.1.

In the ``world`` catalog, "Alpha Wire flash news" chooses the platform alpha alone, whose routes
rank /alpha/flash, /alpha/archive, /alpha/stories, then /alpha/user/:id (which nothing can fill);
beta is the platform a widening finds next.
"""

import re

import pytest

from agent.summary.draft import escape_markdown
from briefs.models import BriefOutcome, BriefStatus
from fetching.outcome_text import outcome_explanation
from tests.agent.conftest import (
    NOT_FOUND,
    UPSTREAM_DOWN,
    brief_run,
    decisions,
    feed,
    fetched,
    steps_of,
)

QUESTION = "Alpha Wire flash news"
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world", "offline")]


def test_items_go_to_summarize(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed("Chip prices fall", "Port strike ends"))

    brief = brief_run(run_owner, QUESTION)

    assert brief.status == BriefStatus.SUCCEEDED, brief.error
    assert fetched(stub_rsshub) == ["/alpha/flash"]
    assert decisions(brief) == ["summarize"]
    assert [c["title"] for c in brief.citations] == ["Chip prices fall", "Port strike ends"]
    assert "- **Chip prices fall** · Alpha Wire · " in brief.body
    assert (brief.outcome, brief.outcome_reason) == (BriefOutcome.ANSWERED, "")


def test_partial_success_is_success_and_the_failure_is_reported(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed("Chip prices fall"))  # /beta/latest: 404

    brief = brief_run(run_owner, "Alpha Wire and Beta Daily flash news")

    assert sorted(fetched(stub_rsshub)) == ["/alpha/flash", "/beta/latest"]
    assert decisions(brief) == ["summarize"]
    assert [row["path"] for row in brief.coverage["failed"]] == ["/beta/latest"]
    assert brief.coverage["failed"][0]["outcome"] == "not_found"
    assert "`/beta/latest`: beta has no such page" in brief.body
    assert brief.outcome == BriefOutcome.PARTIAL


def test_semantic_failures_choose_another_route_excluding_the_failed(run_owner, stub_rsshub):
    stub_rsshub.route("/alpha/flash", NOT_FOUND)
    stub_rsshub.route("/alpha/archive", NOT_FOUND)
    stub_rsshub.route("/alpha/stories", feed("Harbour reopens"))

    brief = brief_run(run_owner, QUESTION)

    assert fetched(stub_rsshub) == ["/alpha/flash", "/alpha/archive", "/alpha/stories"]
    assert decisions(brief) == ["route", "route", "summarize"]
    route_choices = [p["chosen"] for p in steps_of(brief, "choice") if p["node"] == "route"]
    assert route_choices == [["/alpha/flash"], ["/alpha/archive"], ["/alpha/stories"]]
    offered_later = [p["items"] for p in steps_of(brief, "candidates") if p["node"] == "route"][1]
    assert "/alpha/flash" not in [item["path"] for item in offered_later]
    assert brief.citations[0]["title"] == "Harbour reopens"
    # Routes given up on before the one that answered do not make the answer partial.
    assert brief.outcome == BriefOutcome.ANSWERED


def test_transient_failures_are_retried_up_to_fetch_retry_then_routed(
    run_owner, stub_rsshub, settings
):
    settings.AGENT_FETCH_RETRY = 2
    stub_rsshub.route("/alpha/flash", UPSTREAM_DOWN)
    stub_rsshub.route("/alpha/archive", feed("Harbour reopens"))

    brief = brief_run(run_owner, QUESTION)

    assert fetched(stub_rsshub) == ["/alpha/flash"] * 3 + ["/alpha/archive"]
    assert decisions(brief) == ["retry", "retry", "route", "summarize"]
    flash = next(row for row in brief.coverage["failed"] if row["path"] == "/alpha/flash")
    assert (flash["outcome"], flash["attempts"]) == ("upstream_error", 3)


def test_only_the_transient_paths_are_retried(run_owner, stub_rsshub, settings):
    settings.AGENT_FETCH_RETRY = 1
    stub_rsshub.route("/alpha/flash", UPSTREAM_DOWN)  # /beta/latest: 404, semantic

    brief = brief_run(run_owner, "Alpha Wire and Beta Daily flash news")

    paths = fetched(stub_rsshub)
    assert paths.count("/alpha/flash") == 2
    assert paths.count("/beta/latest") == 1
    assert decisions(brief)[:2] == ["retry", "route"]


def test_no_route_left_widens_to_another_platform_excluding_the_tried(
    run_owner, stub_rsshub, settings
):
    settings.AGENT_ROUTER_BUDGET = 12  # platform + 3 x (route, fetch) + route, then platform
    stub_rsshub.route("/beta/latest", feed("Beta story"))  # every alpha route: 404

    brief = brief_run(run_owner, QUESTION)

    alpha = ["/alpha/flash", "/alpha/archive", "/alpha/stories"]
    assert fetched(stub_rsshub) == [*alpha, "/beta/latest"]
    assert decisions(brief) == ["route", "route", "route", "platform", "summarize"]
    platform_choices = [p["chosen"] for p in steps_of(brief, "choice") if p["node"] == "platform"]
    assert platform_choices == [["alpha"], ["beta"]]
    widened = [p["items"] for p in steps_of(brief, "candidates") if p["node"] == "platform"][1]
    assert "alpha" not in [item["namespace"] for item in widened]
    refused = steps_of(brief, "choice_rejected")
    assert [(r["value"], r["reason"]) for r in refused] == [
        ("/alpha/user/:id", "missing_subject: the question gives no value for :id")
    ]
    assert brief.citations[0]["title"] == "Beta story"


def test_a_spent_budget_ends_in_an_honest_summary(run_owner, stub_rsshub, settings):
    settings.AGENT_ROUTER_BUDGET = 5  # platform, route, fetch, route, fetch

    brief = brief_run(run_owner, QUESTION)

    assert fetched(stub_rsshub) == ["/alpha/flash", "/alpha/archive"]
    router = steps_of(brief, "router")
    assert router[-1]["decision"] == "summarize"
    assert router[-1]["reason"] == "step budget of 5 spent"
    started = steps_of(brief, "step_started")
    assert [s["step"] for s in started] == [1, 2, 3, 4, 5]
    assert {s["budget"] for s in started} == {5}
    assert brief.status == BriefStatus.SUCCEEDED
    assert brief.citations == []
    assert "could not fetch anything" in brief.body
    assert (brief.outcome, brief.outcome_reason) == (BriefOutcome.NO_DATA, "unreachable")
    assert brief.usage["steps"] == 5


def test_nothing_fetched_says_so_lists_what_was_tried_and_invents_nothing(
    run_owner, stub_rsshub, settings
):
    settings.AGENT_ROUTER_BUDGET = 30  # enough to run out of platforms first
    stub_rsshub.route("/beta/latest", UPSTREAM_DOWN)  # every other path: 404

    brief = brief_run(run_owner, QUESTION)

    assert decisions(brief)[-1] == "summarize"
    assert steps_of(brief, "router")[-1]["reason"].startswith("no platform left")
    assert brief.citations == []
    assert (brief.outcome, brief.outcome_reason) == (BriefOutcome.NO_DATA, "unreachable")
    assert brief.body.startswith(
        f"**Can't query.** As of {brief.as_of:%Y-%m-%d %H:%M} UTC, I could not fetch"
    )
    tried = {row["path"]: row["outcome"] for row in brief.coverage["failed"]}
    assert tried == {
        "/alpha/flash": "not_found",
        "/alpha/archive": "not_found",
        "/alpha/stories": "not_found",
        "/beta/latest": "upstream_error",
        "/beta/opinion": "not_found",
    }
    for path, outcome in tried.items():
        said = outcome_explanation(outcome, path=path)
        assert f"`{path}`: {escape_markdown(said)}" in brief.body, f"{path} is not explained"
    # The only time in the body is the run's own "as of"; the only number besides it and the
    # paths is the count of sources tried.
    assert re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d", brief.body) == [f"{brief.as_of:%Y-%m-%d %H:%M}"]
    assert "5 sources were tried" in brief.body


def test_a_question_no_platform_fits_fetches_nothing_and_says_so(run_owner, stub_rsshub):
    brief = brief_run(run_owner, "zyxwvut qwertyuiop")

    assert fetched(stub_rsshub) == []
    assert brief.status == BriefStatus.SUCCEEDED
    assert "found no source in the catalog" in brief.body
    assert (brief.outcome, brief.outcome_reason) == (BriefOutcome.NO_DATA, "unreachable")
    assert brief.coverage["tried"] == []
