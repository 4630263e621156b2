"""The twenty-third pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.fit import platform_hosts
from agent.routes.keyed import key_rows, keyed_query_fill
from agent.routes.slots import Slot
from agent.routes.whose import name_under
from agent.unnamed import subject_unnamed
from agent.vocabulary import intents_of
from catalog.models import Platform
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db

KEY_TABLE = """extra keys
| Key | Description | Accepts | Defaults to |
| :-: | :-: | :-: | :-: |
| showLinkPreview | Show the link preview | 0/1/true/false | true |
| showMediaTagInTitle | Show media tags in the title | 0/1/true/false | true |
| includeFwd | Include forwarded messages | 0/1/true/false | true |
| includeReply | Include reply messages | 0/1/true/false | true |
"""


def _extra(description: str) -> Slot:
    return Slot(
        name="routeParams",
        regex="",
        optional=True,
        description=description,
        choices=[],
        example=None,
        default=None,
        subject=False,
    )


def test_a_page_gives_the_number_in_its_path_and_the_one_in_its_query():
    question = "https://space.bilibili.com/208259/channel/detail?cid=101 这个频道有新视频吗"

    assert first_path(question) == "/bilibili/user/channel/208259/101"


def test_a_section_host_the_sites_rules_read_is_no_users_subdomain():
    hosts = platform_hosts(Platform.objects.get(namespace="bilibili"))

    assert "space.bilibili.com" in hosts
    assert name_under("space.bilibili.com", hosts) == ""
    assert name_under("noahpinion.substack.com", ("substack.com",)) == "noahpinion"


@pytest.mark.parametrize(
    ("text", "search"),
    [
        ("GitHub 上搜 tauri 的结果", True),
        ("36氪搜一下低空经济", True),
        ("微博热搜", False),
        ("搜狐新闻", False),
        ("搜狗输入法", False),
    ],
)
def test_sou_said_as_a_verb_asks_for_a_search(text, search):
    assert ("search" in intents_of(text)) is search


def test_sou_names_a_search_label_of_a_spread_value():
    assert first_path("36氪上搜“低空经济”的文章") == "/36kr/search/articles/低空经济"


def test_a_tables_switch_of_which_items_are_kept_is_turned_from_its_default():
    values, sources = {}, {}
    slots = [_extra(KEY_TABLE)]

    question = "the channel, but skip the forwarded messages"
    keyed_query_fill(slots, "", question, values, sources, question)

    assert values == {"routeParams": "includeFwd=0"}
    assert sources == {"routeParams": "option"}


@pytest.mark.parametrize(
    "question",
    [
        "the channel, no pictures please",  # a switch of how items show is never read
        "the channel with forwarded messages",  # said as its default: nothing to write
        "the channel",
    ],
)
def test_a_switch_said_as_its_default_or_of_how_items_show_is_left_out(question):
    values: dict = {}

    keyed_query_fill([_extra(KEY_TABLE)], "", question, values, {}, question)

    assert values == {}


def test_a_table_of_keys_is_read_by_its_chinese_headers():
    table = (
        "| 键 | 含义 | 接受的值 | 默认值 |\n| -- | -- | -- | -- |\n"
        "| only\\_thread | 只看主题帖\uff0c默认为 0 关闭 | 0/1 | 0 |\n"
        "| rn | 返回条目的数量 | 1-20 | 20 |"
    )

    rows = key_rows(table)

    assert [(r.key, r.accepts, r.default) for r in rows] == [
        ("only_thread", "0/1", "0"),
        ("rn", "1-20", "20"),
    ]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "Telegram channel @tginfo without forwarded messages",
            "/telegram/channel/tginfo/includeFwd=0",
        ),
        ("贴吧里搜“显卡”\uff0c只看主题帖", "/baidu/tieba/search/显卡/only_thread=1"),
        ("豆瓣每月推荐的电影片单 评分9分以上", "/douban/recommended/movie/score=9"),
    ],
)
def test_a_routes_extra_keys_are_written_as_their_query(question, path):
    assert first_path(question) == path


def test_a_number_out_of_a_keys_range_is_not_its_value():
    table = (
        "| 额外参数 | 含义 | 接受的值 | 默认值 |\n| -- | -- | -- | -- |\n"
        "| score | 筛选评分 | 0-10 | 0 |"
    )
    values: dict = {}

    keyed_query_fill([_extra("额外参数")], table, "评分 80 以上", values, {}, "评分 80 以上")

    assert values == {}


def test_the_epic_store_names_epic_games():
    assert first_path("which games are free on the Epic Store this week") == "/epicgames/freegames"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("雪球今天的热门话题", "/xueqiu/today"),
        ("雪球热帖", "/xueqiu/hots"),
    ],
)
def test_a_topic_is_a_kind_of_feed(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("Sina discovery, the animals & plants section", "/sina/discovery/dwzw"),
        ("anything new in Sina discovery's natural geography section", "/sina/discovery/zrdl"),
        ("华尔街见闻这一周最热", "/wallstreetcn/hot/week"),
        ("dev.to top posts of all time", "/dev.to/top/infinity"),
    ],
)
def test_a_chinese_label_is_named_in_english_and_a_word_in_passing_names_none(question, path):
    assert first_path(question) == path


def test_a_tag_is_one_word_never_the_questions_words_at_large():
    question = "想看 mastodon.social 这个长毛象实例的跨站时间线"

    assert first_path(question) == "/mastodon/remote/mastodon.social"


def test_a_region_after_the_platforms_name_is_its_sites_not_a_subject():
    assert first_path("iThome Taiwan security news") == "/ithome/tw/feeds/security"


def test_a_kind_of_feed_refused_ranks_below_the_one_asked_for():
    assert first_path("New York Times news in English, not the chinese one") == "/nytimes/en"


def test_a_value_after_the_kind_its_description_names_suits_that_parameter():
    assert first_path("B站直播 分区id 33 按人气排") == "/bilibili/live/area/33/online"


@pytest.mark.parametrize(
    "question",
    [
        "Has my favourite streamer gone live on douyu?",
        "Has my favourite singer put out a new album on NetEase Cloud Music?",
        "There's a guy on Gcores whose articles I like",
    ],
)
def test_a_kind_of_subject_itself_is_no_name(question):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == [] and ctx.needs


def test_da_v_is_a_kind_of_person():
    assert subject_unnamed("我关注的那个知乎大V最近的回答")


def test_a_tag_described_in_chinese_takes_the_value_called_a_tag():
    assert first_path("虎嗅标签 2113 这个tag 的新文章") == "/huxiu/tag/2113"


def test_a_written_query_led_by_a_documented_key_is_taken_whole():
    question = "arXiv feed for search_query=cat:cs.CL&sortBy=lastUpdatedDate please"

    assert first_path(question) == "/arxiv/search_query=cat:cs.CL&sortBy=lastUpdatedDate"


def test_a_hashtag_on_a_host_no_platform_has_is_read_on_the_federated_one():
    assert (
        first_path("what's new under #golang on hachyderm.io")
        == "/mastodon/tag/hachyderm.io/golang"
    )


def test_a_hashtag_on_a_platforms_own_host_is_that_platforms():
    _chosen, ctx = route("#python posts on twitter.com")

    assert ctx.platforms and "mastodon" not in ctx.platforms


def test_two_kinds_of_thing_joined_by_a_slash_are_no_owner_and_name():
    question = "follow #godot on mastodon.gamedev.place, only posts with images/videos"

    assert first_path(question) == "/mastodon/tag/mastodon.gamedev.place/godot/true"


def test_a_parameter_described_as_a_search_keyword_is_a_subject_never_its_example():
    assert first_path("BT之家 1lou 上搜“流浪地球”") == "/1lou/search/流浪地球"


def test_a_region_code_a_description_writes_among_others_is_its_value():
    assert first_path("Yahoo Taiwan news, the world section") == "/yahoo/news/tw/world"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("New York Times Business section feed", "/nytimes/rss/Business"),
        ("纽约时报 Travel 版块", "/nytimes/rss/Travel"),
    ],
)
def test_a_category_parameter_cut_short_takes_a_section_in_its_examples_form(question, path):
    assert first_path(question) == path


def test_someone_acting_on_a_platform_fills_its_owner_first():
    question = "what images has bitnami been pushing to docker hub lately?"

    assert first_path(question) == "/dockerhub/repositories/bitnami"


def test_an_official_image_named_by_its_kind_stays_the_image():
    assert (
        first_path("the official redis image tags on docker hub") == "/dockerhub/tag/library/redis"
    )


def test_a_gitlab_pages_project_is_its_path_before_the_dash():
    question = "new releases of https://gitlab.com/fdroid/fdroidclient/-/releases"

    assert first_path(question) == "/gitlab/release/fdroid/fdroidclient"


def test_a_pages_query_key_naming_another_routes_parameter_reads_that_route():
    question = "https://space.bilibili.com/546195/favlist?fid=88888888 这个收藏夹的新视频"

    assert first_path(question) == "/bilibili/fav/546195/88888888"


def test_a_page_without_that_key_keeps_its_own_route():
    assert (
        first_path("https://space.bilibili.com/546195/favlist 收藏夹")
        == "/bilibili/user/fav/546195"
    )


def test_an_english_gloss_of_a_chinese_word_is_no_value():
    assert first_path("anything new in juejin 小册 (booklets) lately?") == "/juejin/books"


def test_what_most_labels_say_names_none_of_them():
    assert first_path("36kr 收藏榜 please") == "/36kr/hot-list/shoucang"
    assert first_path("show me 36kr's 人气榜 (popularity ranking)") == "/36kr/hot-list/renqi"


def test_whos_is_no_search_word():
    question = "who's streaming valorant on bilibili live? sort by most popular"

    assert first_path(question) == "/bilibili/live/search/valorant/online"


def test_lower_case_words_run_together_in_chinese_are_one_search():
    question = "Google Scholar 上 graph neural networks 的新论文"

    assert first_path(question) == "/google/scholar/graph+neural+networks"


def test_an_opaque_id_takes_no_word():
    question = "Updates to the Chrome extension cjpalhdlnbpafiamejdnhcphjbkeiagm (uBlock Origin)"

    assert first_path(question) == "/google/chrome/extension/cjpalhdlnbpafiamejdnhcphjbkeiagm"


def test_an_english_phrase_glossing_a_chinese_word_names_nothing():
    chosen, ctx = route("ScienceDirect 上我那个学科的征稿通知\uff08call for papers\uff09")

    assert chosen is False and ctx.paths == []
    assert [need["parameter"] for need in ctx.needs] == ["subject"]
