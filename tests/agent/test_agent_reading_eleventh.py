"""The eleventh pass of issue 29's reading rules: what the question says it does not want
("not every press release", 不要热门的) names no value; an id numbered in its example
(id408709785) never takes a word; among routes needing no subject, the one standing for the
longest thing the question says whole (its name, or a value's label it lists) is read; a page
that no Radar rule maps is read on the site's route whose own path it matches; what a search is
called is no part of it; a name led by an article is said without it, and an article run into
the next word (the paper) spells a one-word name only weakly.
Against the real catalog snapshot where a route is named, offline."""

import pytest

from agent.question import rewrite_offline
from agent.reading import question_reading
from agent.routes.enums import label_said, option_named
from agent.routes.fit import route_fill
from agent.routes.listed import inline_values
from agent.routes.slots import route_slots
from agent.routes.tables import table_blocks
from agent.routes.unsaid import SubjectMissing
from agent.summary.subject import context_words_load
from catalog.models import Route
from catalog.search import platforms_named
from fetching.radar import radar_hits
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db

KINDS = [("Press Releases", "all"), ("Readouts", "readouts"), ("Testimonies", "testimonies")]


@pytest.mark.parametrize(
    "question",
    [
        "Just the testimonies please, not the press releases",
        "testimonies rather than press releases",
        "I don't want press releases. Testimonies only",
    ],
)
def test_a_value_the_question_turns_down_is_not_named(question):
    assert option_named(question, KINDS, loose=False) == "testimonies"


def test_a_value_turned_down_in_chinese_is_not_named():
    kinds = [("热门", "hot"), ("最新", "new"), ("精华", "digest")]

    assert option_named("不要热门的, 给我看精华帖", kinds, loose=False) == "digest"
    assert option_named("要不要看看热门的", kinds, loose=False) == "hot"


def test_a_value_that_is_taken_as_well_stays_named():
    assert option_named("not just the readouts", KINDS, loose=False) == "readouts"


def test_the_route_reads_the_kind_asked_for_not_the_one_turned_down():
    question = "Treasury statements and remarks, not the general press releases"

    assert first_path(question) == "/treasury/press-releases/statements-remarks"


def test_an_id_numbered_in_its_example_never_takes_a_word():
    app = Route.objects.get(path="/apple/apps/update/:country/:id/:platform?")

    with pytest.raises(SubjectMissing):
        route_fill(app, "App Store updates for the Apple TV app on tvOS")
    assert route_fill(app, "App Store updates of id1232780281").path.startswith(
        "/apple/apps/update/us/id1232780281"
    )


def test_a_word_that_fits_no_id_leaves_the_route_whose_setting_it_names():
    assert first_path("Any new Infuse release notes for tvOS on my Apple TV?") == "/firecore/tvos"


GROUPS = [("YYeTs 字幕组", "14"), ("F.I.X 字幕侠", "28"), ("深影字幕组", "2")]


def test_a_label_said_whole_counts_its_length():
    assert label_said("SubHD 上 F.I.X 字幕侠的字幕", GROUPS, "28") == len("F.I.X字幕侠")
    assert label_said("深影的字幕", GROUPS, "2") == 0  # 字幕组 not said: in part only
    assert label_said("不要深影字幕组的", GROUPS, "2") == 0  # turned down


def test_a_label_inside_what_the_items_are_searched_for_chooses_no_feed():
    metals = [("黄金", "2"), ("白银", "3")]

    assert label_said("快讯里和白银相关的消息", metals, "3") == 0
    assert label_said("news about gold", [("Gold", "2")], "2") == 0
    assert label_said("白银分类的新闻", metals, "3") == 2


@pytest.mark.parametrize(
    ("question", "path"),
    [
        # a group the route lists, said whole, over the route named 字幕
        ("SubHD 深影字幕组最近出的字幕", "/subhd/zu/2"),
        # 的 between the parts of a route's name
        ("北京大学生命科学学院的通知公告有哪些", "/pku/cls/announcement"),
        # the feed named (快讯), the metal looked for in it
        ("金十数据快讯里和白银相关的消息", "/jin10"),
        ("金十数据白银分类的新闻", "/jin10/category/3"),
    ],
)
def test_the_route_standing_for_the_longest_thing_said_whole_is_read(question, path):
    assert first_path(question) == path


def test_a_page_no_rule_maps_is_read_on_the_route_whose_path_it_matches():
    hits = radar_hits("订阅 https://www.cnblogs.com/cate/java/ 这个分类")

    assert [(h.namespace, h.path) for h in hits] == [("cnblogs", "/cnblogs/cate/java")]
    assert first_path("博客园 Java 分类 https://www.cnblogs.com/cate/java/") == "/cnblogs/cate/java"


def test_a_route_taking_a_whole_page_path_takes_it_without_its_page_extension():
    question = "深圳油价 http://www.qiyoujiage.com/guangdong/shenzhen.shtml"

    assert first_path(question) == "/qiyoujiage/guangdong/shenzhen"


def test_a_route_path_of_parameters_alone_takes_no_page():
    # greasyfork's /:language/:domain? would take any two segments; its rules map none of these
    assert radar_hits("https://greasyfork.org/zh-CN/users") == []


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("INSPIRE literature matching the search term gravitational waves", "gravitational waves"),
        ("INSPIRE literature search with keyword axion", "axion"),
    ],
)
def test_what_a_search_is_called_is_no_part_of_what_it_looks_for(question, path):
    assert first_path(question) == f"/inspirehep/literature/{path}"


def test_a_name_led_by_an_article_is_said_without_it():
    assert dict(platforms_named("Guardian editorials this week")).keys() == {"theguardian"}
    assert first_path("Guardian editorials this week") == "/theguardian/editorial"


def test_an_article_run_into_the_next_word_is_a_weak_name():
    weak = dict(platforms_named("what does the paper say today"))["thepaper"]
    strong = dict(platforms_named("thepaper 头条"))["thepaper"]

    assert weak <= strong / 4, "'the paper' spelt thepaper as strongly as its own name"


def test_a_searched_phrase_runs_on_only_as_the_question_says_it_in_a_row():
    question = "new releases tagged lofi on bandcamp? (bandcamp.com/discover/lofi)"

    assert first_path(question) == "/bandcamp/tag/lofi"
    assert first_path("bandcamp releases tagged dark ambient") == "/bandcamp/tag/dark ambient"


def test_a_brand_is_named_in_either_language():
    channels = [("iphone 之家", "iphone"), ("android 之家", "android"), ("win11 之家", "win11")]

    assert option_named("安卓频道的新闻", channels, loose=True) == "android"


def test_a_lone_parameter_documented_under_another_name_keeps_its_values():
    stcn = Route.objects.get(path="/stcn/article/list/:id?")

    (slot,) = route_slots(stcn.path, stcn.parameters, stcn.description, stcn.example)

    assert ("新三板", "xsb") in slot.choices and len(slot.choices) == 11
    assert first_path("证券时报网新三板栏目的文章") == "/stcn/article/list/xsb"


SIDE_BY_SIDE = """`type` is as follows:

| Kind          | Value         | Kind         | Value        |
| ------------- | ------------- | ------------ | ------------ |
| Local News    | local-news    | Business     | business     |
| Entertainment | entertainment |              |              |
"""


def test_two_lists_side_by_side_are_one_list():
    assert table_blocks(SIDE_BY_SIDE) == [
        [("Local News", "local-news"), ("Business", "business"), ("Entertainment", "entertainment")]
    ]
    assert first_path("Kelowna Capital News opinion pieces") == "/kelownacapnews/opinion"


def test_a_table_goes_to_the_parameter_its_caption_names_most():
    digitaling = Route.objects.get(path="/digitaling/articles/:category/:subcate?")

    category, subcate = route_slots(
        digitaling.path, digitaling.parameters, digitaling.description, digitaling.example
    )

    assert ("近期最多赞", "zan") in subcate.choices
    assert ("近期最多赞", "zan") not in category.choices
    assert first_path("数英网热文里近期最多赞的文章") == "/digitaling/articles/hot/zan"


def test_a_value_said_to_stand_for_a_label_is_named_by_it():
    assert ("红旗文稿", "hqwglist") in inline_values("刊物, `qs` 为求是, `hqwglist` 为红旗文稿")
    assert ("热门", "hot") in inline_values("`new` 表示最新, `hot` 代表热门")
    assert first_path("红旗文稿最新一期") == "/qstheory/magazine/hqwglist"


@pytest.mark.parametrize(
    "question, namespace, template, path",
    [
        ("What's playing at the Coolidge Corner Theatre this week?", "coolidge",
         "/coolidge/film-guide", "/coolidge/film-guide"),
        ("不良林的博客有新文章吗", "bulianglin", "/bulianglin", "/bulianglin"),
        # a platform's short name, and a kind of feed asked for
        ("中新网今天的新闻", "chinanews", "/chinanews", "/chinanews"),
        ("工信部最近的政策解读", "gov/miit", "/gov/miit/zcjd", "/gov/miit/zcjd"),
        ("Any new WizTree release? Its changelog please", "diskanalyzer",
         "/diskanalyzer/whats-new", "/diskanalyzer/whats-new"),
    ],
)  # fmt: skip
def test_what_names_the_source_or_its_kind_of_feed_is_no_topic(question, namespace, template, path):
    read = Route.objects.get(path=template)
    words = context_words_load(namespaces={namespace}, route_ids={read.pk}, paths=[(path, read.pk)])

    assert question_reading(question, rewrite_offline(question)).topic(words).terms == ()


def test_a_plural_of_an_ing_word_is_its_word_and_coins_are_crypto():
    kinds = [("New Cryptocurrency Listing", "crypto"), ("New Fiat Listings", "fiat")]
    locales = [("Japanese", "ja"), ("English", "en")]

    assert option_named("Binance new coin listings", kinds, loose=False) == "crypto"
    assert option_named("币安上新币的公告", kinds, loose=False) == "crypto"
    assert option_named("Japan Post parcel, English results", locales, loose=False) == "en"


def test_a_table_of_a_header_alone_lists_values_that_are_their_own_labels():
    assert table_blocks("| 论文 | 时评 | 随笔 |\n| ---- | ---- | ---- |\n") == [
        [("论文", "论文"), ("时评", "时评"), ("随笔", "随笔")]
    ]
    columns = Route.objects.get(path="/aisixiang/thinktank/:id/:type?")

    fill = route_fill(columns, "爱思想 WuQine 专栏的随笔")

    assert fill.path == "/aisixiang/thinktank/WuQine/%E9%9A%8F%E7%AC%94"


def test_a_page_keeps_the_settings_the_question_names_that_it_does_not_give():
    question = "吴乞呃的专栏 aisixiang.com/thinktank/WuQine.html 有新随笔吗"

    assert first_path(question) == "/aisixiang/thinktank/WuQine/随笔"
    assert first_path("aisixiang.com/thinktank/WuQine.html 有什么新文章") == (
        "/aisixiang/thinktank/WuQine"
    )


@pytest.mark.parametrize(
    ("question", "parameter"),
    [
        ("Subscribe me to the gwern.net section my friend keeps quoting", "category"),
        ("QNAP release notes for the system our NAS runs", "id"),
    ],
)
def test_a_setting_the_askers_clause_says_which_is_asked_for_not_its_example(question, parameter):
    chosen, ctx = route(question)

    assert (chosen, ctx.paths) == (False, []), "the catalog's example is not the one meant"
    assert [n["parameter"] for n in ctx.needs] == [parameter]


def test_a_switch_takes_no_ones_name():
    today = Route.objects.get(path="/163/today/:need_content?")

    (slot,) = route_slots(today.path, today.parameters, today.description, today.example)

    assert slot.subject is False
    assert route_fill(today, "网易今日有个用户发帖挺有意思").path == "/163/today"
