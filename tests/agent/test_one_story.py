"""One story per outcome: a brief that read nothing because of RSSHub itself says why first, in
the words its coverage rows use (``fetching.outcome_text``), in English and Chinese; a run that
found RSSHub without internet tells each row it could not read by that cause; the subject note
names no bare number and its verb agrees with its count."""

from datetime import UTC, datetime

import pytest
from django.utils import translation

from agent.summary.answer import AnswerPlan, subject_note
from agent.summary.honest import brief_no_data
from agent.summary.outcome import Verdict
from agent.summary.subject import Subject
from briefs.coverage import Attempted, coverage_rows, row_explanation
from briefs.models import BriefOutcome
from fetching.egress import EGRESS_REASON
from fetching.models import Outcome

AS_OF = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
DOWN = Attempted(path="/36kr/hot-list", outcome=Outcome.RSSHUB_UNAVAILABLE, items=0)
EGRESS = Attempted(
    path="/36kr/hot-list", outcome=Outcome.RSSHUB_UNAVAILABLE, items=0, reason=EGRESS_REASON
)
# (language, outage flags, attempts, words the opening and every row share)
STORIES = [
    (
        "en",
        {"egress_down": True},
        [EGRESS],
        [
            "RSSHub cannot reach the internet",
            "did not fail. Ask again once RSSHub's network is back.",
        ],
    ),
    (
        "en",
        {"rsshub_down": True},
        [DOWN],
        ["RSSHub itself did not answer", "did not fail. Ask again once RSSHub is back."],
    ),
    (
        "zh-hans",
        {"egress_down": True},
        [EGRESS],
        ["RSSHub 无法访问互联网", "没有出错。请在 RSSHub 的网络恢复后再问。"],
    ),
    (
        "zh-hans",
        {"rsshub_down": True},
        [DOWN],
        ["RSSHub 本身没有回应", "没有出错。请在 RSSHub 恢复后再问。"],
    ),
]


@pytest.mark.parametrize(("language", "flags", "attempted", "shared"), STORIES)
def test_the_opening_and_the_coverage_row_tell_one_story(language, flags, attempted, shared):
    with translation.override(language):
        body = brief_no_data("unreachable", attempted=attempted, as_of=AS_OF, **flags).body
        egress = flags.get("egress_down", False)
        rows = [row_explanation(r) for r in coverage_rows(attempted, egress_down=egress)]
    opening = body.split("\n")[0]
    for words in shared:
        assert words in opening, (words, opening)
        assert all(words in row for row in rows), (words, rows)
    assert "try again in a few minutes" not in body


def test_a_run_without_internet_tells_its_unanswered_rows_by_that_cause():
    timeout = Attempted(path="/a/b", outcome=Outcome.TIMEOUT, items=0)

    rows = coverage_rows([DOWN, timeout], egress_down=True)

    assert [row.get("reason") for row in rows] == [EGRESS_REASON, None]
    assert [row.get("reason") for row in coverage_rows([DOWN])] == [None]
    with translation.override("en"):
        body = brief_no_data("unreachable", attempted=[DOWN], as_of=AS_OF, egress_down=True).body
    assert body.count("RSSHub cannot reach the internet") == 2, "the opening and the row"
    assert "did not answer" not in body


def plan(terms: tuple[str, ...], *, about: int, fetched: int) -> AnswerPlan:
    verdict = Verdict(BriefOutcome.PARTIAL)
    return AnswerPlan(
        items=[], in_window=True, verdict=verdict, subject=Subject(terms),
        fetched=fetched, about=about,
    )  # fmt: skip


def test_a_subject_of_bare_numbers_gets_no_note():
    with translation.override("en"):
        assert subject_note(plan(("2",), about=2, fetched=2)) == ""
        assert subject_note(plan(("2", "Nvidia"), about=2, fetched=2)) == (
            "All 2 items fetched are about 2 Nvidia."
        )


def test_the_mention_count_and_its_verb_agree():
    with translation.override("en"):
        one = subject_note(plan(("Nvidia",), about=1, fetched=5))
        two = subject_note(plan(("Nvidia",), about=2, fetched=5))
    assert one == "1 of the 5 items fetched mentions Nvidia; only it is listed."
    assert two == "2 of the 5 items fetched mention Nvidia; only those are listed."
