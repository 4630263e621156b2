"""The sixteenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.enums import option_named
from agent.routes.listed import inline_values
from agent.routes.params import params_fill
from agent.routes.queries import query_fill
from agent.routes.slots import route_slots
from agent.routes.unsaid import SubjectMissing
from fetching.radar import radar_hits
from tests.agent.test_agent_reading_thirteenth import _topic_terms
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db

REGION_TABLES = """| Region | id |
| ------ | -- |
| Japan  | jp |
| Brazil | br |

#### Japan

| 新闻 | 报告 |
| ---- | ---- |
| news | publications/jp-reports |

#### Brazil

| Notícias | Relatórios |
| -------- | ---------- |
| news     | insights/relatorios |"""


def test_values_said_to_be_their_labels_bare_are_listed():
    listed = inline_values("1 为只看精华\uff0c0 为全部帖子\uff0c默认为 0", "1")

    assert ("只看精华", "1") in listed
    assert ("全部帖子", "0") in listed


def test_a_one_character_label_said_bare_lists_nothing():
    assert inline_values("yes 为是\uff0cno 为否", "yes") == []


def test_tables_captioned_by_a_value_of_one_parameter_list_the_next_ones_values():
    region, category = route_slots(
        "/ex/:region?/:category{.+}?",
        {"region": "Region id, see below", "category": "Category, news by default"},
        REGION_TABLES,
        "/ex/jp/news",
    )

    assert ("Brazil", "br") in region.choices
    assert all(v not in ("publications", "insights") for _label, v in region.choices)
    # a slashed value among one-segment ones is one value, spanning no two parameters
    assert ("报告", "publications/jp-reports") in category.choices


def _fill(template: str, parameters: dict, example: str, question: str) -> dict:
    return params_fill(
        template=template, parameters=parameters, description="", example=example, question=question
    ).params


def test_a_required_area_takes_the_place_named_written_as_its_example_writes_one():
    params = _fill(
        "/air-level/air/:area",
        {"area": "地区"},
        "/air-level/air/xian",
        "air quality readings for Lhasa",
    )

    assert params == {"area": "lhasa"}


def test_a_parameter_defaulting_to_this_year_takes_the_year_said_in_chinese():
    spec = {"id": "归档页地址\uff0c默认为当前年份"}

    assert _fill("/wangwusiwj/:id?", spec, "/wangwusiwj", "这个博客 2017年的全部文章") == {
        "id": "2017"
    }
    assert _fill("/wangwusiwj/:id?", spec, "/wangwusiwj", "2017年和2018年的文章") == {}


def test_a_count_of_items_asked_for_fills_a_count_parameter():
    spec = {"limit": "每次返回的数量"}

    assert _fill(
        "/aozora/newbook/:limit?", spec, "/aozora/newbook/10", "only 15 items per refresh"
    ) == {"limit": "15"}
    assert _fill("/aozora/newbook/:limit?", spec, "/aozora/newbook/10", "每次给我 30 条") == {
        "limit": "30"
    }
    assert (
        _fill("/aozora/newbook/:limit?", spec, "/aozora/newbook/10", "new arrivals since 2019")
        == {}
    )


@pytest.mark.parametrize(
    ("address", "path"),
    [
        # a bare "*" after the rule's parameters passes over the pages below
        ("https://www.creative-comic.tw/book/2041/chapter/9", "/creative-comic/book/2041"),
        # a folder's index page is the folder
        ("http://www.cnnic.net.cn/11/39/index.html", "/gov/cnnic/11/39"),
        # an optional rest parameter takes the page's whole path
        ("https://www.gisreportsonline.com/gis/c/energy/", "/gisreportsonline/gis/c/energy"),
        # a rule's source without its host is on the platform's own site, and a target
        # written with the namespace is the route's path
        ("https://1x.com/photos/portrait", "/1x/portrait"),
    ],
)
def test_page_addresses_map_to_their_routes(address, path):
    assert [hit.path for hit in radar_hits(address)] == [path]


def test_a_rule_naming_a_value_its_target_does_not_take_gives_no_valueless_path():
    # abmedia's rule writes :catehory, its target :category
    assert [hit.path for hit in radar_hits("https://www.abmedia.io/category/nft")] == [
        "/abmedia/nft"
    ]


def test_of_platforms_sharing_a_site_the_one_the_question_names_reads_the_page():
    question = "the current issue on ScienceDirect: https://www.sciencedirect.com/journal/cell"

    assert first_path(question) == "/sciencedirect/journal/cell/current"


def test_a_website_said_unnamed_names_no_topic_to_read():
    _chosen, ctx = route("a feed for a particular topic on The Hindu website")

    assert not ctx.paths
    assert [need["parameter"] for need in ctx.needs] == ["topic"]


@pytest.mark.parametrize(
    ("question", "namespace", "template"),
    [
        ("Hi, wanna get the Bellroy new releases, thanks!", "bellroy", "/bellroy/new-releases"),
        ("齐鲁工业大学的通知公告 麻烦订阅一下", "qlu", "/qlu/notice"),
    ],
)
def test_greetings_and_thanks_are_no_topic(question, namespace, template):
    assert _topic_terms(question, namespace, template) == ()


def test_a_label_right_after_a_value_and_a_space_is_its_label_up_to_an_or():
    listed = inline_values("类型, `columns` 栏目或 `authors` 作者, 默认为全部", None)

    assert ("栏目", "columns") in listed
    assert ("作者", "authors") in listed


def test_the_one_parameter_pointing_at_a_table_takes_it_before_one_defaulting_to_its_value():
    table = "| 全部 | 时评 | 书评 |\n| ---- | ---- | ---- |\n|      | 时评 | 书评 |"
    kind, column = route_slots(
        "/ex/:kind?/:column?",
        {"kind": "类型, `categories` 分类, 默认为全部", "column": "栏目见下表"},
        table,
        "/ex",
    )

    assert ("书评", "书评") in column.choices
    assert all(v != "书评" for _label, v in kind.choices)


SHOWN_ONE_PAGE = """若订阅 [重大项目公告](http://www.ex.gov.cn/GB/219469/431000) 则将对应页面 URL
中的字段 `GB/219469/431000` 作为路径填入。此时路由为 [`/gov/ex/GB/219469/431000`](https://rsshub.app/gov/ex/GB/219469/431000)"""
SHOWN_SITE = """To subscribe to [Section](https://ex.gov.cn/), the route is [`/gov/ex/explained`](https://rsshub.app/gov/ex/explained)."""


def test_a_page_whose_address_holds_a_rest_parameters_value_labels_it():
    [slot] = route_slots("/gov/ex/:path{.+}?", {"path": "路径"}, SHOWN_ONE_PAGE, "/gov/ex")

    assert slot.choices == [("重大项目公告", "GB/219469/431000")]


def test_a_site_linked_under_the_routes_own_name_labels_no_rest_value():
    [slot] = route_slots("/gov/ex/:path{.+}?", {"path": "Section"}, SHOWN_SITE, "/gov/ex")

    assert slot.choices == []


def test_a_subject_said_in_the_words_its_example_joins_with_dashes_is_that_value():
    params = _fill(
        "/gihyo/list/group/:id",
        {"id": "Series"},
        "/gihyo/list/group/Ubuntu-Weekly-Recipe",
        "new installments of ubuntu weekly recipe please",
    )

    assert params == {"id": "Ubuntu-Weekly-Recipe"}
    with pytest.raises(SubjectMissing):
        _fill(
            "/gihyo/list/group/:id",
            {"id": "Series"},
            "/gihyo/list/group/Ubuntu-Weekly-Recipe",
            "new installments of a series I read",
        )


def test_of_routes_named_alike_the_one_whose_path_says_the_word_asked_is_read():
    assert first_path("Farmatters exclusives, in the default language") == "/farmatters/exclusive"


QUERY_EXAMPLE = (
    "/ex/district=wien-2-leopoldstadt&district=wien-21-floridsdorf&plz[]=1100&plz[]=1210"
)


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("new flats in Floridsdorf", "district=wien-21-floridsdorf"),
        (
            "anything in postcode 1210 or in Leopoldstadt?",
            "district=wien-2-leopoldstadt&plz[]=1210",
        ),
    ],
)
def test_a_query_example_gives_the_pairs_whose_value_the_question_says(question, path):
    [slot] = route_slots("/ex/:path{.+}?", {"path": "Search filters"}, "", QUERY_EXAMPLE)
    values, sources = {}, {}
    query_fill([slot], question, values, sources)

    assert values == {"path": path}


def test_a_query_example_names_nothing_the_question_does_not_say():
    [slot] = route_slots("/ex/:path{.+}?", {"path": "Search filters"}, "", QUERY_EXAMPLE)
    values: dict = {}
    query_fill([slot], "any new flats in wien?", values, {})  # wien: every value says it

    assert values == {}


def test_a_table_captioned_by_a_query_key_writes_its_values_with_it():
    table = (
        "系列 (collection)\n\n| 不限 | 马里奥 | 宝可梦 |\n| ---- | ---- | ---- |\n| all | 2 | 7 |"
    )
    [slot] = route_slots("/ex/:filters?", {"filters": "过滤器, 见下表"}, table, "/ex/lang=all")

    assert ("宝可梦", "collection=7") in slot.choices


def test_an_id_said_after_the_parameters_name_and_a_copula_is_its_value():
    spec = {"id": "剧集 id, 可在剧集下载页 URL 中找到", "downLinkType": "下载链接类型"}
    template, example = "/newzmz/:id?/:downLinkType?", "/newzmz/qEzRyY3v"

    assert _fill(template, spec, example, "这部剧的id是 Ab3dE9fG, 想追更") == {"id": "Ab3dE9fG"}
    assert _fill(template, spec, example, "the show id is Ab3dE9fG") == {"id": "Ab3dE9fG"}


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("support the following values: day, week and month", ("week", "week")),
        ("类型: anime - 动画, book - 图书, game - 游戏", ("游戏", "game")),
    ],
)
def test_values_listed_as_following_or_dashed_before_their_labels(text, pair):
    assert pair in inline_values(text, None)


def _option(question: str, choices: list[tuple[str, str]]) -> str | None:
    return option_named(question, choices, loose=True)


def test_a_label_said_as_unwanted_is_not_the_one_chosen():
    choices = [("电影", "1"), ("电视剧", "2"), ("动漫", "3")]

    assert _option("只要动漫的, 电影电视剧就不要了", choices) == "3"


def test_what_every_label_says_names_none_of_them():
    choices = [("社会招聘", "social"), ("校园招聘", "campus"), ("实习生招聘", "intern")]

    assert _option("有没有招实习生的消息", choices) == "intern"


def test_a_filler_label_gives_way_to_another_label_said():
    choices = [("新聞", "news"), ("雲端", "cloud"), ("資安", "security")]

    assert _option("只想看資安新聞", choices) == "security"


def test_a_setting_said_as_unwanted_is_not_filled():
    filled = params_fill(
        template="/ianspriggs/:category?",
        parameters={"category": "Category, see below, 3D PORTRAITS by default"},
        description="| 3D PORTRAITS | CHARACTERS |\n| --- | --- |\n| portraits | characters |",
        example="/ianspriggs/portraits",
        question="his character work only, not the 3D portraits please",
    )

    assert filled.params == {"category": "characters"}


def test_a_route_listing_the_value_another_takes_as_a_subject_reads_it():
    # 太空课堂 is a 科普教育 column the catalog lists, no flight mission's id
    assert first_path("中国载人航天工程“太空课堂”栏目有更新吗") == "/gov/cmse/kpjy/tkkt"


def test_a_platform_named_only_as_what_to_search_for_is_no_source():
    assert first_path("bing search results for openwrt please") == "/bing/search/openwrt"


def test_a_hangul_word_is_a_whole_value():
    assert first_path("Naver news search results for 카카오") == "/naver/search/news/카카오"
