"""The outcome rule, row by row, and the subject test it leans on; the migration that gives
briefs of before an outcome."""

import importlib

import pytest
from django.apps import apps

from agent.summary.outcome import RunFacts, outcome_decide
from agent.summary.subject import Subject, subject_of
from briefs.coverage import Attempted
from briefs.models import Brief, BriefStatus

NEED = {"parameter": "repo", "description": "Repository", "format": "owner/name"}
OK = Attempted("/a/flash", "ok", 5)


def decide(**facts) -> tuple[str, str]:
    verdict = outcome_decide(RunFacts(**facts))
    return verdict.outcome.value, str(verdict.reason)


def test_nothing_fetched_and_a_missing_value_asks_for_it():
    assert decide(needs=[NEED]) == ("needs_input", "")
    assert decide(attempted=[Attempted("/a/x", "not_found", 0)], needs=[NEED]) == (
        "needs_input",
        "",
    )


def test_items_make_needs_irrelevant():
    assert decide(attempted=[OK], answer_paths=("/a/flash",), items=5, needs=[NEED]) == (
        "answered",
        "",
    )


@pytest.mark.parametrize("answered", ["ok", "not_modified", "empty"])
def test_a_source_that_answered_without_items_is_not_found(answered):
    attempted = [Attempted("/a/x", "upstream_error", 0), Attempted("/a/y", answered, 0)]
    assert decide(attempted=attempted) == ("no_data", "empty")


@pytest.mark.parametrize(
    "attempted",
    [
        [],
        [Attempted("/a/x", "rsshub_unavailable", 0)],
        [Attempted("/a/x", "not_found", 0), Attempted("/a/y", "timeout", 0)],
        # The last attempt of a path is what it ended with.
        [Attempted("/a/x", "ok", 0), Attempted("/a/x", "timeout", 0)],
    ],
)
def test_no_source_read_is_cant_query(attempted):
    assert decide(attempted=attempted) == ("no_data", "unreachable")


def test_items_none_about_the_subject_are_off_topic():
    assert decide(attempted=[OK], answer_paths=("/a/flash",), items=5, on_subject=0) == (
        "off_topic",
        "",
    )


def test_a_failure_in_the_answering_batch_is_partial_an_earlier_one_is_not():
    attempted = [Attempted("/a/old", "not_found", 0), OK, Attempted("/b/new", "timeout", 0)]
    assert decide(attempted=attempted, answer_paths=("/a/flash",), items=5) == ("answered", "")
    assert decide(attempted=attempted, answer_paths=("/a/flash", "/b/new"), items=5) == (
        "partial",
        "",
    )


def test_items_outside_the_window_are_partial():
    assert decide(attempted=[OK], answer_paths=("/a/flash",), items=5, in_window=False) == (
        "partial",
        "",
    )


CONTEXT = {"36kr", "36氪", "快讯", "newsflashes", "hacker", "news", "hackernews", "github"}


@pytest.mark.parametrize(
    ("keywords", "terms"),
    [
        (["36氪快讯", "华为", "Mate", "80"], ("华为", "Mate", "80")),
        (["华为", "Mate", "80", "36kr", "newsflashes"], ("华为", "Mate", "80")),
        (["Hacker", "posts", "Rust"], ("Rust",)),
        (["everyone", "talking", "Hacker"], ()),
        (["36氪", "快讯"], ()),
        (["热门视频"], ()),
        (["Open", "issues", "django", "GitHub", "repository"], ("django",)),
    ],
)
def test_the_subject_is_the_keywords_without_platform_route_and_filler_words(keywords, terms):
    assert subject_of(keywords, CONTEXT).terms == terms


def test_an_item_mentions_the_subject_folding_case_and_width():
    subject = Subject(("华为", "Mate", "80"))
    assert subject.mentions("ＭＡＴＥ 70 降价") == 1  # noqa: RUF001
    assert subject.mentions("华为发布新机") == 1
    assert subject.mentions("iPhone 80 周年") == 0, "a bare number is in too many texts"
    assert Subject(("2267573",)).mentions("uid 2267573 posted") == 1


def test_a_feed_whose_path_carries_the_subject_was_chosen_for_it():
    subject = Subject(("小米",))
    assert subject.carried_by("/weibo/keyword/%E5%B0%8F%E7%B1%B3")
    assert not subject.carried_by("/weibo/search/hot")


@pytest.mark.django_db
def test_the_migration_gives_succeeded_briefs_of_before_an_outcome(owner):
    migration = importlib.import_module("briefs.migrations.0005_brief_outcome")

    def old(**fields) -> Brief:
        return Brief.objects.create(owner=owner, question="q", **fields)

    row = {"path": "/a", "attempts": 1, "items": 3, "message": ""}
    answered = old(
        status=BriefStatus.SUCCEEDED,
        citations=[{"n": 1}],
        coverage={"succeeded": [{**row, "outcome": "ok"}], "failed": []},
    )
    partial = old(
        status=BriefStatus.SUCCEEDED,
        citations=[{"n": 1}],
        coverage={
            "succeeded": [{**row, "outcome": "ok"}],
            "failed": [{**row, "outcome": "timeout"}],
        },
    )
    empty = old(status=BriefStatus.SUCCEEDED, coverage={"failed": [{**row, "outcome": "empty"}]})
    unreachable = old(status=BriefStatus.SUCCEEDED, coverage={})
    failed = old(status=BriefStatus.FAILED)

    migration.outcome_backfill(apps, None)

    def outcome(brief) -> tuple[str, str]:
        brief.refresh_from_db()
        return brief.outcome, brief.outcome_reason

    assert outcome(answered) == ("answered", "")
    assert outcome(partial) == ("partial", "")
    assert outcome(empty) == ("no_data", "empty")
    assert outcome(unreachable) == ("no_data", "unreachable")
    assert outcome(failed) == ("", "")
