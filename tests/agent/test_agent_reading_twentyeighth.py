"""The twenty-eighth pass of issue 29's reading rules. Against the real catalog snapshot where
a route is named, offline."""

import pytest

from agent.routes.clauses import in_subject_place
from agent.routes.platform_names import platform_blank
from agent.unnamed import subject_unnamed
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "question",
    [
        "Is there a way to follow a particular Mastodon account's posts from someone on another"
        " instance?",
        "posts of the other user on mastodon",
    ],
)
def test_another_or_other_names_no_instance_nor_user(question):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == []
    assert ctx.needs, "it should ask for the account"


@pytest.mark.parametrize(
    "question",
    [
        "ins 上 #streetphotography 这个标签的帖子\uff0c想用RSS看",
        "想看 Ins 上 #streetphotography 这个话题标签下的新帖子",
    ],
)
def test_ins_in_a_chinese_question_names_instagram(question):
    assert first_path(question) == "/instagram/2/tags/streetphotography"


def test_ins_in_an_english_question_is_still_a_word():
    _chosen, ctx = route("what's new on ins")

    assert not any(path.startswith("/instagram/") for path, _route in ctx.paths)


def test_a_longer_name_running_into_the_next_word_leaves_it_whole():
    blanked = platform_blank("虎牙直播间 660000 开播了", ["huya", "虎牙", "虎牙直播"])

    assert "直播间 660000" in blanked and "虎牙" not in blanked


def test_a_longer_name_ending_at_a_word_is_blanked_whole():
    assert "直播" not in platform_blank("虎牙直播 660000 开播了", ["虎牙", "虎牙直播"])


def test_a_number_after_a_live_room_is_its_id():
    assert first_path("虎牙直播间 660000 开播了就提醒我一下") == "/huya/live/660000"


def test_a_value_marked_by_the_parameters_name_keeps_its_handle_form():
    question = "what has MKBHD been posting in his youtube community tab lately? handle is @mkbhd"

    assert first_path(question) == "/youtube/community/@mkbhd"


def test_a_reporter_is_one_of_the_authors():
    question = "Latest articles written by Reuters reporter Jonathan Landay"

    assert first_path(question) == "/reuters/authors/jonathan-landay"


def test_a_run_of_latin_words_after_a_chinese_marker_is_searched_whole():
    question = "谷歌学术上关键词 graph neural networks 有新论文就推送给我"

    assert first_path(question) == "/google/scholar/graph+neural+networks"


def test_a_changelog_asked_outweighs_the_language_it_is_read_in():
    question = "Steam创意工坊物品 1384657523 的更新日志\uff0c要英文版的"

    assert first_path(question).startswith("/steam/sharefile-changelog/1384657523")


def test_the_doer_of_a_clause_after_a_kind_of_thing_is_named():
    text = "Could you list all the repositories that bitnami publishes on Docker Hub?"

    assert in_subject_place(text, set()) == ["bitnami"]
    assert first_path(text) == "/dockerhub/repositories/bitnami"


def test_a_word_after_that_before_no_verb_is_no_doer():
    assert in_subject_place("posts that mention rust on hacker news", set()) == []


@pytest.mark.parametrize(
    "question",
    [
        "there's a writer on sspai (少数派) whose posts I love, how do I get their articles as a"
        " feed?",
        "Want to keep up with what anime a friend is following on bilibili",
    ],
)
def test_a_writer_or_a_friend_left_unnamed_is_asked_for(question):
    assert subject_unnamed(question)
    chosen, ctx = route(question)

    assert chosen is False and ctx.needs


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("新浪财经滚动新闻里美股那个分区\uff0c求订阅链接", "/sina/finance/rollnews/2672"),
        ("财联社深度文章里基金那个栏目\uff0c有订阅源吗", "/cls/depth/1110"),
    ],
)
def test_a_name_before_that_kind_names_it(question, path):
    assert not subject_unnamed(question)
    assert first_path(question) == path


def test_a_verb_before_that_kind_leaves_it_unnamed():
    assert subject_unnamed("我常看那个分区的新视频")


def test_a_script_said_fills_a_parameter_listing_scripts_by_their_first_character():
    question = (
        "BBC中文这个话题页 https://www.bbc.com/zhongwen/topics/cq8nqywy37yt 想订阅\uff0c要简体版的"
    )

    assert first_path(question) == "/bbc/zhongwen/topics/cq8nqywy37yt/simp"


def test_latest_names_no_recent_sort():
    assert first_path("latest posts from the hugging face blog") == "/huggingface/blog"


def test_a_language_left_at_its_default_still_ties_with_a_briefing_in_it():
    assert first_path("NYT news in Chinese") == "/nytimes"


@pytest.mark.parametrize(
    "question",
    [
        "new episodes of the anime I'm watching on bilibili",
        "keep up with a telegram channel run by my neighbor",
        "releases of the tool we use at work on github",
        "videos from a creator on bilibili I like",
        "想看看我导师的 arXiv 新论文",
        "想订阅一个 Telegram 公开频道",
        "一个好用的 Chrome 扩展更新了没",
    ],
)
def test_a_subject_meant_but_unnamed_is_asked_for_and_nothing_invented(question):
    assert subject_unnamed(question)
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == [], f"read {ctx.paths}"


def test_a_word_saying_what_sort_after_one_of_a_kind_is_no_name():
    chosen, ctx = route("想订阅一个 Telegram 公开频道")

    assert chosen is False
    assert [n["parameter"] for n in ctx.needs] == ["username"]


def test_the_base_image_names_no_image():
    chosen, ctx = route("new tags for the base image in our Dockerfile")

    assert chosen is False and [n["parameter"] for n in ctx.needs] == ["image"]


def test_an_image_named_before_base_is_still_read():
    assert first_path("new tags of the nginx base image") == "/dockerhub/tag/library/nginx"


def test_a_chinese_word_run_on_after_sou_is_searched():
    assert first_path("36氪上搜比亚迪的文章") == "/36kr/search/articles/比亚迪"


def test_sohu_is_no_search():
    _chosen, ctx = route("搜狐的新闻")

    assert not any("search" in path for path, _route in ctx.paths)


def test_a_name_after_another_and_de_is_what_of_it_is_asked():
    chosen, ctx = route("IT之家的苹果分类")

    assert chosen is True and ctx.paths[0][0].startswith("/ithome/")


def test_a_long_chinese_name_of_question_words_still_names_its_platform():
    _chosen, ctx = route("什么值得买的好文")

    assert ctx.platforms[:1] == ["smzdm"]
