"""The run's one reading of a question (``agent.reading``) and the Chinese segmenter it reads
through (``catalog.segment``): words, not runs; platform names, Latin words, handles and ids whole;
hostile input read without error."""

import pytest

from agent.question import keywords_of, rewrite_offline
from agent.reading import question_reading
from catalog.segment import zh_words


def reading(question: str):
    return question_reading(question, rewrite_offline(question))


def test_chinese_is_read_in_words_and_latin_between_them_stays_whole():
    assert zh_words("小米汽车交付量") == ["小米", "汽车", "交付", "量"]
    assert zh_words("Gitee 上 dromara/hutool 的发行版") == [
        "Gitee",
        "上",
        "dromara/hutool",
        "的",
        "发行版",
    ]


def test_a_stop_word_is_cut_as_a_word_not_inside_one():
    # 上 and 有 are stop words; 上海 and 有道 are words that start with them
    assert keywords_of("上海最新消息") == ["上海"]
    assert keywords_of("有道词典最近有什么更新") == ["有道词典", "更新"]


@pytest.mark.parametrize(
    ("question", "context", "terms"),
    [
        ("微博上小米汽车交付量的讨论", {"微博", "weibo"}, ("小米", "汽车", "交付")),
        ("36氪最近有什么值得注意的快讯", {"36kr", "36氪", "快讯"}, ()),
        ("Hugging Face daily papers", {"huggingface", "hugging face", "daily", "papers"}, ()),
        ("知乎热榜上有什么关于华为的讨论", {"知乎", "热榜"}, ("华为",)),
        ("Kirin 9050 chip news on 36kr", {"36kr"}, ("Kirin", "9050", "chip")),
    ],
)
def test_the_topic_is_whole_words_without_platform_or_filler(question, context, terms):
    assert reading(question).topic(context).terms == terms


@pytest.mark.parametrize(
    ("question", "intents", "unnamed"),
    [
        ("Gitee 上 dromara/hutool 的最新发行版", {"release"}, False),
        ("某位 B 站 UP 主的最新视频", {"video"}, True),
        ("New uploads from @mkbhd on YouTube", {"video"}, False),
        ("Commits someone pushed to some repo", {"commit"}, True),
        ("微博热搜", {"trend"}, False),
        ("微博上关于 鸿蒙 的讨论", {"search", "discussion"}, False),
        ("Hacker News stories about Rust", {"search"}, False),
    ],
)
def test_intents_and_an_unnamed_subject_are_read_once(question, intents, unnamed):
    read = reading(question)
    assert (read.intents, read.unnamed) == (frozenset(intents), unnamed)


def test_subjects_keep_their_shape_and_are_read_once_per_platform():
    read = reading("Gitee 上 dromara/hutool 的最新发行版, @vue/core 和 Gargron@mastodon.social")
    asked = read.subjects(("gitee", "Gitee"))
    shapes = {(e.value, e.kind) for e in asked.entities}
    assert {("dromara/hutool", "pair"), ("Gargron@mastodon.social", "handle")} <= shapes
    assert ("@vue/core", "scoped") in shapes
    assert read.subjects(("gitee", "Gitee")) is asked


@pytest.mark.parametrize(
    "question",
    [
        "",
        "   ",
        "\uff1f\uff1f\uff01\uff01",  # full-width punctuation only
        "\x00\x1b[31m微博\u202e热搜\u200b",
        "的的的的的的的的的的的的的的的的的的的的",
        "𠀀𠀁 emoji 🙂 微博",
        "A" * 500,
        "测" * 500,
        "../../etc/passwd 微博 %2e%2e/",
    ],
)
def test_hostile_input_is_read_without_error(question):
    read = reading(question)
    assert isinstance(read.topic(set()).terms, tuple)
    assert all(isinstance(e.value, str) for e in read.subjects(("weibo",)).entities)


def test_a_keyword_route_serves_a_marked_topic():
    from agent.routes.fit import template_intents

    assert "search" in template_intents("关键词", "/weibo/keyword/:keyword/:routeParams?")
    assert "search" in template_intents("Search", "/twitter/keyword/:keyword")
