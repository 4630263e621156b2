"""The seventeenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.dates import date_said
from agent.routes.documented import default_of
from agent.routes.entities import question_read
from agent.routes.enums import option_named
from agent.routes.fit import _zh_said
from agent.routes.forms import forms_read
from agent.routes.listed import inline_values
from agent.routes.params import params_fill
from agent.routes.queries import query_fill
from agent.routes.slots import Slot, route_slots, value_format
from agent.routes.suits import kind_said_before
from agent.routes.unsaid import SubjectMissing, unsaid_fill
from agent.unnamed import subject_unnamed
from catalog.search_terms import entities_split
from catalog.segment import zh_simplified
from fetching.radar import radar_hits
from tests.agent.test_agent_route_offline import first_path

pytestmark = pytest.mark.django_db

KEYED = "Filter parameters in `key=value&key2=value2` format. Supported keys: `category`, `userId`"


def _query(question: str, example: str = "/ex/category=news&userId=ab12", hosts=()) -> dict:
    [slot] = route_slots("/ex/:filter{.+}?", {"filter": KEYED}, "", example)
    values: dict = {}
    query_fill([slot], question, values, {}, hosts)
    return values


def test_the_keys_a_query_parameter_lists_are_no_values_to_choose():
    [slot] = route_slots("/ex/:filter{.+}?", {"filter": KEYED}, "", "/ex/category=news")

    assert slot.choices == []
    assert not slot.subject  # a setting: no one's name fills it


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("posts with userId 9f2e-77aa-41c0 please", "userId=9f2e-77aa-41c0"),
        ("posts where category=rumors", "category=rumors"),
        ("category Comebacks, userId 51x7", "category=Comebacks&userId=51x7"),
    ],
)
def test_a_pair_the_question_writes_out_is_the_query(question, query):
    assert _query(question) == {"filter": query}


def test_a_key_followed_by_a_plain_word_writes_no_pair():
    assert _query("sorted by category as usual") == {}


def test_two_words_the_example_writes_as_one_choose_its_pair():
    assert _query("only the music show ones", "/ex/category=musicshow&gender=female") == {
        "filter": "category=musicshow"
    }


def test_the_query_of_a_link_to_the_platforms_site_is_the_query():
    link = "watch https://www.example.com/search?q=lake&sorting=views for me"

    assert _query(link, hosts=("example.com",)) == {"filter": "q=lake&sorting=views"}
    assert _query(link, hosts=("elsewhere.org",)) == {}


def test_a_search_page_with_a_query_reads_the_search_route_with_it():
    question = "feed of https://wallhaven.cc/search?q=lighthouse&sorting=views"

    assert first_path(question) == "/wallhaven/search/q=lighthouse&sorting=views"


def test_a_page_with_a_query_fills_the_query_parameter_its_route_leaves_open():
    assert first_path("https://kpopping.com/kpics?gender=female pics feed") == (
        "/kpopping/kpics/gender=female"
    )


@pytest.mark.parametrize("text", ["Filter, empty by default", "筛选条件\uff0c默认为空"])
def test_a_default_said_to_be_empty_is_no_default(text):
    assert default_of("filter", text, "") is None


def test_how_items_are_ordered_names_no_one():
    asked = question_read(
        "the board sorted by heat, ranked by votes", platform_words=(), excluded=()
    )

    assert {e.value for e in asked.entities}.isdisjoint({"heat", "votes"})


def test_a_marker_word_inside_chinese_is_no_value():
    asked = question_read("这个社群 ID 是 42", platform_words=(), excluded=())

    assert "ID" not in {e.value for e in asked.entities}
    assert "42" in {e.value for e in asked.entities}


def test_a_kind_its_id_word_and_a_copula_before_a_number_name_its_parameter():
    assert kind_said_before("42", _slot("tagId", "社群 ID"), "我想看社群 ID 是 42 的帖子")
    assert not kind_said_before("42", _slot("tagId", "社群 ID"), "我想看 42 条帖子")


def _slot(name: str, description: str) -> Slot:
    [slot] = route_slots(f"/ex/:{name}?", {name: description}, "", "/ex")
    return slot


def test_a_mixed_case_token_with_a_digit_is_an_id():
    _rest, formed = forms_read("board Xk29PqzWa7 please")

    assert ("id", "Xk29PqzWa7") in {(f.kind, f.value) for f in formed}


def test_a_platforms_namespace_said_whole_is_no_subject_value():
    plain, values = entities_split("1point3acres hot threads", {"1point3acres"})

    assert values == [] and plain.startswith("1point3acres")


def test_a_common_word_naming_a_platform_in_lower_case_gives_way_to_a_platform_named():
    hot = ("/1point3acres/thread", "/1point3acres/thread/hot")  # hot is its default
    assert first_path("1point3acres feed of the hottest threads") in hot
    assert first_path("latest Threads posts from zuck") == "/threads/zuck"


def test_a_brand_in_lower_case_still_names_its_platform():
    assert first_path("shopify engineering blog posts") == "/shopify/engineering"


def test_a_list_of_one_said_to_be_the_supported_values_is_listed():
    listed = inline_values("Type, supported values: special\uff08\u7279\u5c55\uff09. Default: All.")

    assert listed == [("special", "special"), ("\u7279\u5c55", "special")]


def test_a_row_heading_a_horizontal_table_is_no_value():
    table = "| 栏目 | 通知公告 | 本周活动 |\n| ---- | -------- | -------- |\n| 代码 | tzgg | bzhd |"
    [slot] = route_slots("/ex/:code", {"code": "栏目代码"}, table, "/ex/tzgg")

    assert slot.choices == [("通知公告", "tzgg"), ("本周活动", "bzhd")]


@pytest.mark.parametrize(
    "question", ["学校办公网有个栏目我想订阅", "the office site has sections, I want one of them"]
)
def test_a_required_setting_left_open_is_asked_for_not_read_at_its_example(question):
    table = "| 栏目 | 通知公告 | 本周活动 |\n| ---- | -------- | -------- |\n| 代码 | tzgg | bzhd |"
    with pytest.raises(SubjectMissing):
        params_fill(
            template="/ex/:code",
            parameters={"code": "栏目代码"},
            description=table,
            example="/ex/tzgg",
            question=question,
        )


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("福建日报 2024年3月5号的电子报", "/fjdaily/20240305"),
        ("fjdaily e-paper of March 7th, 2023", "/fjdaily/20230307"),
        ("fjdaily e-paper of 9 Jan 2022", "/fjdaily/20220109"),
    ],
)
def test_a_date_said_fills_a_date_parameter_in_its_format(question, path):
    assert first_path(question) == path


def test_an_impossible_date_fills_nothing():
    assert date_said("2024-02-30") is None


def test_a_one_digit_query_value_a_description_shows_maps_the_page():
    question = "https://www.eshukan.com/academic/index.aspx?cid=5 有更新吗"

    assert first_path(question) == "/eshukan/academic/5"


def test_a_rule_naming_none_of_its_targets_one_parameter_takes_the_segment_below_it():
    assert first_path("topbook.cc/content/7 的文章") == "/topbook/7"


def test_a_page_on_a_subdomain_is_read_by_the_route_taking_its_host_with_its_path():
    [hit] = radar_hits("http://mmny.maoming.gov.cn/zwq/zwgk/gzdt/")

    assert hit.path == "/gov/maoming/mmny/zwq/zwgk/gzdt"


def test_a_rule_with_no_target_takes_no_segment_below_its_source():
    question = "https://digitalpolicyalert.org/activity-tracker?policy=3 feed"

    assert first_path(question) == "/digitalpolicyalert/activity-tracker/policy=3"


def test_a_default_named_by_its_label_reads_the_route_it_is_the_default_of():
    assert first_path("IT之家「喜加一」专题") in ("/ithome/zt/xijiayi", "/ithome/zt")


def test_values_listed_with_the_routes_own_segment_before_them_are_their_part_alone():
    description = "| Category | id |\n| -------- | -- |\n| Papers on Ranking | query/Ranking |"
    [slot] = route_slots("/papers/query/:keyword{.+}?", {"keyword": "Keyword"}, description, "")

    assert slot.choices == [("Papers on Ranking", "Ranking")]


def test_cantonese_that_one_leaves_the_subject_unnamed():
    assert subject_unnamed(zh_simplified("我成日睇嗰個欄目"))


@pytest.mark.parametrize(
    "question",
    [
        "I want a feed for one of the lists on that site",
        "爱发电的排序方式有好几种\uff0c想订阅其中一种",
        "想看我所在城市的活动",
        "the air quality feed for my city",
    ],
)
def test_one_of_them_or_the_askers_own_place_leaves_the_subject_unnamed(question):
    assert subject_unnamed(zh_simplified(question))


def test_a_section_left_open_is_asked_for_whatever_the_parameter_is_called():
    with pytest.raises(SubjectMissing):
        params_fill(
            template="/ex/:path{.+}",
            parameters={"path": "路径"},
            description="| 政策解读 | 通知公告 |\n| -- | -- |\n| zwgk/zcjd | tzgg |",
            example="/ex/zwgk/zcjd",
            question="政府网站上有个板块我想订阅",
        )


def test_a_default_that_only_labels_a_value_is_not_written_as_one():
    parameters = {"path": "路径, 默认为 政务公开 > 政策解读"}
    table = "| 政务公开 > 政策解读 | 通知公告 |\n| -- | -- |\n| www/zwgk/zcjd | www/tzgg |"
    slots = route_slots("/ex/:path{.+}", parameters, table, "/ex/www/zwgk/zcjd")
    values: dict = {}
    unsaid_fill(slots, values, {}, "their site's feed")

    assert values == {"path": "www/zwgk/zcjd"}


def test_a_locale_written_out_fills_a_language_parameter_whose_example_is_one():
    assert first_path("TMDB collection 31, details in fr-FR") == "/themoviedb/collection/31/fr-FR"


def test_a_page_naming_its_feed_after_its_values_is_read_whatever_the_verbs_ask():
    page = "https://otobanana.com/user/0a1b2c3d-1111-2222-3333-444455556666/livestream"

    assert first_path(f"ping me when she posts on {page}").endswith("/livestream")


def test_a_chinese_route_name_said_word_by_word_with_words_between_is_said():
    assert _zh_said("教务处通知公告", "教务处新发的通知公告")
    assert not _zh_said("教务处通知公告", "通知公告和教务处")  # out of order
    assert first_path("成都大学教务处新发的通知公告") == "/cdu/jwgg"


def test_a_heading_row_of_a_horizontal_table_lists_no_value():
    table = "| 栏目 | 通知公告 | 本周活动 |\n| ---- | -------- | -------- |\n| 代码 | tzgg | bzhd |"
    [slot] = route_slots("/ex/:code", {"code": "栏目代码"}, table, "/ex/tzgg")

    assert slot.choices == [("通知公告", "tzgg"), ("本周活动", "bzhd")]


def test_chinese_values_in_backquotes_are_listed():
    listed = inline_values("分类, 可选 `交流`、`学习`、`项目`, 默认为全部")

    assert {v for _label, v in listed} == {"交流", "学习", "项目"}


def test_values_written_by_their_labels_where_the_example_writes_them_so():
    parameters = {
        "industry": {
            "options": [{"value": "0", "label": "企业"}, {"value": "4", "label": "宏观经济"}]
        }
    }
    [slot] = route_slots("/ex/:industry?", parameters, "", "/ex/企业")

    assert ("宏观经济", "宏观经济") in slot.choices


def test_a_json_object_written_out_fills_a_parameter_whose_example_is_one():
    [slot] = route_slots("/ex/:json?", {"json": "JSON body"}, "", "/ex/%7B%22a%22%3A1%7D")
    values: dict = {}
    query_fill([slot], 'flats for {"rooms": ["4"], "city": "Graz"} please', values, {})

    assert values == {"json": '{"rooms": ["4"], "city": "Graz"}'}


def test_hottest_names_the_hot_value():
    assert first_path("BAAI hub, community tag 55, its hottest posts") == "/baai/hub/55/readCnt"


def test_a_number_glued_to_the_kind_its_parameter_is_fills_it():
    assert first_path("智源社区 社群64 的帖子") == "/baai/hub/64"


def test_the_one_the_askers_follow_is_unnamed():
    assert subject_unnamed("a section of their site, the one our team reads")
    assert not subject_unnamed("the one and only official blog")


def test_the_start_of_the_platforms_name_run_together_is_no_subject():
    asked = question_read(
        "Barron's Chinese edition, their latest", platform_words=("barronschina",), excluded=()
    )

    assert "Barron" not in {e.value for e in asked.entities}


def test_some_work_left_unnamed_is_asked_for():
    assert subject_unnamed(zh_simplified("想搜某部動畫的新集數"))


def test_a_feed_its_path_names_beats_a_search_for_words_that_suit_the_search_poorly():
    assert first_path("hackerone hacktivity, newly disclosed bugs") == "/hackerone/hacktivity"


@pytest.mark.parametrize(
    "question", ["their discovery feed sorted by newest", "发现页按最新排的图片"]
)
def test_the_order_asked_for_names_a_value_said_in_passing(question):
    choices = [("热门", "hot"), ("推荐", "recommend"), ("最新", "recent")]

    assert option_named(question, choices, loose=False) == "recent"
    assert option_named("their discovery feed, the newest", choices, loose=False) is None


def test_a_path_of_many_segments_is_asked_for_as_a_path_not_owner_name():
    [slot] = route_slots("/ex/:path{.+}", {"path": "路径"}, "", "/ex/www/zwgk/zcjd/jd")
    [pair] = route_slots("/ex/:repo{.+}", {"repo": "Repository"}, "", "/ex/vercel/next.js")

    assert value_format(slot) == "a path as it appears in the site's address"
    assert value_format(pair) == "owner/name"
