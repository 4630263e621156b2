"""The twenty-seventh pass of issue 29's reading rules. Against the real catalog snapshot where
a route is named, offline."""

import pytest

from agent.routes.enums import option_named
from agent.routes.settings import labelled
from agent.routes.words import describes
from agent.unnamed import subject_unnamed
from tests.agent.test_agent_reading_twentysixth import _slot, _values
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("word", "excluded"),
    [("star", {"starred", "repositories"}), ("forking", {"forked"}), ("stars", {"starred"})],
)
def test_a_route_word_in_another_form_describes_the_route(word, excluded):
    assert describes(word, excluded)


def test_a_short_or_unrelated_word_does_not_describe_the_route():
    assert not describes("torvalds", {"starred", "repositories"})
    assert not describes("run", {"running"})  # three letters: too short to stem safely


@pytest.mark.parametrize(
    "question",
    [
        "想看某个 GitHub 大佬最近 star 了哪些项目\uff0c能订阅吗",
        "某个 GitHub 用户最近 star 的仓库",
    ],
)
def test_the_verb_a_route_is_named_for_is_no_user(question):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == []
    assert [n["parameter"] for n in ctx.needs] == ["user"]


def test_a_search_the_asker_cares_about_is_unnamed():
    assert subject_unnamed("new arXiv papers for a search I care about")
    chosen, ctx = route("how do I get an rss feed of new arXiv papers for a search I care about?")

    assert chosen is False and "query" in [n["parameter"] for n in ctx.needs]


def test_a_kind_of_item_leading_the_topic_is_not_searched_for():
    assert (
        first_path("rss of new arxiv papers on diffusion models")
        == "/arxiv/search_query=all:diffusion models"
    )


def test_a_kind_of_item_alone_is_no_search():
    _chosen, ctx = route("new arXiv papers feed")

    assert not any(path.startswith("/arxiv/") for path, _route in ctx.paths)


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("华尔街见闻的A股快讯", "a-stock"),
        ("华尔街见闻的 A 股快讯", "a-stock"),
        ("美股快讯", "us-stock"),
    ],
)
def test_a_letter_and_the_character_after_it_are_one_word_of_a_label(question, value):
    choices = [("要闻", "global"), ("A 股", "a-stock"), ("美股", "us-stock"), ("港股", "hk-stock")]

    assert option_named(question, choices, loose=True) == value


def test_a_lone_letter_apart_from_a_character_names_no_label():
    choices = [("A 股", "a-stock"), ("美股", "us-stock")]

    assert option_named("B站 热门", choices, loose=False) is None


def test_a_language_left_at_its_default_serves_the_language_asked_for():
    assert first_path("纽约时报中文网的新闻\uff0c最好是全文的") == "/nytimes"


def test_a_chinese_briefing_asked_by_name_is_still_read():
    assert first_path("纽约时报 每日简报") == "/nytimes/daily_briefing_chinese"


def test_a_language_word_in_a_path_is_no_name_said():
    question = "I want the New York Times Chinese edition news, full text if possible"

    assert first_path(question) == "/nytimes"


def test_a_query_key_written_out_is_no_value():
    question = "微博自定义分组转RSS\uff0c分组地址后面是 ?gid=4893012345678901"

    assert "gid" not in _values(question, platform="weibo")


def test_an_initial_and_id_key_a_parameter_named_for_the_thing_and_its_id():
    slot = _slot("userid", "用户 id, 可在用户主页 URL 中找到")

    assert labelled("uid", slot)
    assert not labelled("gid", slot)


def test_a_key_of_an_initial_and_id_reads_the_route_whose_parameter_it_names():
    question = "绿洲上 uid 6049590367 这个用户的更新能订阅吗"

    assert first_path(question) == "/weibo/oasis/user/6049590367"


def test_a_name_said_apart_by_de_with_a_lone_character_kept_with_its_word():
    assert first_path("澎湃 美数课 的作品集有没有订阅源\uff1f") == "/thepaper/839studio"


@pytest.mark.parametrize(
    "question",
    ["我常看的那个 YouTube 频道的 shorts", "某个 HuggingFace 用户上传的 datasets"],
)
def test_a_latin_word_after_a_kind_and_de_is_what_of_it_not_its_name(question):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == [] and ctx.needs


def test_a_latin_name_between_the_kind_and_de_is_still_read():
    assert first_path("HuggingFace 用户 lhoestq 上传的 datasets").startswith(
        "/huggingface/activity/lhoestq"
    )


def test_briefing_and_every_day_said_in_chinese_name_the_daily_briefing():
    question = "纽约时报中文网每天早上的那个简报\uff0c想订阅"

    assert first_path(question) == "/nytimes/daily_briefing_chinese"


@pytest.mark.parametrize("question", ["澎湃美数课的全部作品", "想看澎湃美数课的新作品"])
def test_a_proper_name_of_a_routes_name_said_reads_that_route_over_a_listed_label(question):
    assert first_path(question) == "/thepaper/839studio"


def test_a_dictionary_word_of_a_routes_name_gives_it_no_such_weight():
    question = "知乎想法里每天出的那个新闻汇总能订阅吗"

    assert first_path(question) == "/zhihu/pin/daily"


@pytest.mark.parametrize(
    "question", ["36氪的24小时热榜\uff0c想每天在阅读器里看", "36kr 的 24 小时热榜"]
)
def test_a_default_documented_by_its_label_is_its_value_and_left_out(question):
    assert first_path(question) == "/36kr/hot-list"


def test_a_default_documented_by_a_name_before_its_code_is_that_code():
    assert first_path("苹果中国官网的换修/延长维修计划更新能订阅吗") == "/apple/exchange_repair"
    assert first_path("apple exchange and repair programs in the US") == (
        "/apple/exchange_repair/us"
    )


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("Epic 喜加一提醒\uff0c要简体中文\u3001区域选中国的", "/epicgames/freegames/zh-CN/CN"),
        ("epic free games, traditional chinese, taiwan store", "/epicgames/freegames/zh-TW/TW"),
    ],
)
def test_chinese_in_a_script_is_written_as_its_locale(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    "question",
    [
        "Is there a way to follow everything posted under #streetphotography on IG?",
        "instagram #streetphotography 标签",
    ],
)
def test_a_hashtag_taken_as_a_value_reads_the_tags_feed(question):
    assert first_path(question) == "/instagram/2/tags/streetphotography"


def test_a_name_on_ig_still_reads_the_users_feed():
    assert first_path("new posts by natgeo on IG") == "/instagram/2/user/natgeo"


def test_ins_as_an_english_word_names_no_instagram():
    _chosen, ctx = route("the ins and outs of kubernetes")

    assert not any(path.startswith("/instagram/") for path, _route in ctx.paths)


def test_a_country_right_after_the_platforms_name_is_its_edition_no_value():
    question = "Hi, is there a feed for the recommended articles on InfoQ China's front page?"

    assert first_path(question) == "/infoq/recommend"


def test_a_page_files_extension_is_left_off_where_the_example_has_none():
    question = "https://www.163.com/dy/media/T1603594732083.html 这个网易号想用 RSS 追更"

    assert first_path(question) == "/163/dy2/T1603594732083"


def test_a_name_where_the_example_writes_a_handle_is_written_as_one():
    assert first_path("MKBHD community tab posts as rss") == "/youtube/community/@MKBHD"
