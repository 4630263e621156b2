"""The twenty-first pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.slots import Slot, route_slots
from agent.routes.switches import is_switch, switch_fill
from catalog.models import Route
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


def route_slots_of(path: str) -> list[Slot]:
    found = Route.objects.get(path=path)
    return route_slots(found.path, found.parameters, found.description, found.example)


def _switch(description: str, choices=(), default=None) -> Slot:
    return Slot(
        name="flag",
        regex="",
        optional=True,
        description=description,
        choices=list(choices),
        example=None,
        default=default,
        subject=False,
    )


MEDIA = _switch(
    "whether only display media content, default to false, any value to true",
    [("true", "true"), ("false", "false")],
    "false",
)
FULL_TEXT = _switch("需要获取全文, 填写 true/yes 表示需要, 默认需要", default="需要")


@pytest.mark.parametrize(
    ("slot", "question", "value"),
    [
        (MEDIA, "the local timeline of mstdn.jp, only toots with photos", "true"),
        (MEDIA, "qiitadon 只看带图片的嘟文", "true"),
        (FULL_TEXT, "网易今日关注, 不需要全文, 标题就够了", "false"),
        (FULL_TEXT, "163 today's picks, without the full text please", "false"),
    ],
)
def test_a_switch_is_turned_by_what_the_question_asks_only_for_or_refuses(slot, question, value):
    values, sources = {}, {}

    switch_fill([slot], question, values, sources)

    assert values == {"flag": value} and sources == {"flag": "switch"}


@pytest.mark.parametrize(
    ("slot", "question"),
    [
        (MEDIA, "the local timeline of mstdn.jp, photos and text alike"),  # no "only"
        (MEDIA, "mstdn.jp timeline, not only the photos"),  # "not only" asks for more
        (FULL_TEXT, "网易今日关注, 要全文"),  # its default asked for: left out
        (FULL_TEXT, "163 today's picks, only the full text"),
    ],
)
def test_a_switch_said_neither_way_keeps_its_default(slot, question):
    values = {}

    switch_fill([slot], question, values, {})

    assert values == {}


def test_a_setting_of_many_values_is_no_switch():
    assert not is_switch(_switch("sort order", [("hot", "热门"), ("new", "最新")]))
    assert is_switch(MEDIA) and is_switch(FULL_TEXT)


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("pawoo.net local timeline, only posts with images", "/mastodon/timeline/pawoo.net/true"),
        ("网易今日关注 不用全文", "/163/today/false"),
    ],
)
def test_a_routes_switch_follows_the_question(question, path):
    assert first_path(question) == path


def test_a_number_with_the_prefix_its_description_allows_is_that_number():
    assert first_path("B站漫画 mc28012 更新提醒") == "/bilibili/manga/update/mc28012"


def test_an_address_said_after_not_is_refused_whole():
    question = "leetcode problem of the day, the english one, not leetcode.cn"

    assert first_path(question) == "/leetcode/dailyquestion/en"


def test_a_path_word_said_in_two_names_its_route_over_a_number_taken_for_an_id():
    assert first_path("澎湃 839 Studio 最近的新作品") == "/thepaper/839studio"


def test_a_word_of_a_route_refused_for_its_subject_is_no_subject_of_another():
    _chosen, ctx = route("my juejin collections as a feed, please")

    assert ctx.paths == [] and {need["route"] for need in ctx.needs} <= {
        "/juejin/collections/:userId",
        "/juejin/collection/:collectionId",
    }
    assert ctx.needs


def test_a_developer_unnamed_is_someone_unnamed():
    _chosen, ctx = route("follow a juejin developer's activity for me")

    assert ctx.paths == [] and [need["route"] for need in ctx.needs] == ["/juejin/dynamic/:id"]


def test_theres_written_without_its_apostrophe_is_no_name():
    _chosen, ctx = route("youtube community posts of a channel, theres one i like")

    assert ctx.paths == [] and [need["parameter"] for need in ctx.needs] == ["handle"]


def test_a_label_holding_the_order_asked_for_is_that_orders_list():
    assert first_path("36氪资讯榜单 按人气排") == "/36kr/hot-list/renqi"


def test_a_route_whose_name_is_said_keeps_a_listed_value_over_a_kind_said():
    assert first_path("掘金 AI编程 里 Cursor 标签的文章") == "/juejin/aicoding/Cursor"


def test_a_pages_setting_named_as_its_default_is_not_written():
    question = "https://www.taptap.cn/app/168332 的评价 按最新排序"

    assert first_path(question) == "/taptap/review/168332/new"


def test_a_feed_of_what_was_bookmarked_is_the_bookmarks_feed():
    _chosen, ctx = route("an rss feed of the posts I bookmarked on weibo")

    assert ctx.paths == [] and [need["route"] for need in ctx.needs] == [
        "/weibo/user_bookmarks/:uid/:routeParams?"
    ]


def test_a_parameter_named_as_a_key_of_the_linked_pages_query_takes_its_value():
    question = "https://www.lanqiao.cn/courses/?sort=hotest&tag=Python 有新课吗"

    assert first_path(question) == "/lanqiao/courses/hotest/Python"


def test_a_route_beside_the_pages_that_the_question_names_is_read_with_the_pages_values():
    question = "https://tieba.baidu.com/p/9012345678 只看楼主的回复"

    assert first_path(question) == "/baidu/tieba/post/lz/9012345678"
    assert first_path("https://tieba.baidu.com/p/9012345678") == "/baidu/tieba/post/9012345678"


def test_a_table_whose_row_names_a_parameter_lists_that_parameters_values():
    slots = {s.name: s for s in route_slots_of("/coolapk/hot/:type?/:period?")}

    assert slots["period"].choices == [("日榜", "daily"), ("周榜", "weekly")]
    assert ("参数名称", "type") not in slots["type"].choices
    assert first_path("酷安热榜 点赞榜的周榜") == "/coolapk/hot/dzb/weekly"


def test_a_parameter_kept_empty_for_old_paths_takes_no_word():
    assert first_path("bilibili iphone app, what's new in each version") == "/bilibili/app/iphone"


def test_a_routes_name_said_in_the_plural_is_said():
    assert first_path("Nature research highlights") == "/nature/highlight"


def test_values_the_description_writes_after_a_key_are_written_with_it():
    question = "steam workshop search for app 294100, descriptions in Korean"

    assert first_path(question) == "/steam/workshopsearch/294100/l=koreana"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("everything dang submits to hacker news", "/hackernews/submitted/sources/dang"),
        ("stories tptacek has submitted to hacker news", "/hackernews/submitted/sources/tptacek"),
    ],
)
def test_a_name_as_the_subject_of_what_it_does_is_named(question, path):
    assert first_path(question) == path


def test_an_activity_of_a_kind_is_the_activity_feed_listing_that_kind():
    question = "pull request activity of denoland/deno on github"

    assert first_path(question) == "/github/repo_event/denoland/deno/pr"
    assert first_path("pull requests of denoland/deno on github") == "/github/pull/denoland/deno"


def test_a_pages_query_names_the_feed_of_the_page():
    question = "机核 https://www.gcores.com/categories/12?tab=radios 这个分类的播客"

    assert first_path(question) == "/gcores/categories/12/radios"


def test_a_number_after_its_kinds_letters_in_a_page_address_is_the_number():
    question = "https://www.bilibili.com/bangumi/media/md28220978 更新提醒"

    assert first_path(question) == "/bilibili/bangumi/media/28220978"


def test_a_kind_before_a_kind_names_no_one():
    assert first_path("gcores community topics, recommended across all groups") == (
        "/gcores/topics/recommend"
    )


def test_a_chart_asked_for_is_served_by_a_route_named_for_its_list():
    question = "Douban weekly chart of Chinese-language TV dramas (华语口碑剧集榜)"

    assert first_path(question) == "/douban/movie/weekly/tv_chinese_best_weekly"


def test_the_past_span_said_without_a_number_is_one_of_it():
    assert first_path("aisixiang most clicked articles of the past week") == (
        "/aisixiang/toplist/1/7"
    )
