"""The twenty-fifth pass of issue 29's reading rules. Against the real catalog snapshot where
a route is named, offline."""

import pytest

from agent.routes.entities import question_read
from agent.routes.enums import label_said, option_named
from agent.routes.listed import inline_values
from agent.routes.slots import Slot
from agent.routes.switches import switch_fill
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


def _switch(description: str) -> Slot:
    return Slot(
        name="only_media",
        regex="",
        optional=True,
        description=description,
        choices=[("true", "true"), ("false", "false")],
        example=None,
        default="false",
        subject=False,
    )


@pytest.mark.parametrize("negation", ["不挑", "不限", "不管"])
def test_a_tag_wanted_in_no_particular_is_no_tag(negation):
    assert first_path(f"掘金 AI编程 板块\uff0c{negation}标签\uff0c全部都要") == "/juejin/aicoding"


@pytest.mark.parametrize(
    "question",
    [
        "follow the replies under https://x.com/SpaceX/status/1812345678901234567",
        "https://twitter.com/SpaceX/status/1812345678901234567 这条推文的回复",
    ],
)
def test_a_page_mirroring_a_route_below_its_kind_word_is_read_there(question):
    assert first_path(question) == "/twitter/tweet/SpaceX/status/1812345678901234567"


def test_a_page_on_a_platforms_old_host_names_the_waiting_route_its_rules_read():
    chosen, ctx = route("https://twitter.com/nasa tweets")

    assert chosen is False
    assert [s["route"] for s in ctx.setup_needed] == ["/twitter/user/:id/:routeParams?"]


def test_an_order_said_around_what_it_sorts_names_its_value():
    question = "douban filmmaker 1054424, sort all of their films by rating"

    assert first_path(question) == "/douban/celebrity/1054424/vote"


def test_a_word_in_passing_is_asked_for_when_another_value_is_turned_down():
    choices = [("默认", "default"), ("热门", "hot"), ("最新", "new")]

    assert option_named("the newest ones, not the hot tab", choices, loose=False) == "new"
    assert option_named("the newest ones on this channel", choices, loose=False) is None


def test_what_only_follows_is_all_that_is_wanted():
    slot = _switch("whether only display media content, default to false, any value to true")
    values: dict[str, str] = {}

    switch_fill([slot], "their posts, media only pls", values, {})

    assert values == {"only_media": "true"}


def test_a_markers_clause_ends_at_its_comma():
    asked = question_read(
        "latest stories from Huxiu, the main feed please", platform_words=["huxiu"], excluded=[]
    )

    assert asked.entities == ()
    assert first_path("latest stories from Huxiu (虎嗅), the main feed please") == "/huxiu/article"


def test_a_value_serving_the_language_asked_for_serves_that_kind_of_feed():
    assert first_path("纽约时报中文网的新闻\uff0c繁体的") == "/nytimes/traditionalchinese"


def test_a_label_said_in_the_other_language_is_said_whole():
    choices = [("美股", "2672"), ("港股", "2674")]

    assert label_said("rolling news, the hong kong stocks part", choices, "2674") == len(
        "hongkongstocks"
    )
    assert first_path("sina finance rolling news, hong kong stocks only") == (
        "/sina/finance/rollnews/2674"
    )


def test_discussion_in_english_names_the_discussion_value():
    assert first_path("xueqiu SH600036, only the discussion") == (
        "/xueqiu/stock_info/SH600036/discuss"
    )


def test_media_only_turns_the_media_switch_on():
    question = "follow mastodon account 109876543210987654 on hachyderm.io, media only"

    assert first_path(question) == (
        "/mastodon/account_id/hachyderm.io/109876543210987654/statuses/true"
    )


def test_a_page_holding_an_id_written_as_the_examples_is_read_after_its_title():
    question = "rss for https://medium.com/@janedoe/list/weekend-reading-0a1b2c3d4e5f please"

    assert first_path(question) == "/medium/list/janedoe/0a1b2c3d4e5f"


def test_a_clause_of_two_values_joined_by_and_lists_them():
    values = inline_values("Sort order by commit numbers, desc and asc (descending by default)")

    assert [v for v, _label in values] == ["desc", "asc"]
    assert first_path("contributors of pallets/flask, the fewest commits first") == (
        "/github/contributors/pallets/flask/asc"
    )


def test_a_name_apposed_with_its_kind_after_a_comma_is_still_named():
    question = "builds of the official redis image on Docker Hub, the bookworm tag"

    assert first_path(question) == "/dockerhub/build/library/redis/bookworm"


def test_what_the_asker_does_with_a_feed_names_no_value():
    choices = [("跟贴", "follow"), ("点击", "click")]

    assert option_named("can I follow the click ranking", choices, loose=False) == "click"
    assert option_named("can I follow this ranking", choices, loose=False) is None


def test_a_name_before_yonghu_is_a_users():
    assert first_path("HN 上 pg 这个用户提交的帖子") == "/hackernews/submitted/sources/pg"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("Steam 创意工坊里 appid 255710 的搜索结果", "/steam/workshopsearch/255710"),
        ("华尔街见闻财经日历 财报那一栏", "/wallstreetcn/calendar/report"),
    ],
)
def test_chinese_feed_words_meet_their_english(question, path):
    assert first_path(question) == path


def test_an_english_word_of_a_chinese_route_name_makes_the_run_ask_for_its_subject():
    chosen, ctx = route("the rebalancing of a xueqiu portfolio a friend runs")

    assert chosen is False and ctx.paths == []
    assert [n["parameter"] for n in ctx.needs] == ["id"]


def test_a_value_a_keys_description_lists_by_its_label_is_asked_for():
    question = "reviews of steam curator 1234567-Some-Curator, just the ones it recommends"

    assert first_path(question) == "/steam/curator/1234567-Some-Curator/curations=0"


def test_a_value_said_with_its_parameters_name_is_the_routes_listed_value():
    question = "Baidu Gushitong indices for the bond markets"

    assert first_path(question) == "/baidu/gushitong/index/bond"


def test_a_number_right_after_the_kind_a_parameter_names_suits_that_parameter():
    assert first_path("B站 UP 主 2267573 的专栏文章") == "/bilibili/user/article/2267573"
    assert first_path("B站专栏文集 25611") == "/bilibili/readlist/25611"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("东京的推特趋势, WOEID 是 1118370", "/twitter/trends/1118370"),
        ("贴吧「法考吧」的帖子, 按最新回复排", "/baidu/tieba/forum/法考/replied"),
        ("豆瓣热播新剧韩剧 只看能播放的", "/douban/list/tv_korean/playable=1"),
        ("谷歌涂鸦 要韩文版的", "/google/doodles/ko"),
        ("taptap.io/app/12345 reviews, the newest ones first", "/taptap/intl/review/12345/recent"),
        ("youtube music top videos chart in South Korea", "/youtube/charts/TopVideos/kr"),
    ],
)
def test_keys_kinds_switches_languages_orders_and_regions_said(question, path):
    assert first_path(question) == path


def test_two_kinds_of_thing_slashed_are_no_owner_and_name():
    question = "follow the #gardening hashtag on mastodon.social, just posts with pics/media"

    assert first_path(question) == "/mastodon/tag/mastodon.social/gardening/true"


def test_a_word_for_a_kind_named_before_it_takes_the_parameters_form_or_nothing():
    _chosen, ctx = route("What's new on the BBC Chinese topic page I follow?")

    assert not any("topics/Chinese" in path for path, _route in ctx.paths)


def test_what_ba_leads_is_an_object_and_names_no_one():
    chosen, ctx = route("我在码云上维护的那个仓库, 想把仓库动态推到群里")

    assert chosen is False and ctx.paths == []
    assert {n["parameter"] for n in ctx.needs} == {"owner", "repo"}
