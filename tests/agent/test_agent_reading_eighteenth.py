"""The eighteenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

from dataclasses import replace

import pytest

from agent.routes.documented import default_of
from agent.routes.enums import said_translated
from agent.routes.forms import forms_read
from agent.routes.listed import inline_values
from agent.routes.named import name_said, words_joined
from agent.routes.params import params_fill
from agent.routes.settings import _language_fill
from agent.routes.slots import route_slots
from agent.routes.unsaid import SubjectMissing
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db

CATEGORY = {"category": "分類\uff0c默認為新聞資訊"}
DAILY = {"days": "number of items to show (min = 1, max = 7, default = 1)", "style": "image style"}
STYLES = (
    "| `:style` | image style |\n| --- | --- |\n| original | Original size |\n"
    "| poster | Art poster |"
)


def _fill(template: str, parameters: dict, question: str, description: str = "") -> str:
    return params_fill(
        template=template,
        parameters=parameters,
        description=description,
        example="",
        question=question,
    ).path


@pytest.mark.parametrize(
    "question",
    [
        "我想訂閱有線新聞某個分類嘅新聞",
        "帮我把首页某个栏目做成RSS",
        "I'd like to follow one particular section of the site",
        "news from the category I follow",
    ],
)
def test_an_optional_section_the_asker_has_in_mind_unnamed_is_asked_for(question):
    with pytest.raises(SubjectMissing) as missing:
        _fill("/i-cable/news/:category?", CATEGORY, question)

    assert [slot.name for slot in missing.value.slots] == ["category"]


def test_a_section_no_one_has_in_mind_is_left_at_its_default():
    assert _fill("/i-cable/news/:category?", CATEGORY, "有線新聞最新消息") == "/i-cable/news"


def test_a_language_or_style_of_the_askers_own_is_asked_for():
    parameters = {"language": "Language, eng by default", **DAILY}
    with pytest.raises(SubjectMissing):
        _fill("/swissinfo/:language?", parameters, "the feed in my own language")
    with pytest.raises(SubjectMissing):
        _fill("/iciba/:days?/:style?", DAILY, "daily sentence in the image style I prefer", STYLES)


def test_a_default_written_with_an_equals_sign_is_the_default():
    assert default_of("days", DAILY["days"], "") == "1"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("the daily sentence for the last 7 days, with the art poster", "/iciba/7/poster"),
        ("每日一句\uff0c要最近3天的\uff0c图片用原图 original", "/iciba/3/original"),
        ("only today's sentence, picture in original size", "/iciba/1/original"),
        ("the daily sentence, 3月5日 onwards", "/iciba"),
    ],
)
def test_a_span_said_in_its_unit_fills_the_parameter_named_for_the_unit(question, path):
    assert _fill("/iciba/:days?/:style?", DAILY, question, STYLES) == path


def test_a_parameters_own_name_is_none_of_its_values():
    spec = {
        "column": "\u5185\u5bb9\u680f, \u9ed8\u8ba4\u4e3a `0`,"
        " \u5176\u4ed6\u53ef\u9009: `62073` (\u7cbe\u9009)"
        " \u3002\u6700\u540e\u7684 `column=0` \u5373\u4e3a`column` \u53c2\u6570"
    }
    [slot] = route_slots("/jumeili/home/:column?", spec, "", None)

    assert ("column", "column") not in slot.choices
    assert (
        _fill("/jumeili/home/:column?", spec, "the 精选 (featured) column please")
        == "/jumeili/home/62073"
    )


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("topic 40, but in Vietnamese pls", "/followin/topic/40/vi"),
        ("topic 40 的越南语版本", "/followin/topic/40/vi"),
    ],
)
def test_a_language_named_fills_a_language_parameter_by_its_code(question, path):
    spec = {"topicId": "Topic ID", "lang": "Language, `en` by default"}
    assert _fill("/followin/topic/:topicId/:lang?", spec, question) == path


def test_a_language_is_written_in_three_letters_where_the_default_is():
    spec = {"language": "Language, eng by default", "category": "Category"}
    assert (
        _fill("/swissinfo/:language?/:category?", spec, "瑞士资讯中文版的最新消息")
        == "/swissinfo/chi"
    )
    assert _fill("/swissinfo/:language?/:category?", spec, "the German edition") == "/swissinfo/ger"


def test_a_route_name_said_in_the_other_language_is_said_whole():
    assert said_translated("山东博物馆临时展览", "temporary exhibitions")
    assert not said_translated("山东博物馆最新消息", "temporary exhibitions")
    assert first_path("天津博物馆最近有什么临时展览") == "/tjbwg/exhibition"


def test_two_words_run_together_and_a_gerund_say_a_route_names_word():
    assert "hotlinks" in words_joined("plurk hot links feed")
    likes = ("Likes", (), "/cara/likes/:user")
    assert name_said(likes[0], "what loish has been liking", *likes[1:])[1] == 0  # all said
    assert name_said(likes[0], "what loish has been posting", *likes[1:])[1] == 1
    assert first_path("plurk hot links feed") == "/plurk/hotlinks"
    assert first_path("what loish has been liking on Cara lately (cara.app/loish)") == (
        "/cara/likes/loish"
    )


def test_a_language_named_chooses_the_listed_value_that_is_its_code():
    values: dict = {}
    slot = route_slots("/followin/:lang?", {"lang": "Language"}, "", None)[0]
    listed = replace(slot, choices=[("English", "en"), ("Ti\u1ebfng Vi\u1ec7t", "vi")])
    _language_fill([listed], "topic 40, but in Vietnamese pls", values, {})

    assert values == {"lang": "vi"}


def test_two_listed_values_of_one_language_are_none_chosen():
    values: dict = {}
    slot = route_slots("/followin/:lang?", {"lang": "Language"}, "", None)[0]
    listed = replace(slot, choices=[("\u7b80\u4f53", "zh-Hans"), ("\u7e41\u9ad4", "zh-Hant")])
    _language_fill([listed], "in Chinese please", values, {})

    assert values == {}


def test_an_app_id_names_no_language():
    assert first_path("Dota 2 announcements from Steam; the app id is 570.") == "/steam/news/570"


PUBLISH = {"category": "Category, can be found in URL"}
JWC = {"path": {"description": "\u8def\u5f84\u53c2\u6570", "default": "index/tzgg"}}


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "the page (publish/Models/GRAPES_EPS/African/850-hgt/index.html) please",
            "/wmc-bj/publish/Models/GRAPES_EPS/African/850-hgt/index.html",
        ),
        (
            "the chart at CRA-Reanalysis/2m-Temperature/index.html",
            "/wmc-bj/publish/CRA-Reanalysis/2m-Temperature/index.html",
        ),
        ("the charts of 2024/05/01", "/wmc-bj/publish"),
    ],
)
def test_a_path_written_out_fills_the_parameter_taking_the_rest_of_the_address(question, path):
    assert _fill("/wmc-bj/publish/:category{.+}?", PUBLISH, question) == path


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("cqu jwc rss for the section at path index/ksap", "/cqu/jwc/index/ksap"),
        ("cqu jwc, the index/ksap section", "/cqu/jwc/index/ksap"),
        ("cqu jwc notices, owner/repo style", "/cqu/jwc"),
    ],
)
def test_a_path_is_read_as_one_when_said_to_be_or_shaped_as_the_default(question, path):
    assert _fill("/cqu/jwc/:path{.+}?", JWC, question) == path


def test_a_numbered_item_naming_a_page_and_showing_its_route_labels_the_value():
    description = (
        "\u793a\u4f8b:\n\n1. \u65b0\u95fb\u5feb\u8baf\u9875\u9762\u7684\u94fe\u63a5\u4e2d"
        " `onList('03')`, \u5b8c\u6574\u8def\u7531\u4e3a `/buaa/jiaowu/03`;\n"
        "2. \u901a\u77e5\u516c\u544a > \u516c\u793a\u4e13\u533a\u9875\u9762\u7684\u94fe\u63a5"
        "\u4e2d `onList2('0203')`, \u5b8c\u6574\u8def\u7531\u4e3a `/buaa/jiaowu/0203`"
    )
    spec = {"cddm": "\u83dc\u5355\u4ee3\u7801, \u9ed8\u8ba4\u4e3a `02`"}
    question = (
        "\u5317\u822a\u6559\u52a1\u90e8\u7684\u300c\u65b0\u95fb\u5feb\u8baf\u300d\u680f\u76ee"
    )

    assert _fill("/buaa/jiaowu/:cddm?", spec, question, description) == "/buaa/jiaowu/03"


def test_a_platform_owning_what_follows_a_subject_marker_is_the_place_to_read():
    assert first_path("Show me the past 5 days of iciba's daily sentence") == "/iciba/5"
    assert first_path("Instagram posts of natgeo") == "/instagram/2/user/natgeo"


def test_corner_brackets_make_no_question_traditional():
    question = (
        "\u5317\u822a\u6559\u52a1\u90e8\u7f51\u7ad9\u4e0a\u7684\u300c\u65b0\u95fb\u5feb\u8baf\u300d"
    )
    assert first_path(question) == "/buaa/jiaowu/03"


@pytest.mark.parametrize(
    ("template", "spec", "example", "question", "path"),
    [
        ("/ceph/blog/:topic?", {"topic": "category"}, "a11y", "only the a11y category", "a11y"),
        (
            "/ddosi/category/:category?",
            {"category": "N"},
            "\u9ed1\u5ba2\u5de5\u5177",
            "ddosi \u9ed1\u5ba2\u5de5\u5177\u5206\u7c7b",
            "\u9ed1\u5ba2\u5de5\u5177",
        ),
        ("/ceph/blog/:topic?", {"topic": "category"}, "news", "ceph news please", None),
        ("/ceph/blog/:topic?", {"topic": "category"}, "a11y", "ceph a11ying", None),
    ],
)
def test_an_optional_value_its_example_shows_said_whole_is_taken(
    template, spec, example, question, path
):
    filled = params_fill(
        template=template,
        parameters=spec,
        description="",
        example=template.rsplit("/", 1)[0] + "/" + example,
        question=question,
    )
    assert list(filled.params.values()) == ([path] if path else [])


def test_a_row_struck_through_lists_no_value():
    description = (
        "| `:type` | type name |\n| --- | --- |\n| ~~multiple~~ | ~~Multiple~~ |\n"
        "| company | Company |\n| policy | Policy |\n"
    )
    [slot] = route_slots("/zhishifenzi/innovation/:type?", {"type": "type"}, description, None)

    assert [v for _label, v in slot.choices] == ["company", "policy"]


def test_values_with_bars_between_after_a_colon_are_listed():
    description = "Categories: all | desinfo | prebunking | investigaciones"
    example = "/maldita/updates/desinfo"
    [slot] = route_slots("/maldita/updates/:category?", {"category": "C"}, description, example)

    assert "investigaciones" in {v for _label, v in slot.choices}


KEYLOL = (
    "\u82e5\u8ba2\u9605 [\u70ed\u70b9\u805a\u7126](https://keylol.com/f161-1), "
    "\u6b64\u65f6\u8def\u7531\u4e3a [`/keylol/f161-1`](https://rsshub.app/keylol/f161-1)\u3002\n"
    "\u82e5\u8ba2\u9605\u5b50\u5206\u7c7b [\u8bd5\u73a9\u514d\u8d39 - \u70ed\u70b9\u805a\u7126]"
    "(https://keylol.com/forum.php?fid=161&typeid=459), \u6b64\u65f6\u8def\u7531\u4e3a "
    "[`/keylol/fid=161&typeid=459`](https://rsshub.app/keylol/fid=161&typeid=459)\u3002"
)


def test_lines_each_linking_a_page_and_showing_its_path_label_their_values():
    [slot] = route_slots("/keylol/:path", {"path": "\u8def\u5f84"}, KEYLOL, "/keylol/f161-1")

    assert ("\u70ed\u70b9\u805a\u7126", "f161-1") in slot.choices
    assert ("\u8bd5\u73a9\u514d\u8d39 \u70ed\u70b9\u805a\u7126", "fid=161&typeid=459") in (
        slot.choices
    )


@pytest.mark.parametrize(
    "question",
    [
        "Notify me when there are new threads in the keylol board I always hang out in",
        "\u5176\u4e50\u4e0a\u6211\u5e38\u901b\u7684\u90a3\u4e2a\u5206\u533a"
        "\u80fd\u51fa\u4e2a RSS \u5417",
    ],
)
def test_a_required_setting_the_asker_has_in_mind_is_asked_for_not_read_at_its_default(question):
    chosen, ctx = route(question)

    assert (chosen, ctx.paths) == (False, [])
    assert [n["parameter"] for n in ctx.needs] == ["path"]


def test_an_address_whose_path_is_chinese_is_read_whole():
    text, found = forms_read(
        "https://www.i-cable.com/category/\u65b0\u805e/\u6e2f\u805e \u53ef\u4ee5\u55ce"
    )

    assert ("quoted", "\u6e2f\u805e") in [(f.kind, f.value) for f in found]
    assert "i-cable" not in text


@pytest.mark.parametrize(
    ("spec", "example", "values"),
    [
        ("Topic: all | product | research | company", None, {"all", "product", "research"}),
        ("latest or all episodes.", "latest", {"latest", "all"}),
        ("latest or all episodes.", None, set()),  # two bare words, no example among them
    ],
)
def test_a_description_that_is_a_list_led_or_followed_by_what_it_lists(spec, example, values):
    found = {v for _label, v in inline_values(spec, example)}

    assert values <= found and (found or not values)


def test_a_table_of_a_querys_keys_offers_key_value_pairs():
    spec = (
        "Extra parameters, in the format of query string.\n\n| Key | Description | Accepts |"
        " Defaults to |\n| --- | --- | --- | --- |\n| `serpType` | Search type |"
        " `tags`/`default`/`recent` | `tags` |"
    )
    [_keyword, slot] = route_slots(
        "/threads/search/:keyword/:routeParams?", {"routeParams": spec}, "", None
    )

    assert ("recent", "serpType=recent") in slot.choices
    assert first_path(
        "the most recent Threads posts matching the search openai, sorted by recent"
    ) == ("/threads/search/openai/serpType=recent")


def test_a_count_of_things_is_no_ones_number():
    assert (
        first_path(
            "Is there a feed for the ABC\u5e97\u8217 restaurant rent benchmarks"
            " for Tokyo's 23 wards?"
        )
        == "/abc-tenpo/rent-benchmark"  # Tokyo, its one prefecture, is its default
    )


def test_a_particular_topic_unnamed_is_asked_for_and_a_preposition_is_no_value():
    chosen, ctx = route(
        "There's a topic page on ctinews I keep checking. Can you turn that particular topic "
        "into a feed?"
    )

    assert (chosen, [n["parameter"] for n in ctx.needs]) == (False, ["topic"])


def test_of_routes_needing_nothing_the_one_whose_listed_value_is_written_comes_first():
    question = (
        "podwise\u4e0a\u9762\u201c\u6700\u65b0\u201d\u90a3\u4e2a\u5355\u96c6\u5217\u8868 (latest)"
    )
    assert first_path(question) == "/podwise/explore/latest"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "\u91d1\u8272\u8d22\u7ecf\u5feb\u8baf\u91cc\u53ea\u770b NFT \u5206\u7c7b\u7684",
            "/jinse/lives/4",
        ),
        ("\u91d1\u8272\u8d22\u7ecf\u9996\u9875\u7684NFT\u680f\u76ee", "/jinse/timeline/NFT"),
    ],
)
def test_a_route_named_with_a_value_said_beats_one_with_the_value_alone(question, path):
    assert first_path(question) == path
