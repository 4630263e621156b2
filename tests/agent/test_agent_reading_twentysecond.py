"""The twenty-second pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.documented import default_of
from agent.routes.slots import Slot
from agent.routes.unsaid import defaults_dropped
from agent.routes.whose import name_under
from agent.unnamed import subject_unnamed
from agent.vocabulary import intents_of
from fetching.radar import page_addresses, radar_hits
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


def _setting(name: str, default: str, choices=()) -> Slot:
    return Slot(
        name=name,
        regex="",
        optional=True,
        description=f"{name}, default `{default}`",
        choices=list(choices),
        example=None,
        default=default,
        subject=False,
    )


def test_optional_values_at_their_default_that_end_the_path_are_left_out():
    slots = [
        _setting("category", "whole", [("全站", "whole"), ("新闻", "news")]),
        _setting("type", "click", [("点击榜", "click"), ("跟贴榜", "follow")]),
        _setting("time", "day", [("24小时", "day"), ("本周", "week")]),
    ]
    values = {"category": "whole", "type": "click", "time": "day"}

    assert defaults_dropped(slots, values) == {}
    assert values == {"category": "whole", "type": "click", "time": "day"}  # kept as read


def test_a_default_before_a_value_asked_for_stays():
    slots = [_setting("category", "whole"), _setting("type", "click")]

    kept = defaults_dropped(slots, {"category": "whole", "type": "follow"})

    assert kept == {"category": "whole", "type": "follow"}


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("网易新闻排行 点击榜 24小时", "/163/news/rank"),
        ("华尔街见闻快讯 全部", "/wallstreetcn/live"),
        ("华尔街见闻快讯 只看重要的", "/wallstreetcn/live/global/2"),  # a value asked for stays
    ],
)
def test_a_path_ends_before_defaults_asked_for(question, path):
    assert first_path(question) == path


def test_a_default_said_as_used_is_read():
    assert default_of("lang", "语言\uff0c默认使用 `zh_CN`\uff0c亦可使用 `en_US`", "") == "zh_CN"
    assert first_path("https://www.taptap.cn/app/45213 更新日志") == "/taptap/changelog/45213"


def test_a_preposition_before_the_kind_is_no_part_of_the_name():
    assert first_path("juejin posts under the Golang tag") == "/juejin/tag/Golang"


@pytest.mark.parametrize(
    ("text", "unnamed"),
    [
        ("YouTube's music charts, nothing country specific", False),
        ("the country-specific charts", False),
        ("Apple's news in particular", False),
        ("the chart of a specific country", True),
        ("some user's repositories", True),
        ("what someone posted", True),
    ],
)
def test_some_and_specific_leave_unnamed_only_what_follows_them(text, unnamed):
    assert subject_unnamed(text) is unnamed


def test_an_adjective_use_of_specific_does_not_refuse_a_route_of_no_subject():
    question = "YouTube's music charts, nothing country specific, the worldwide one"

    assert first_path(question) == "/youtube/charts"


def test_a_pages_one_query_value_stands_after_its_path():
    hits = radar_hits("https://www.youtube.com/playlist?list=PLRqwX-V7Uu6ZiZxtDDRCi6uhfTH4FilpH")

    assert [h.path for h in hits] == ["/youtube/playlist/PLRqwX-V7Uu6ZiZxtDDRCi6uhfTH4FilpH"]


def test_a_pages_query_key_and_value_stand_as_its_path():
    assert first_path("v2ex.com/?tab=tech 最新帖子") == "/v2ex/tab/tech"


def test_a_closing_parenthesis_the_address_does_not_open_is_no_part_of_it():
    (queried,) = page_addresses("the tech tab (v2ex.com/?tab=tech).")
    (pathed,) = page_addresses("his page (https://movie.douban.com/celebrity/1023040)")

    assert queried.query == "tab=tech"
    assert pathed.segments == ("celebrity", "1023040")


def test_a_subdomains_page_is_read_on_the_sites_routes_by_a_word_of_its_path():
    question = "https://movie.douban.com/celebrity/1023040/ 新作品"

    assert first_path(question) == "/douban/celebrity/1023040"


def test_a_route_quoted_by_its_name_is_read_over_a_search():
    assert first_path("想订阅 B站 “入站必刷” 里新加的视频") == "/bilibili/precious"


@pytest.mark.parametrize("domain", ["3g.163.com", "wap.163.com", "m.163.com", "www.163.com"])
def test_a_sites_own_version_is_no_ones_subdomain(domain):
    assert name_under(domain, ("163.com",)) == ""


def test_a_users_subdomain_is_still_their_name():
    assert name_under("noahpinion.substack.com", ("substack.com",)) == "noahpinion"


def test_a_press_release_is_no_softwares_release():
    assert "release" not in intents_of("Microsoft's latest press releases")
    assert "release" not in intents_of("Press Releases")
    assert "release" in intents_of("new releases of vite")


def test_a_word_of_how_it_is_put_in_parentheses_is_no_value():
    question = "Google Developers Blog in Spanish (Español version)"

    assert first_path(question) == "/google/developers/es"


def test_goes_is_no_streamers_name():
    _chosen, ctx = route("ping me when a huya streamer I like goes live")

    assert ctx.paths == [] and [need["route"] for need in ctx.needs] == ["/huya/live/:id"]


def test_a_kind_named_after_what_asks_names_no_one():
    assert first_path("少数派有啥新的付费专栏") == "/sspai/series"


def test_a_value_called_by_a_subject_parameters_name_is_that_parameters():
    question = (
        "docker hub: has the official redis image pushed a new build for the bookworm-slim tag"
    )

    assert first_path(question) == "/dockerhub/build/library/redis/bookworm-slim"


@pytest.mark.parametrize(
    ("question", "route_path"),
    [
        ("B站那个视频的弹幕最近多了啥", "/bilibili/video/danmaku/:bvid/:pid?"),
        ("想看豆瓣同城我们这边这周的热门活动", "/douban/event/hot/:locationId"),
    ],
)
def test_that_one_of_a_kind_or_where_we_are_is_asked_for(question, route_path):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == []
    assert [need["route"] for need in ctx.needs] == [route_path]


def test_that_one_before_a_kinds_list_still_reads_the_list():
    assert first_path("B站那个视频排行榜") == "/bilibili/ranking"


def test_a_country_of_a_codes_few_examples_is_written_as_its_code():
    assert first_path("Apple exchange and repair extension programs in Germany") == (
        "/apple/exchange_repair/de"
    )


def test_a_host_only_a_platforms_rules_read_is_that_platforms_page():
    question = "when does https://steamcommunity.com/sharedfiles/filedetails/?id=2751234567 change"

    assert first_path(question) == "/steam/sharefile-changelog/2751234567"


def test_an_english_sort_names_a_chinese_label_of_what_it_sorts_by():
    assert first_path("douban celebrity 1041029 sorted by rating") == (
        "/douban/celebrity/1041029/vote"
    )


def test_a_default_said_as_missing_is_read():
    assert default_of("sort", "排序方式\uff0c缺省为 `time`\uff08时间排序\uff09", "") == "time"
    assert first_path("douban celebrity 1041029 sorted by date") == "/douban/celebrity/1041029"


@pytest.mark.parametrize(
    ("question", "platform"),
    [
        ("用百度搜 Notion 有新结果就推给我", "baidu"),
        ("Google results for the word Notion, as a feed", "google"),
    ],
)
def test_a_platforms_name_searched_for_is_what_to_look_for_not_where(question, platform):
    _chosen, ctx = route(question)

    assert ctx.platforms[:1] == [platform]


def test_a_query_written_out_whole_is_the_value_of_a_parameter_written_as_one():
    question = "google news, the world topic, hl=ja&gl=JP&ceid=JP:ja"

    assert first_path(question) == "/google/news/World/hl=ja&gl=JP&ceid=JP:ja"


def test_a_section_said_before_its_kind_is_a_titled_categorys_title():
    # the locale's description backquotes hl, gl and ceid: its keys, not values to choose
    question = "Google News science section hl=de&gl=DE&ceid=DE:de"

    assert first_path(question) == "/google/news/Science/hl=de&gl=DE&ceid=DE:de"


def test_a_value_called_by_a_kind_no_parameter_is_fills_none():
    # the tag route lists an image's tags: "7-alpine 这个tag" is no owner of it
    question = "dockerhub 上 redis 官方镜像 7-alpine 这个tag 有新的吗"

    assert first_path(question) == "/dockerhub/tag/library/redis"


def test_a_kind_its_parameter_is_described_as_still_names_its_value():
    assert first_path("Any new posts in the telegram_tips Telegram channel?") == (
        "/telegram/channel/telegram_tips"
    )
