"""The rewrite node's offline method: language, time windows, keywords, follow-up context."""

from datetime import UTC, datetime, timedelta

import pytest

from agent.question import keywords_of, language_of, rewrite_offline, time_window
from agent.rewrite import _rewrite_validate
from catalog.search import MAX_QUESTION_CHARS, question_problem

NOW = datetime(2026, 3, 11, 15, 30, tzinfo=UTC)  # a Wednesday
MIDNIGHT = datetime(2026, 3, 11, tzinfo=UTC)


@pytest.fixture(autouse=True)
def utc(settings):
    settings.TIME_ZONE = "UTC"


@pytest.mark.parametrize(
    ("text", "label", "start", "end"),
    [
        ("今天有什么新闻", "today", MIDNIGHT, NOW),
        ("what happened today", "today", MIDNIGHT, NOW),
        ("昨天的热榜", "yesterday", MIDNIGHT - timedelta(days=1), MIDNIGHT),
        ("本周的热门项目", "this_week", MIDNIGHT - timedelta(days=2), NOW),
        ("GitHub trending this week", "this_week", MIDNIGHT - timedelta(days=2), NOW),
        ("this month in AI", "this_month", datetime(2026, 3, 1, tzinfo=UTC), NOW),
        ("实时快讯", "last_24h", NOW - timedelta(hours=24), NOW),
        ("过去3天的消息", "last_72h", NOW - timedelta(hours=72), NOW),
        ("最近两周", "last_336h", NOW - timedelta(hours=336), NOW),
        ("news from the past 6 hours", "last_6h", NOW - timedelta(hours=6), NOW),
    ],
)
def test_time_words_set_the_window(text, label, start, end):
    window = time_window(text, now=NOW)

    assert (window.label, window.start, window.end) == (label, start, end)


def test_a_question_without_time_words_asks_for_the_latest():
    window = time_window("36氪的快讯", now=NOW)

    assert (window.label, window.start, window.end) == ("latest", None, None)


def test_the_window_follows_the_configured_time_zone(settings):
    settings.TIME_ZONE = "Asia/Shanghai"  # 15:30 UTC is 23:30 in Shanghai

    window = time_window("今天", now=NOW)

    assert window.start == datetime(2026, 3, 10, 16, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("36氪最近有什么值得注意的快讯", ["36氪", "快讯"]),
        ("知乎热榜上现在大家在讨论什么？", ["知乎热榜"]),  # noqa: RUF001
        ("What is on the Hacker News front page right now?", ["Hacker"]),
        ("Latest arXiv papers about diffusion models", ["arXiv", "papers", "diffusion", "models"]),
        ("过去3天 C++ 的新闻", ["C++", "新闻"]),
    ],
)
def test_keywords_drop_question_words_time_words_and_stopwords(text, expected):
    assert keywords_of(text) == expected


def test_language_follows_the_script():
    assert language_of("小米 fold 最新消息") == "zh"
    assert language_of("BBC News latest headlines") == "en"


def test_a_plain_question_is_its_own_query():
    rewrite = rewrite_offline("V2EX 今天最热的主题有哪些", now=NOW)

    assert rewrite.query == "V2EX 今天最热的主题有哪些"
    assert rewrite.language == "zh"
    assert rewrite.window.label == "today"
    assert rewrite.method == "rules"


def test_a_follow_up_carries_the_earlier_topic_and_window():
    rewrite = rewrite_offline("那评论区怎么说?", thread=["本周 知乎热榜 话题"], now=NOW)

    assert rewrite.query == "那评论区怎么说? (知乎热榜 话题)"
    assert rewrite.keywords[-2:] == ["知乎热榜", "话题"]
    assert rewrite.window.label == "this_week"


def test_a_follow_up_keeps_its_own_time_words():
    rewrite = rewrite_offline("yesterday?", thread=["Alpha Wire news this week"], now=NOW)

    assert rewrite.window.label == "yesterday"
    assert "Alpha" in rewrite.query


def test_a_follow_up_repeats_no_keyword():
    rewrite = rewrite_offline(
        "Rust 呢", thread=["GitHub Rust trending", "GitHub trending Go"], now=NOW
    )

    assert rewrite.keywords == ["Rust", "GitHub", "trending", "Go"]


def test_a_follow_up_of_long_questions_stays_searchable():
    longest = "芯" * MAX_QUESTION_CHARS  # a question as long as a brief allows
    earlier = " ".join(f"topic{n} " + "字" * 300 for n in range(8))

    rewrite = rewrite_offline(longest, thread=[earlier], now=NOW)

    assert len(rewrite.query) <= MAX_QUESTION_CHARS
    assert question_problem(rewrite.query) is None
    assert rewrite.query.endswith(")")


@pytest.mark.parametrize("label", ["today", "yesterday", "this_week", "this_month", "last_24h"])
def test_a_window_the_model_names_is_the_window_used(label):
    answer = {"query": "GitHub trending", "language": "en", "keywords": [], "window": label}

    rewrite = _rewrite_validate(answer, "GitHub trending")

    assert rewrite.window.label == label
    assert rewrite.window.start is not None
    assert rewrite.method == "model"


def test_hours_the_model_gives_make_the_window():
    answer = {"query": "q", "language": "zh", "keywords": [], "window": "latest", "window_hours": 6}

    window = _rewrite_validate(answer, "q").window

    assert window.label == "last_6h"
    assert window.end - window.start == timedelta(hours=6)


@pytest.mark.parametrize(
    "answer",
    [
        {"query": "", "language": "en", "keywords": [], "window": "latest"},
        {"query": "q", "language": "en", "keywords": "q", "window": "latest"},
        {"query": "q", "language": "en", "keywords": [], "window": "next_year"},
        {"query": "bell\x07", "language": "en", "keywords": [], "window": "latest"},
        {"query": "q" * 2001, "language": "en", "keywords": [], "window": "latest"},
    ],
    ids=["empty", "keywords", "window", "control", "long"],
)
def test_a_malformed_rewrite_is_refused(answer):
    with pytest.raises(ValueError):
        _rewrite_validate(answer, "q")
