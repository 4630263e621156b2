"""The twelfth pass of issue 29's reading rules: values a description lists bare, each with its
label in parentheses ("base (常设展览) or temp (临时展览)"); the places a question names fill the
parameters that take a province, a city or a district; a page address shaped as one a route's
description shows (a search's ``?s=new+yorker``) maps that route. Against the real catalog
snapshot where a route is named, offline."""

from urllib.parse import unquote

import pytest

from agent.question import rewrite_offline
from agent.reading import question_reading
from agent.routes.enums import option_named
from agent.routes.fit import route_fill
from agent.routes.listed import inline_values
from agent.routes.places import place_fill
from agent.routes.slots import route_slots
from agent.routes.tables import table_blocks
from agent.summary.subject import context_words_load
from catalog.abbreviations import said_initials, short_names
from catalog.models import Route
from catalog.search_fields import script_parts
from catalog.segment import zh_function_words, zh_places
from fetching.radar import radar_hits
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


def test_values_listed_bare_keep_their_labels():
    said = "Exhibition type, supported values: base (常设展览) or temp (临时展览), default is all."

    assert inline_values(said) == [
        ("base", "base"),
        ("temp", "temp"),
        ("常设展览", "base"),
        ("临时展览", "temp"),
    ]


def test_a_default_said_after_bare_values_is_no_value():
    said = (
        "values: review (展览回顾) | forecast (展览预告). Default: Current Exhibitions (正在展出)."
    )

    assert [value for _label, value in inline_values(said)] == ["review", "forecast"] * 2


def test_a_value_named_before_the_list_is_not_one_of_it():
    said = (
        "subtype only works under type lszl\uff08临时展览\uff09, supported values: "
        "zdzt\uff08重大主题\uff09、lswh\uff08历史文化\uff09"
    )

    assert {value for _label, value in inline_values(said)} == {"zdzt", "lswh"}


def test_one_bare_value_with_a_label_is_no_list():
    assert inline_values("The user id (a number)") == []


def test_a_label_listed_bare_chooses_its_value():
    assert first_path("四川博物院的常设展览有更新的话提醒我") == "/scmuseum/exhibition/base"


def test_the_segmenter_tells_places_from_other_words():
    assert zh_places("帮我订阅浙江省杭州市的黄色预警信息") == ["浙江省", "杭州市"]
    assert zh_places("黄色预警信息") == []
    assert zh_places("Hangzhou weather") == []


CNEB = "/yjxx/:level?/:province?/:city?"
CNEB_PARAMETERS = {
    "level": "灾害级别",
    "province": "省份, 默认为空, 即全国",
    "city": "城市, 默认为空",
}


def _places(text: str, parameters: dict = CNEB_PARAMETERS, template: str = CNEB) -> dict:
    slots = route_slots(template, parameters, "", "")
    values: dict[str, str] = {}
    place_fill(slots, text, set(), values, {})
    return values


def test_a_province_and_a_city_go_to_their_parameters():
    assert _places("杭州市和浙江省的预警") == {"province": "浙江省", "city": "杭州市"}


def test_a_place_without_a_kind_goes_to_the_first_place_parameter():
    assert _places("湖北武汉的疫情") == {"province": "湖北", "city": "武汉"}


def test_a_parameter_with_a_latin_example_takes_no_chinese_place():
    parameters = {"province": "省, 拼音缩写", "city": "市"}
    slots = route_slots("/:province/:city", parameters, "", "/hb1/wh")
    values: dict[str, str] = {}

    place_fill(slots, "湖北武汉的土地信息", set(), values, {})

    assert values == {}


def test_a_parameter_for_something_else_takes_no_place():
    assert _places("北京的新闻", {"level": "级别"}, "/:level?") == {}


def test_a_question_naming_places_reads_them_on_the_route():
    path = first_path("帮我订阅浙江省杭州市的黄色预警信息")

    assert path == "/cneb/yjxx/黄色/浙江省/杭州市"


def test_a_search_page_the_description_shows_maps_the_route():
    hits = radar_hits("feed of https://magazinelib.com/?s=national+geographic please")

    assert [unquote(h.path) for h in hits] == ["/magazinelib/latest-magazine/national+geographic"]


@pytest.mark.parametrize(
    ("page", "path"),
    [
        (
            "https://www.webtoons.com/en/fantasy/tower-of-god/list?title_no=95",
            "/webtoons/en/fantasy/tower-of-god/95",
        ),
        (
            "webtoons.com/zh-hant/drama/gongzhuweimian/list?title_no=894",
            "/webtoons/zh-hant/drama/gongzhuweimian/894",
        ),
    ],
)
def test_a_page_shaped_as_the_description_shows_gives_the_values(page, path):
    assert [h.path for h in radar_hits(f"有更新吗 {page}")] == [path]


def test_a_page_of_the_site_shaped_otherwise_maps_nothing():
    assert radar_hits("https://www.webtoons.com/en/fantasy/tower-of-god/list") == []
    assert radar_hits("https://magazinelib.com/?p=123&s=") == []


def test_a_page_address_with_a_search_names_its_platform_first():
    question = (
        "I searched MagazineLib and ended up at https://magazinelib.com/?s=national+geographic"
        " — can I get a feed of new issues from that search?"
    )

    assert first_path(question) == "/magazinelib/latest-magazine/national+geographic"


def test_a_table_value_of_two_segments_is_a_value():
    table = "\n".join(
        [
            "| 节目名称 | 节目 id |",
            "| --- | --- |",
            "| 山东新闻联播 | sdws/sdxwlb |",
            "| 生活帮 | shpd/shb |",
        ]
    )

    assert table_blocks(table) == [[("山东新闻联播", "sdws/sdxwlb"), ("生活帮", "shpd/shb")]]


def test_a_programme_named_by_its_label_reads_its_id_of_segments():
    assert first_path("帮我订阅齐鲁网的《生活帮》节目") == "/iqilu/v/shpd/shb"


def test_the_value_standing_for_the_route_gives_way_to_another_named():
    question = "Does McKinsey's China site have a feed just for their automotive insights?"

    assert first_path(question) == "/mckinsey/cn/autos"
    assert first_path("McKinsey China insights") == "/mckinsey/cn/insights"


def test_a_webtoon_the_asker_reads_is_asked_for_not_searched():
    question = "I keep forgetting to check the Naver webtoon I'm reading. Set up a feed for it?"
    _chosen, ctx = route(question)

    assert not ctx.paths
    assert [need["parameter"] for need in ctx.needs] == ["id"]


def test_a_body_is_named_without_the_state_prefix():
    assert "海关总署" in short_names("中华人民共和国海关总署")
    assert "图书馆" not in short_names("国家图书馆")  # any library's name
    assert short_names("海关总署") == set()  # no prefix: the name itself


def test_a_body_named_without_its_prefix_is_its_platform():
    _chosen, ctx = route("想及时看到海关总署新发布的海关法规")

    assert ctx.platforms[:1] == ["gov/customs"]


def test_a_site_host_said_alone_names_its_platform():
    question = "Discord keeps dying. Can I get a feed from outage.report once 10 people report it?"
    _chosen, ctx = route(question)

    assert ctx.platforms == ["outagereport"]


def test_a_row_header_naming_the_parameter_is_no_value():
    assert first_path("I'm practicing my Russian: a feed of KCNA's Russian-language news?") == (
        "/kcna/ru"
    )


def test_a_described_page_gives_a_rest_parameter_its_segments():
    hits = radar_hits("帮我订阅这个页面: https://dongke.yangtzeu.edu.cn/zsjy/jyxx.htm")

    assert [h.path for h in hits] == ["/yangtzeu/dongke/zsjy/jyxx"]


def test_a_label_said_only_inside_the_platform_name_names_nothing():
    assert first_path("中国作家网的科幻栏目") == "/chinawriter/404078"
    assert first_path("Subscribe me to new issues of Qiushi Journal (求是) on qstheory.cn") == (
        "/qstheory/magazine/qs"
    )


def test_labels_and_questions_compare_across_chinese_scripts():
    weeks = [("本日", "hot/today"), ("本週", "hot/week"), ("本月", "hot/month")]

    assert option_named("这周最多人看的", weeks, loose=False) == "hot/week"
    assert option_named("這禮拜的", weeks, loose=False) == "hot/week"


def test_a_name_in_two_scripts_is_said_by_either_part():
    assert script_parts("The News Lens 關鍵評論") == ["The News Lens", "關鍵評論"]
    assert script_parts("Futubull 富途牛牛") == ["Futubull", "富途牛牛"]
    assert script_parts("中島みゆき Official") == ["中島みゆき"]  # a common word names no one
    assert script_parts("纷享销客 CRM") == []  # three capitals: too short a name


@pytest.mark.parametrize(
    "question", ["關鍵評論網這禮拜被看最多的文章, 想用 RSS 追", "关键评论网这礼拜被看最多的文章"]
)
def test_a_traditional_site_read_in_either_script_narrows_its_value(question):
    # 被看最多 names hot (最多觀看), 這禮拜 the narrower hot/week (本週); the site's name asks
    # for no 评论 (its review route), and RSS is no author's id
    assert first_path(question) == "/thenewslens/latest-article/hot/week"


RECALLS = "\n".join(
    [
        "| 类型中文 | 召回类型 ID1 | 召回类型 ID2 |",
        "| --- | --- | --- |",
        "| 消费品召回 | xfpzh | xfpgnzh |",
        "| 汽车召回 | qczh | gnzhqc |",
    ]
)


def test_a_table_of_two_value_columns_lists_each_parameter_its_own():
    slots = route_slots(
        "/samrdprc/news/:type1/:type2",
        {"type1": "召回类型ID1, 见下表", "type2": "召回类型ID2, 见下表"},
        RECALLS,
        "/samrdprc/news/xfpzh/xfpgnzh",
    )

    assert {s.name: [v for _label, v in s.choices if _label == "汽车召回"] for s in slots} == {
        "type1": ["qczh"],
        "type2": ["gnzhqc"],
    }


def test_a_row_named_by_its_label_fills_both_its_values():
    path = first_path("市场监管总局缺陷产品管理中心最新的汽车召回信息")

    assert path == "/samrdprc/news/qczh/gnzhqc"


def _topic_terms(question: str, namespace: str, template: str, path: str) -> tuple[str, ...]:
    read = Route.objects.get(path=template)
    words = context_words_load(namespaces={namespace}, route_ids={read.pk}, paths=[(path, read.pk)])
    return question_reading(question, rewrite_offline(question)).topic(words).terms


@pytest.mark.parametrize(
    "question, namespace, template, path",
    [
        ("工信部最近在征求哪些意见?", "gov/miit", "/gov/miit/zcjd", "/gov/miit/zcjd"),
        ("上海东方艺术中心近期的演出安排", "shoac", "/shoac/recent-show", "/shoac/recent-show"),
        ("I'd like to keep up with Cohere's blog without checking the site, can you set that up?",
         "cohere", "/cohere/blog", "/cohere/blog"),
        ("War Thunder official news: patches, events, all of it", "warthunder",
         "/warthunder/news", "/warthunder/news"),
    ],
)  # fmt: skip
def test_verbs_and_function_words_of_asking_are_no_topic(question, namespace, template, path):
    terms = _topic_terms(question, namespace, template, path)

    assert not {"征求", "安排", "without", "checking", "set", "all", "it"} & set(terms)


def test_a_name_the_segmenter_does_not_know_stays_a_topic():
    terms = _topic_terms(
        "华尔街见闻美股快讯里有英伟达的消息吗",
        "wallstreetcn",
        "/wallstreetcn/live/:category?/:score?",
        "/wallstreetcn/live/us-stock",
    )

    assert "英伟达" in terms


def test_the_segmenter_tags_function_words_of_two_characters():
    assert zh_function_words("工信部最近在征求哪些意见") >= {"征求", "哪些"}
    assert "英伟达" not in "".join(zh_function_words("有没有英伟达的消息"))


@pytest.mark.parametrize(
    ("text", "initials"),
    [
        ("a student at Zhejiang University's software school", {"zju"}),
        ("Shanghai Jiao Tong University news", {"sjtu", "shjtu"}),
        ("Harbin Institute of Technology", {"hit"}),
        ("The News Lens", set()),  # two letters left: too short to spell an address
        ("zhejiang university", set()),  # said in lower case: no name
    ],
)
def test_a_name_said_gives_its_initials_pinyin_by_syllable(text, initials):
    assert said_initials(text) == initials


def test_a_university_named_in_english_is_the_platform_its_initials_address():
    question = "I'm a student at Zhejiang University's software school; I need its notices."
    _chosen, ctx = route(question)

    assert ctx.platforms == ["zju"]


BOOKS = [("每日一图", "32"), ("每周一书", "33"), ("实验室 TV", "476")]


def test_a_label_said_in_order_with_words_between_names_its_value():
    assert option_named("每周推荐一本书的话题", BOOKS, loose=True) == "33"
    assert option_named("每天一张图", BOOKS, loose=True) is None  # 每日 is not said


def test_a_label_said_only_as_the_site_name_names_nothing():
    topic = Route.objects.get(path="/toodaylab/topic/:id")

    assert route_fill(topic, "理想生活实验室每周推荐一本书的话题").path == "/toodaylab/topic/33"


def test_a_range_said_by_its_ends_lists_its_values_when_the_example_is_one():
    assert [v for _label, v in inline_values("等级, n1~n6, 为空默认全部", "n1")] == [
        "n1", "n2", "n3", "n4", "n5", "n6",
    ]  # fmt: skip
    assert inline_values("等级, n1~n6", None) == []  # no example to vouch for it
    assert inline_values("Page 1-50", "1") == []  # too many to be a list


def test_a_description_that_is_a_list_alone_lists_values_its_example_takes():
    assert inline_values("top 或 newest", "newest") == [("top", "top"), ("newest", "newest")]
    assert inline_values("userpath or teampath", "hackmd") == []  # kinds of value, not values


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("I'm studying for the JLPT N3: a feed of just the N3-level stories from Yomujp?",
         "/yomujp/n3"),
        ("The hottest threads on the LoongArch LA UOSC forum? Not the newest, the top ones.",
         "/loongarch/post/top"),
        ("new notes from jserv on HackMD", "/hackmd/profile/jserv"),
    ],
)  # fmt: skip
def test_values_a_range_or_a_bare_list_gives_are_read(question, path):
    assert first_path(question) == path


def test_the_one_value_a_parameter_supports_is_its_value():
    assert inline_values("频道, 仅支持 `xsdt`") == [("xsdt", "xsdt")]
    assert inline_values("Region, only `global` is supported") == [("global", "global")]
    assert inline_values("the user's id, like `diygod`") == []  # an example, not the one value


def test_a_required_setting_of_one_value_takes_it():
    question = "想盯着 CCF 计算机视觉专委会学术动态里的热点征文, 有新的征稿就提醒我"

    assert first_path(question) == "/ccf/ccfcv/xsdt/rdzw"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("Indian Express India section feed", "/indianexpress/section/india"),
        ("the Politics section of Indian Express", "/indianexpress/section/politics"),
    ],
)
def test_a_word_before_the_kind_the_route_is_named_for_is_its_value(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    "question",
    [
        "the section I like on Indian Express",
        "There's a guy whose Twitter threads I always read on Rattibha, can I subscribe to him?",
        "I'd like to follow the events of a web3 community I joined on QuestN.",
    ],
)
def test_no_word_before_a_kind_is_taken_where_no_one_is_named(question):
    _chosen, ctx = route(question)

    assert not ctx.paths and ctx.needs
