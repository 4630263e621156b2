"""The writer contract: what ``claims_check`` keeps of a model's brief, and why it drops the
rest."""

from datetime import UTC, datetime

import pytest

from agent.summary.claims import claims_check, sentences_split
from agent.summary.draft import SourceItem

NOW = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)


def item(n: int, title: str, published: datetime | None, summary: str = "") -> SourceItem:
    return SourceItem(n, n, title, f"https://example.com/{n}", summary, published, "/a/b", "A")


ITEMS = [
    item(1, "Chip prices fall", datetime(2026, 3, 3, 9, 15, tzinfo=UTC)),
    item(2, "Port strike ends", datetime(2026, 3, 4, 8, 0, tzinfo=UTC), "Talks began on May 5."),
    item(3, "Undated note", None),
]


@pytest.fixture(autouse=True)
def utc(settings):
    settings.TIME_ZONE = "UTC"


def check(body: str):
    return claims_check(body, ITEMS, now=NOW)


def test_it_keeps_cited_sentences_and_drops_the_uncited():
    report = check("Chip prices fell [1]. Analysts cheered. The strike ended [2].")
    assert report.body == "Chip prices fell [1]. The strike ended [2]."
    assert (report.produced, report.kept, dict(report.dropped)) == (3, 2, {"uncited": 1})
    assert report.cited == {1, 2}


def test_a_sentence_citing_only_items_not_given_is_dropped_and_the_numbers_reported():
    report = check("Aliens landed [7]. Prices fell [1] [99].")
    assert report.body == "Prices fell [1] ."
    assert dict(report.dropped) == {"invalid_citation": 1}
    assert report.invalid_numbers == [7, 99]


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("Prices fell on 2026-03-03 [1].", True),
        ("Prices fell on March 3 [1].", True),
        ("Prices fell on 3 March 2026 [1].", True),
        ("Chip价格在3月3日下跌 [1]。", True),
        ("Prices fell yesterday [1].", True),
        ("Prices fell at 09:15 [1].", True),
        ("Talks began on May 5 [2].", True),  # the item's own text carries it
        ("Prices fell on 2019-03-03 [1].", False),
        ("Prices fell on March 4 [1].", False),
        ("Chip价格在2025年3月3日下跌 [1]。", False),
        ("Prices fell today [1].", False),
        ("昨天港口罢工结束 [2]。", False),
        ("It began in 2019 [1].", False),
        ("Prices fell at 10:30 [1].", False),
        ("Noted on March 3 [3].", False),  # an undated item carries no date
    ],
)
def test_a_date_none_of_the_cited_items_carries_drops_the_sentence(sentence, kept):
    report = check(sentence)
    assert (report.kept == 1) is kept, report.dropped
    if not kept:
        assert dict(report.dropped) == {"date": 1}


def test_headings_images_and_html_go_and_links_keep_their_text():
    body = (
        "## Big news\n\n- Prices fell [1] see [here](https://example.com/1) "
        "![p](https://evil.example/p.png)\n- <b>Strike</b> ended [2] https://example.com/2"
    )
    report = check(body)
    assert report.body == "- Prices fell [1] see here\n- Strike ended [2]"
    assert report.dropped["heading"] == 1 and report.dropped["markup"] == 5
    assert "example" not in report.body


def test_a_sentence_pointing_anywhere_but_at_a_cited_item_is_an_instruction():
    body = (
        "- Prices fell [1] see [here](https://evil.example/x).\n"
        "- <a href='https://evil.example'>Strike</a> ended [2].\n"
        "- Strike ended [2] https://evil.example/y\n"
        "- Strike ended, details at evil.example/claim [2].\n"
        "- Strike ended, see example.com/1 [2].\n"
        "- Chip prices fall, see example.com/1 [1]."
    )
    report = check(body)
    assert report.body == "- Chip prices fall, see example.com/1 [1]."
    assert report.dropped["instruction"] == 5, report.dropped
    assert "evil" not in report.body


def test_a_full_width_bracketed_number_is_no_citation():
    report = check("Rumour \uff3b1\uff3d spreads.")
    assert (report.kept, dict(report.dropped)) == (0, {"uncited": 1})


def test_sentences_split_keeps_abbreviations_and_trailing_citations_together():
    assert sentences_split("U.S. prices fell. [1] Mr. Li spoke [2]. 然后涨了[1]。又跌了。") == [
        "U.S. prices fell. [1]",
        "Mr. Li spoke [2].",
        "然后涨了[1]。",
        "又跌了。",
    ]
