# ruff: noqa: RUF001  (Chinese punctuation and full-width text are the point)
"""The rules that keep the support check precise: measures, versions, rounding words, years,
clauses and unknown Chinese organisations (``agent.summary.figures``, ``agent.summary.facts``,
``agent.summary.dates``, ``agent.summary.support``). Each rule is shown both ways: what it
drops, and the supported telling it keeps."""

from datetime import UTC, datetime

import pytest

from agent.summary.claims import claims_check
from agent.summary.draft import SourceItem
from agent.summary.figures import quantities

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def item(n: int, title: str, summary: str = "") -> SourceItem:
    published = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    return SourceItem(n, n, title, f"https://news.example/{n}", summary, published, "/w", "Wire")


ITEMS = [
    item(
        1,
        "宁德时代发布第二代钠离子电池，能量密度达175Wh/kg",
        "宁德时代在北京发布第二代钠离子电池，电芯能量密度达175Wh/kg，计划于2027年底量产。"
        "播放量 512.3 万。",
    ),
    item(
        2,
        "vite 7.3.1",
        "vite 7.3.1 published. Fixes: restore the musl binaries for rolldown on arm64. "
        "The phone packs a 6800mAh battery and sold over 1,204 units in about 5 hours.",
    ),
    item(
        3,
        "阿里巴巴云智能集团收入增长34%",
        "阿里巴巴云智能集团收入增长34%，达到398亿元。北京时间12时11分发射。",
    ),
    item(
        4,
        "Lando Norris finished third in Qatar",
        "Lando Norris was third in Qatar and leads the championship by 12 points.",
    ),
]


@pytest.fixture(autouse=True)
def utc(settings):
    settings.TIME_ZONE = "UTC"


def judged(sentence: str, language: str) -> tuple[int, dict]:
    report = claims_check(sentence, ITEMS, now=NOW, language=language)
    return report.kept, dict(report.dropped)


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("宁德时代第二代钠离子电池的能量密度达175Wh/kg[1]。", "zh"),
        ("The phone packs a 6,800 mAh battery [2].", "en"),
        ("Vite v7.3.1 restores the musl binaries for rolldown on arm64 [2].", "en"),
        ("播放量已超过500万[1]。", "zh"),  # 512.3万 is over 500万
        ("It sold over 1,200 units in about five hours [2].", "en"),
        ("宁德时代计划于2027年底量产钠离子电池[1]。", "zh"),
        ("阿里巴巴云智能集团收入增长34%，达到398亿元[3]。", "zh"),
        ("北京时间12:11发射[3]。", "zh"),
        ("Lando Norris finished third in Qatar, and leads the championship [4].", "en"),
        ("On Tuesday, Lando Norris finished third in Qatar [4].", "en"),  # published 2026-12-01
        ("宁德时代周二发布第二代钠离子电池[1]。", "zh"),
    ],
)
def test_a_supported_sentence_stays(sentence, language):
    assert judged(sentence, language) == (1, {})


@pytest.mark.parametrize(
    ("sentence", "language", "reason"),
    [
        # A measure is a figure: 200Wh/kg is not 175Wh/kg.
        ("宁德时代第二代钠离子电池的能量密度达200Wh/kg[1]。", "zh", "unsupported_number"),
        ("The phone packs a 7,800 mAh battery [2].", "en", "unsupported_number"),
        # A version is a name: 7.3.2 is not 7.3.1.
        ("Vite 7.3.2 restores the musl binaries for rolldown on arm64 [2].", "en",
         "unsupported_entity"),
        # "over" is a floor, and only up to the next step of its last digit.
        ("播放量已超过600万[1]。", "zh", "unsupported_number"),
        ("It sold over 1,300 units [2].", "en", "unsupported_number"),
        # Without a rounding word a bare figure is exact.
        ("It sold 1,200 units [2].", "en", "unsupported_number"),
        # The item names its year: its published year no longer backs another.
        ("宁德时代计划于2026年底量产钠离子电池[1]。", "zh", "date"),
        # An unknown organisation before 集团 is a name the item must carry.
        ("阿里巴巴淘天集团收入增长34%，达到398亿元[3]。", "zh", "unsupported_entity"),
        ("北京时间12:15发射[3]。", "zh", "date"),
        # A weekday is a date: 2026-12-01 was a Tuesday.
        ("On Friday, Lando Norris finished third in Qatar [4].", "en", "date"),
        ("宁德时代周五发布第二代钠离子电池[1]。", "zh", "date"),
        # A supported first clause cannot carry an invented second one.
        ("Lando Norris finished third in Qatar and will clinch the title with a podium in the "
         "final race [4].", "en", "unsupported"),
        ("宁德时代发布第二代钠离子电池，还将大幅降低储能产品售价[1]。", "zh", "unsupported"),
    ],
)  # fmt: skip
def test_an_unsupported_sentence_is_dropped_with_its_reason(sentence, language, reason):
    assert judged(sentence, language) == (0, {reason: 1})


def test_rounding_words_set_a_figures_range():
    [about] = quantities("about 500")
    [over] = quantities("超过500万")
    [bare] = quantities("500")
    assert (about.low, about.high) == (450, 550)
    assert (over.low, over.high) == (5_000_000, 6_000_000)
    assert bare.low == bare.high == 500


def test_a_month_name_inside_a_word_is_no_date():
    # "0 declared" once read as "0 Dec": the version's digits became a figure.
    assert quantities("Vite 7.3.0 declared it stable") == []


def test_huge_figures_with_rounding_words_never_raise():
    huge = quantities("over " + "9" * 400 + " and about 1e999 and 超过" + "1" * 60 + "亿")
    assert len(huge) == 2  # 1e999 is a code, not a figure
