"""The summarize node's pure parts: item selection, citation validation, the extractive brief,
the honest no-data brief and the coverage section."""

import re
from datetime import UTC, datetime, timedelta

from agent.question import TimeWindow
from agent.summary.digest import brief_extractive
from agent.summary.draft import MAX_ITEMS, PER_SOURCE, SourceItem, citations_validate, items_select
from agent.summary.honest import brief_no_data
from briefs.coverage import Attempted, coverage_rows

AS_OF = datetime(2026, 3, 11, 15, 30, tzinfo=UTC)
TODAY = TimeWindow("today", datetime(2026, 3, 11, tzinfo=UTC), AS_OF)


def item(title, hours_ago=1.0, *, path="/alpha/flash", source="Alpha Wire", summary="", n=0):
    published = AS_OF - timedelta(hours=hours_ago) if hours_ago is not None else None
    return SourceItem(
        n, abs(hash(title)) % 10**6, title, f"https://e.x/{title}", summary, published, path, source
    )


def test_items_in_the_window_come_first_relevant_then_newest_and_numbered():
    items = [item("old chip", 30), item("port news", 2), item("chip news", 3), item("fresh", 1)]

    chosen, in_window = items_select(items, window=TODAY, keywords=["chip"])

    assert in_window
    assert [(i.n, i.title) for i in chosen] == [(1, "chip news"), (2, "fresh"), (3, "port news")]


def test_when_no_item_falls_in_the_window_the_newest_stand_and_it_is_said():
    items = [item("a", 40), item("b", 30)]

    chosen, in_window = items_select(items, window=TODAY, keywords=[])
    draft = brief_extractive(chosen, attempted=[], window=TODAY, in_window=in_window, as_of=AS_OF)

    assert not in_window
    assert [i.title for i in chosen] == ["b", "a"]
    assert "None of the fetched items falls in the window asked for (today)" in draft.body


def test_selection_is_bounded_per_source_and_overall():
    many = [item(f"a{n}", n / 100, path="/alpha/flash") for n in range(20)]
    many += [item(f"b{n}", n / 100, path=f"/beta/{n % 5}", source="Beta") for n in range(40)]

    chosen, _ = items_select(many, window=TimeWindow("latest"), keywords=[])

    assert len(chosen) == MAX_ITEMS
    assert sum(1 for i in chosen if i.path == "/alpha/flash") == PER_SOURCE


def test_citations_of_numbers_that_are_not_given_items_are_removed():
    items = [item("a", n=1), item("b", n=2)]

    body, cited = citations_validate("Chips fell [1]. Ports reopened [2][99]. Odd [0].", items)

    assert body == "Chips fell [1]. Ports reopened [2]. Odd ."
    assert cited == {1, 2}


def test_the_extractive_brief_lists_entries_with_source_time_and_citation():
    chosen, _ = items_select(
        [item("Chips fall", 2), item("Beta story", 1, path="/beta/latest", source="Beta Daily")],
        window=TimeWindow("latest"),
        keywords=[],
    )

    draft = brief_extractive(
        chosen,
        attempted=[Attempted("/alpha/flash", "ok", 1), Attempted("/beta/latest", "ok", 1)],
        window=TimeWindow("latest"),
        in_window=True,
        as_of=AS_OF,
    )

    assert draft.method == "extractive"
    assert draft.body.startswith(
        "As of 2026-03-11 15:30 UTC: 2 items from 2 sources in the last 2 hours; newest 14:30 UTC."
    )
    assert "- **Beta story** · Beta Daily · 2026-03-11 14:30 UTC [1]\n" in draft.body
    assert "- **Chips fall** · Alpha Wire · 2026-03-11 13:30 UTC [2]\n" in draft.body
    assert [(c["n"], c["title"], c["path"]) for c in draft.citations] == [
        (1, "Beta story", "/beta/latest"),
        (2, "Chips fall", "/alpha/flash"),
    ]
    assert draft.citations[0]["published_at"] == "2026-03-11T14:30:00+00:00"


def test_an_item_without_a_time_gets_none_invented():
    chosen, _ = items_select([item("Undated", None)], window=TimeWindow("latest"), keywords=[])

    draft = brief_extractive(
        chosen, attempted=[], window=TimeWindow("latest"), in_window=True, as_of=AS_OF
    )

    assert "- **Undated** · Alpha Wire · time not given [1]" in draft.body
    assert "1 item from 1 source, none of them dated." in draft.body
    assert draft.citations[0]["published_at"] is None


def test_item_text_cannot_become_markup_in_the_brief():
    chosen, _ = items_select(
        [item("[click](https://evil.example) <script>x</script> # Heading")],
        window=TimeWindow("latest"),
        keywords=[],
    )

    draft = brief_extractive(
        chosen, attempted=[], window=TimeWindow("latest"), in_window=True, as_of=AS_OF
    )

    line = next(line for line in draft.body.splitlines() if "click" in line)
    assert "[click](" not in line
    assert "<script>" not in line
    assert r"\# Heading" in line


def test_the_no_data_brief_lists_each_path_with_why_it_failed_and_invents_nothing():
    attempted = [
        Attempted("/alpha/flash", "not_found", 0, "Not Found"),
        Attempted("/beta/latest", "upstream_error", 0, "FetchError: ECONNRESET"),
        Attempted("/beta/latest", "upstream_error", 0, "FetchError: ECONNRESET"),
    ]

    draft = brief_no_data("unreachable", attempted=attempted, as_of=AS_OF)

    assert draft.citations == []
    assert draft.body.startswith(
        "**Can't query.** As of 2026-03-11 15:30 UTC, I could not fetch anything to answer this "
        "question: 2 sources were tried and none could be read."
    )
    assert "- `/alpha/flash`: alpha has no such page, or RSSHub has no such route" in draft.body
    assert "  - Details: Not Found" in draft.body
    assert (
        "- `/beta/latest`: RSSHub could not get beta; try again later, or ask staff to check "
        "the route. (2 attempts)\n  - Details: FetchError: ECONNRESET"
    ) in draft.body
    assert not re.search(r"\[\d+\]", draft.body)


def test_coverage_keeps_one_row_per_path_with_its_last_outcome():
    rows = coverage_rows(
        [
            Attempted("/alpha/flash", "timeout", 0, "no answer"),
            Attempted("/alpha/flash", "ok", 5),
            Attempted("/beta/latest", "empty", 0),
        ]
    )

    assert rows == [
        {"path": "/alpha/flash", "attempts": 2, "outcome": "ok", "items": 5, "message": "",
         "ok": True},
        {"path": "/beta/latest", "attempts": 1, "outcome": "empty", "items": 0, "message": "",
         "ok": False},
    ]  # fmt: skip
