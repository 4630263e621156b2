"""Every outcome class has a name and a one-line explanation with a next step, in English and in
Chinese, naming the source and never the raw error."""

import re
from datetime import datetime, timedelta, timezone

import pytest
from django.utils import translation

from fetching.egress import EGRESS_REASON
from fetching.models import Outcome
from fetching.outcome_text import (
    OUTCOME_EXPLANATIONS,
    outcome_explanation,
    outcome_name,
    source_of,
)
from fetching.outcomes import ACCESS_KEY_REASON

LANGUAGES = ["en", "zh-hans"]
# What a stack trace or a raw RSSHub error looks like: none of it belongs in an explanation.
RAW_RE = re.compile(
    r"Error:|ENOTFOUND|getaddrinfo|Traceback|\[GET\]|\bat \w+ \(|https?://|_(?:error|found)"
)
CJK_RE = re.compile(r"[\u4e00-\u9fff]")


def test_every_class_has_an_explanation_of_its_own():
    assert set(OUTCOME_EXPLANATIONS) == set(Outcome) - {Outcome.OK}, "ok is said by its count"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("outcome", list(Outcome))
def test_each_class_has_a_name_and_a_line_naming_the_source(outcome, language):
    with translation.override(language):
        name = outcome_name(outcome)
        line = outcome_explanation(outcome, path="/36kr/hot-list", items=3)
    assert name and "_" not in name, f"{outcome} has no name of its own: {name!r}"
    assert line and "\n" not in line
    if outcome != Outcome.NEEDS_BROWSER:  # the route's own lack, whatever the source
        assert "36kr" in line, f"{outcome}: the source is not named in {line!r}"
    assert "%(" not in line, f"{outcome}: a placeholder left in {line!r}"
    assert not RAW_RE.search(line), f"{outcome}: raw error text in {line!r}"
    if language == "zh-hans":
        assert CJK_RE.search(line) and CJK_RE.search(name), f"{outcome} is not translated"


@pytest.mark.parametrize("language", LANGUAGES)
def test_failures_say_what_to_do_next(language):
    nexts = {"en": ("try", "ask staff", "Ask again"), "zh-hans": ("再试", "请", "换")}[language]
    with translation.override(language):
        for outcome in set(Outcome) - {Outcome.OK, Outcome.NOT_MODIFIED}:
            line = outcome_explanation(outcome, path="/36kr/hot-list")
            assert any(word in line for word in nexts), f"{outcome}: {line!r}"


def test_the_issues_own_examples_read_as_asked():
    with translation.override("en"):
        blocked = outcome_explanation(Outcome.AUTH_REQUIRED, path="/36kr/hot-list")
        browser = outcome_explanation(Outcome.NEEDS_BROWSER, path="/twitter/user/x")
    assert blocked == (
        "36kr blocked RSSHub's request; try again later, or ask staff to check the route."
    )
    assert browser.startswith("this route needs a browser that this RSSHub does not have")


def test_the_reason_changes_the_line_where_the_class_alone_misleads():
    with translation.override("en"):
        key = outcome_explanation(
            Outcome.AUTH_REQUIRED, path="/36kr/hot-list", reason=ACCESS_KEY_REASON
        )
        offline = outcome_explanation(
            Outcome.RSSHUB_UNAVAILABLE, path="/36kr/hot-list", reason=EGRESS_REASON
        )
        unknown_reason = outcome_explanation(Outcome.TIMEOUT, path="/a/b", reason="other")
    assert "access key" in key and "blocked" not in key
    assert "cannot reach the internet" in offline
    assert unknown_reason == outcome_explanation(Outcome.TIMEOUT, path="/a/b")


def test_an_open_circuit_says_when_it_is_tried_again_in_utc():
    until = datetime(2026, 12, 1, 10, 12, tzinfo=timezone(timedelta(hours=8)))
    with translation.override("en"):
        line = outcome_explanation(
            Outcome.TIMEOUT, path="/36kr/hot-list", circuit_open=True, circuit_until=until
        )
        soon = outcome_explanation(Outcome.TIMEOUT, path="/36kr/hot-list", circuit_open=True)
    assert "36kr failed several times in a row" in line
    assert line.endswith("tried again after 2026-12-01 02:12 UTC."), line
    assert "next question" in soon


def test_ok_counts_items_in_the_right_plural():
    with translation.override("en"):
        assert outcome_explanation(Outcome.OK, path="/a", items=1) == "a answered with 1 item."
        assert outcome_explanation(Outcome.OK, path="/a", items=2) == "a answered with 2 items."


@pytest.mark.parametrize("value", ["", None, "no_such_class", 42, "<b>x</b>"])
def test_a_value_that_is_no_class_gets_a_plain_line(value):
    with translation.override("en"):
        line = outcome_explanation(value, path="/36kr/x")
        assert outcome_name(value) == ("" if value is None else str(value))
    assert line == "36kr could not be fetched; try again later."


@pytest.mark.parametrize(
    ("path", "source"),
    [("/36kr/hot-list", "36kr"), ("36kr", "36kr"), ("/github/trending/daily", "github")],
)
def test_the_source_is_the_first_segment(path, source):
    assert source_of(path) == source


@pytest.mark.parametrize("path", ["", "/", None])
def test_a_path_without_a_segment_is_the_source(path):
    with translation.override("en"):
        assert source_of(path) == "the source"
