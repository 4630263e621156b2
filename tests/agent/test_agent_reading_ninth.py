"""The ninth pass of issue 29's reading rules: what a question says of when or how often it
wants to hear (daily, every day, 7x24, 一期), of the feed's language, and of how it is put
(incl., as they come out) is no topic; nor is the part of a Chinese name inside its words
(票房 of 实时票房榜) or the owner of a source's name (Indonesia's BMKG). A phrase marked for a
value ends where the question's manner begins (tagged Obsidian pls), and "that mention X"
marks X for a search. Against the real catalog snapshot, offline."""

import pytest

from agent.question import rewrite_offline
from agent.reading import question_reading
from agent.routes.forms import forms_read
from agent.routes.listed import inline_values
from agent.summary.answer import topic_subject
from agent.summary.subject import context_words_load
from agent.unnamed import subject_unnamed
from agent.vocabulary import asked_intents
from catalog.models import Route
from catalog.segment import zh_parts
from tests.agent.test_agent_route_offline import route

pytestmark = pytest.mark.django_db


def topic_terms(question: str, namespace: str, template: str, path: str) -> tuple[str, ...]:
    """The terms the topic check looks for when ``path`` of ``template`` was read."""
    read = Route.objects.get(path=template)
    words = context_words_load(namespaces={namespace}, route_ids={read.pk}, paths=[(path, read.pk)])
    return question_reading(question, rewrite_offline(question)).topic(words).terms


@pytest.mark.parametrize(
    "question, namespace, template, path",
    [
        ("wikipedia current events, daily", "wikipedia",
         "/wikipedia/current-events/:includeToday?", "/wikipedia/current-events"),
        ("Send me the LeetCode daily question every day", "leetcode",
         "/leetcode/dailyquestion/en", "/leetcode/dailyquestion/en"),
        ("HelloGitHub 月刊出新一期提醒我", "hellogithub", "/hellogithub/volume",
         "/hellogithub/volume"),
        ("华尔街见闻 7x24 实时快讯", "wallstreetcn", "/wallstreetcn/live/:category?/:score?",
         "/wallstreetcn/live"),
        ("python releases incl. pre-releases", "python", "/python/:pre?", "/python/pre"),
        ("Anthropic research posts, as they come out", "anthropic", "/anthropic/research",
         "/anthropic/research"),
        ("Daily NASA Astronomy Picture of the Day from the original English site", "nasa",
         "/nasa/apod", "/nasa/apod"),
    ],
)  # fmt: skip
def test_when_how_often_and_how_a_question_is_put_are_no_topic(question, namespace, template, path):
    """Such a question names nothing the items must mention: it is never off topic."""
    assert topic_terms(question, namespace, template, path) == ()


@pytest.mark.parametrize(
    "question, namespace, template, path, terms",
    [
        ("wikipedia current events about Ukraine, daily", "wikipedia",
         "/wikipedia/current-events/:includeToday?", "/wikipedia/current-events", ("Ukraine",)),
        ("华尔街见闻 7x24 快讯里关于黄金的", "wallstreetcn",
         "/wallstreetcn/live/:category?/:score?", "/wallstreetcn/live", ("黄金",)),
        ("Anthropic research posts about interpretability, as they come out", "anthropic",
         "/anthropic/research", "/anthropic/research", ("interpretability",)),
    ],
)  # fmt: skip
def test_a_topic_beside_them_is_still_the_topic(question, namespace, template, path, terms):
    assert topic_terms(question, namespace, template, path) == terms


def test_the_words_inside_a_chinese_routes_name_name_the_feed():
    assert "票房" in zh_parts("实时票房榜")
    assert topic_terms("猫眼实时票房", "maoyan", "/maoyan/box", "/maoyan/box") == ()
    named = topic_terms("猫眼实时票房里有哪吒吗", "maoyan", "/maoyan/box", "/maoyan/box")
    assert named == ("哪吒",)


def test_the_owner_of_a_sources_name_is_no_topic_but_an_owner_of_anything_else_is():
    question = "Show me the recent earthquakes reported by Indonesia's BMKG."
    assert topic_terms(question, "bmkg", "/bmkg/earthquake", "/bmkg/earthquake") == ()
    other = "Recent earthquakes on BMKG about Indonesia's capital"
    assert "Indonesia" in topic_terms(other, "bmkg", "/bmkg/earthquake", "/bmkg/earthquake")


def test_a_ranking_is_a_kind_of_feed_in_both_languages():
    assert "rank" in asked_intents("IT之家 24小时 阅读排行")
    assert "rank" in asked_intents("Best of JS monthly rankings")
    assert (
        topic_terms(
            "IT之家 24小时 阅读排行", "ithome", "/ithome/ranking/:type", "/ithome/ranking/24h"
        )
        == ()
    )


def test_a_phrase_marked_for_a_value_ends_where_the_manner_begins():
    chosen, ctx = route("sspai articles tagged Obsidian pls")

    assert chosen and ctx.paths[0][0] == "/sspai/tag/Obsidian"


def test_that_mention_marks_what_to_search_for():
    chosen, ctx = route("hackerone reports that mention nextcloud")

    assert chosen and ctx.paths[0][0] == "/hackerone/search/nextcloud"


@pytest.mark.parametrize(
    "question, path",
    [
        ("notify me when there's a new fabric-api version on modrinth",
         "/modrinth/project/fabric-api/versions"),
        ("al jazeera english, climate-crisis tag", "/aljazeera/english/tag/climate-crisis"),
    ],
)  # fmt: skip
def test_a_slug_before_its_kind_is_a_name_whatever_leads_it(question, path):
    chosen, ctx = route(question)

    assert chosen and ctx.paths[0][0] == path


def test_a_hyphened_word_of_the_feeds_own_is_no_slug():
    chosen, ctx = route("any new pre-release version of python")

    assert chosen and ctx.paths[0][0] == "/python/pre"


def test_a_sources_possessive_is_no_value():
    """ "The Economist's China section": the 's goes with the name, never a value "s"."""
    chosen, ctx = route("Is there an RSS for The Economist's China section?")

    assert chosen
    assert ctx.paths[0][0].casefold() == "/economist/china"


@pytest.mark.parametrize("question", ["晋江某个作者的新文", "某个晋江作者最近更新了什么"])
def test_someone_unnamed_asks_even_where_the_route_may_leave_them_out(question):
    """/jjwxc/author/:id? reads a feed of no one without its id: the run asks instead."""
    chosen, ctx = route(question)

    assert not chosen
    assert [n["parameter"] for n in ctx.needs] == ["id"]


def test_a_route_that_may_leave_its_subject_out_is_read_when_no_one_is_meant():
    chosen, ctx = route("晋江作者的最新排行")

    assert chosen and ctx.needs == []


@pytest.mark.parametrize(
    "question, path",
    [
        ("any new beta firmware for iPhone15,2? want a feed", "/ipsw.dev/index/iPhone15,2"),
        ("bgm.tv 条目 400602 的吐槽有新的就推给我", "/bangumi.tv/subject/400602/comments"),
    ],
)
def test_a_device_identifier_is_whole_and_tucao_is_comments(question, path):
    chosen, ctx = route(question)

    assert chosen and ctx.paths[0][0] == path


def test_a_count_with_a_comma_is_no_device():
    _rest, found = forms_read("top 10,000 posts from v2,3 of the app")
    assert not [f for f in found if "," in f.value]


def test_a_numbered_setting_takes_the_id_the_question_keys_not_its_example():
    """/caai/:caty's example is 45 and its description "分类 ID": "分类 ID 29" is the value."""
    chosen, ctx = route("中国人工智能学会 caai.cn 分类 ID 29 的学会动态")

    assert chosen and ctx.paths[0][0] == "/caai/29"


def test_a_label_of_two_names_names_its_value_by_either():
    """2cycd's sort lists "回复\uff0f查看" for ``replies``: 按回复排序 asks for it."""
    chosen, ctx = route("二次元虫洞 动漫下载 板块\uff0c按回复排序")

    assert chosen and ctx.paths[0][0] == "/2cycd/53/replies"


def test_a_value_said_to_be_a_label_is_listed_with_it():
    """ "`answer` 即 `回复`": 回复 labels ``answer``, and is no value of its own."""
    listed = inline_values("类型\uff0c可选值为 `questions` 即 `主题` 或 `answer` 即 `回复`")

    assert ("回复", "answer") in listed and ("主题", "questions") in listed
    assert all(value in ("questions", "answer") for _label, value in listed)
    bare = inline_values("排序方式\uff0c可选 `0` 即 最新回复 或 `1` 即 最新发布")
    assert ("最新发布", "1") in bare and ("最新回复", "0") in bare
    meant = inline_values("热榜类型\uff0c`1` 指热议话题\uff0c`2` 指全站热贴")
    assert ("全站热贴", "2") in meant and ("热议话题", "1") in meant
    chosen, ctx = route("集思录用户「饭斗」的回复")
    assert chosen and ctx.paths[0][0].endswith("/answer")


@pytest.mark.parametrize(
    "question",
    [
        "帮我订阅一个斗鱼主播的开播提醒",
        "一位知乎答主的新回答",
        "我关注的一个太太更新了",
        "字幕侠上有部剧我在追",
        "I want to follow a YouTuber's uploads through RSS.",
        "issues of a repo's main branch",
    ],
)
def test_one_of_the_people_who_post_a_platform_between_is_unnamed(question):
    assert subject_unnamed(question)


@pytest.mark.parametrize(
    "question",
    [
        "斗鱼主播排行",
        "一个月内的知乎热榜",
        "一个人也能玩的游戏推荐",
        "a YouTuber ranking",
        "MKBHD's uploads",
    ],
)
def test_a_kind_of_people_named_by_no_one_of_them_is_not_unnamed(question):
    assert not subject_unnamed(question)


def test_one_streamer_of_a_platform_is_asked_for_not_another_platforms_feed():
    chosen, ctx = route("帮我订阅一个斗鱼主播的开播提醒")

    assert not chosen
    assert [n["parameter"] for n in ctx.needs] == ["id"]


def test_a_candidate_platform_not_read_names_no_feed():
    """The platform Tesla was a candidate but only 36kr was read: its items must mention Tesla,
    else the brief would list every newsflash as about it."""
    _chosen, ctx = route("36kr newsflashes about Tesla")
    ctx.tried_namespaces.add("tesla")

    assert topic_subject(ctx).terms == ("Tesla",)


def test_a_platform_read_names_the_feed():
    _chosen, ctx = route("Hacker News 首页现在有什么")

    assert ctx.paths and topic_subject(ctx).terms == ()


@pytest.mark.django_db
def test_a_switch_takes_only_a_switch_value():
    """An optional setting whose example is ``true`` or ``false`` is a switch: a capitalised word
    of the question ("Set me up") is never its value."""
    chosen, ctx = route("Any new TikTok videos from @mkbhd? Set me up a feed please.")
    assert chosen
    assert ctx.paths[0][0] == "/tiktok/user/@mkbhd", ctx.paths
