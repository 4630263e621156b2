"""The twentieth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.listed import inline_values
from agent.routes.slots import route_slots
from catalog.search_terms import question_terms
from fetching.radar import radar_hits
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("any feed for https://publish.obsidian.md/help ?", "/obsidian/publish/help"),
        ("m4 军事频道 mil.m4.cn/china 能订阅吗", "/m4/mil/china"),
    ],
)
def test_a_root_rule_whose_target_section_the_host_names_takes_the_page_below(question, path):
    assert [hit.path for hit in radar_hits(question)] == [path]


def test_a_root_rule_takes_no_page_two_segments_below():
    assert radar_hits("https://publish.obsidian.md/help/start") == []


def test_a_title_written_after_a_pages_number_is_no_part_of_its_address():
    hits = radar_hits("香港01 https://www.hk01.com/zone/5/國際 有冇得訂閱")

    assert [hit.path for hit in hits] == ["/hk01/zone/5"]


def test_a_section_word_after_a_number_is_not_dropped_as_a_title():
    assert radar_hits("https://www.hk01.com/zone/5/news") == []


def test_a_setting_named_after_one_a_page_leaves_open_takes_that_ones_default_between():
    question = "TapTap reviews in 日本語 please https://www.taptap.io/app/82354"

    assert first_path(question) == "/taptap/intl/review/82354/helpful/ja_JP"


def test_a_requests_wording_names_no_feed_of_likes():
    assert "like" not in question_terms("I'd like the WHO speeches in French")
    assert "like" in question_terms("the likes of alice on Cara")
    assert first_path("We'd love the WHO speeches, in French") == "/who/speeches/fr"


def test_hours_shortened_name_a_span_of_hours():
    assert first_path("chouti top list of the last 168 hrs") == "/chouti/top/168"


def test_an_example_writing_its_template_shows_no_value():
    assert first_path("Plurk News in Chinese, please") == "/plurk/news/zh"


def test_the_askers_advisor_is_someone_unnamed():
    _chosen, ctx = route("papers by my PhD supervisor on INSPIRE-HEP, as a feed")

    assert ctx.paths == [] and [need["parameter"] for need in ctx.needs] == ["id"]


def test_default_settings_asked_for_are_no_search():
    assert first_path("trendingpapers top papers, default settings") == "/trendingpapers/papers"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("b站搜 zelda 的视频 按点击最多排", "/bilibili/vsearch/zelda/click"),
        (
            "bilibili search videos for zelda, sorted by click count",
            "/bilibili/vsearch/zelda/click",
        ),
    ],
)
def test_the_order_asked_for_is_no_part_of_what_is_searched(question, path):
    assert first_path(question) == path


def test_nothing_else_is_no_value():
    path = first_path("open pull requests of vercel/next.js on GitHub, nothing else")

    assert "nothing" not in path and path.startswith("/github/pull/vercel/next.js")


def test_danmaku_are_a_kind_of_feed_of_their_own():
    assert first_path("B站 BV1GJ411x7h7 的弹幕") == "/bilibili/video/danmaku/BV1GJ411x7h7"
    assert first_path("danmaku of bilibili video BV1GJ411x7h7") == (
        "/bilibili/video/danmaku/BV1GJ411x7h7"
    )
    assert first_path("B站 BV1GJ411x7h7 的评论") == "/bilibili/video/reply/BV1GJ411x7h7"


def test_no_name_follows_a_marker_after_some():
    _chosen, ctx = route("想订阅某个豆瓣用户日记下面的最新回应")

    assert ctx.paths == [] and ctx.needs


def test_tables_of_numbers_list_the_parameter_whose_example_is_a_number():
    [tid, embed] = route_slots(
        "/bilibili/partion/:tid/:embed?",
        {"tid": "分区 id", "embed": "默认为开启内嵌视频, 任意值为关闭"},
        "动画\n\n| MAD·AMV | MMD·3D |\n| --- | --- |\n| 24 | 25 |\n\n"
        "纪录片\n\n| 全部 | 军事 |\n| --- | --- |\n| 177 | 179 |\n",
        "/bilibili/partion/33",
    )

    assert ("军事", "179") in tid.choices and embed.choices == []


def test_a_word_of_a_routes_own_path_said_names_it_over_a_route_listing_it():
    question = "the latest finance news in Lianhe Zaobao's realtime section, please"

    assert first_path(question) == "/zaobao/realtime/zfinance"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("豆瓣即将播出的剧集 按时间排", "/douban/tv/coming/time"),
        ("豆瓣即将播出的剧集按热度排序", "/douban/tv/coming"),  # hot: its default
    ],
)
def test_the_chinese_order_asked_for_names_the_sorts_value(question, path):
    assert first_path(question) == path


def test_a_routes_name_holding_de_is_said_without_it():
    assert first_path("豆瓣即将播出的剧集") == "/douban/tv/coming"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("hugging face blog posts", "/huggingface/blog"),
        ("Hugging Face 博客", "/huggingface/blog-zh"),
        ("The English blog of Hugging Face", "/huggingface/blog"),
        ("Hugging Face 的中文博客", "/huggingface/blog-zh"),
    ],
)
def test_of_a_sites_feeds_one_per_language_the_questions_own_is_read(question, path):
    assert first_path(question) == path


def test_a_feed_in_english_is_no_edition_without_another_language():
    assert not first_path("BBC news, full text if possible").endswith("learningenglish")


def test_soon_said_as_kuaiyao_is_upcoming():
    assert first_path("豆瓣上快要上映的电影有哪些") in {
        "/douban/movie/later",
        "/douban/movie/coming",
    }


def test_a_value_said_with_its_kind_is_the_value_a_route_lists():
    question = "reviewed github security advisories for pip packages"

    assert first_path(question) == "/github/advisor/data/reviewed/pip"


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("排序方式\uff0chot或new\uff0c默认为new", {"hot", "new"}),
        ("Operating system, windows or macos, all by default", {"windows", "macos"}),
        ("排序方式, live_time 开播时间, online 人气", {"live_time", "online"}),
    ],
)
def test_a_clause_listing_values_or_values_spaced_from_their_labels_lists_them(text, values):
    assert {value for _label, value in inline_values(text)} == values


def test_a_description_that_is_a_list_alone_still_needs_its_example():
    assert inline_values("userpath or teampath", "john") == []


def test_a_route_whose_name_is_said_takes_the_subject_a_list_elsewhere_numbers():
    assert first_path("B站直播分区 86 按人气排序") == "/bilibili/live/area/86/online"
    assert first_path("豆瓣话题 48823 想按最热看") == "/douban/topic/48823/hot"


def test_a_kind_of_feed_the_question_names_is_served_by_the_route_waiting_for_it():
    """ "GitHub trending" is an alias of GitHub, and a kind of feed still: Trending waits for an
    access token, and a readable route listing Python is no answer."""
    _chosen, ctx = route("GitHub trending Python today")

    assert ctx.paths == []
    assert [s["route"] for s in ctx.setup_needed] == [
        "/github/trending/:since/:language/:spoken_language?"
    ]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("知乎问题 19550225 的回答 按创建时间排", "/zhihu/question/19550225/created"),
        ("mysql docker image builds", "/dockerhub/build/library/mysql"),
        ("nginx docker image new tags", "/dockerhub/tag/library/nginx"),
    ],
)
def test_creation_orders_and_a_name_before_the_platform_and_kind_are_read(question, path):
    assert first_path(question) == path


def test_a_kind_of_feed_after_a_marker_names_no_one():
    path = first_path("official mysql docker image builds")

    assert "builds" not in path
