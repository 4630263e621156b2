"""The fifteenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.entities import question_read
from agent.routes.enums import option_named
from agent.routes.listed import inline_values
from agent.routes.slots import route_slots
from fetching.radar import page_addresses, radar_hits
from tests.agent.test_agent_reading_thirteenth import _topic_terms
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db

SHOWN_PAGES = """若订阅 [要闻 - 最新](https://news.example.cn/tag/要闻/sort-new), 网址为
`https://news.example.cn/tag/要闻/sort-new`, 此时路由为 [`/ex/tag/要闻/sort-new`](https://rsshub.app/ex/tag/要闻/sort-new)。

若订阅 [本地 - 热门](https://news.example.cn/tag/本地/sort-hot), 路由为 [`/ex/tag/本地/sort-hot`](https://rsshub.app/ex/tag/本地/sort-hot)。"""

ONE_SHOWN_PAGE = """如 [Example Update History](https://ex.example/en) 的路由为 [`/ex/en`](https://rsshub.app/ex/en)"""

TWO_TABLES_ONE_LABEL = """新闻

| 要闻 | 通知公告 |
| ---- | -------- |
| yw   | tzgg     |

科学部

| 工作动态 | 通知公告 |
| -------- | -------- |
| kxb-gzdt | kxb-tzgg |"""


def test_a_page_address_keeps_a_whole_segment_of_chinese_letters():
    [address] = page_addresses("a feed for https://www.example.com.tw/news/tag/限時免費 please")

    assert address.segments == ("news", "tag", "限時免費")


def test_chinese_right_after_an_address_is_still_no_part_of_it():
    [address] = page_addresses("https://space.bilibili.com/2267573的投稿")

    assert address.segments == ("2267573",)


def test_a_latin_name_a_chinese_function_word_leads_is_read_without_it():
    asked = question_read("品玩上ChinaJoy这个话题", platform_words=("品玩",), excluded=())

    assert "ChinaJoy" in [e.value for e in asked.entities]
    assert not any("上" in e.value for e in asked.entities)


def test_a_latin_name_with_chinese_of_its_own_stays_whole():
    asked = question_read("关注小米SU7这个话题", platform_words=(), excluded=())

    assert "小米SU7" in [e.value for e in asked.entities]


def test_the_pages_a_description_shows_label_the_rest_of_the_path():
    [slot] = route_slots("/ex/:path{.+}?", {"path": "路径, 默认为首页"}, SHOWN_PAGES, "/ex")

    assert slot.choices == [("要闻 最新", "tag/要闻/sort-new"), ("本地 热门", "tag/本地/sort-hot")]
    assert not slot.subject


def test_one_page_shown_under_the_routes_own_name_labels_no_value():
    [slot] = route_slots("/ex/:lang?", {"lang": "Language"}, ONE_SHOWN_PAGE, "/ex")

    assert slot.choices == []


def test_a_label_two_tables_give_is_labelled_with_each_tables_caption_too():
    [slot] = route_slots("/ex/:path?", {"path": "路径, 见下表"}, TWO_TABLES_ONE_LABEL, "/ex")

    assert ("科学部 通知公告", "kxb-tzgg") in slot.choices
    assert ("新闻 通知公告", "tzgg") in slot.choices
    assert ("科学部 要闻", "yw") not in slot.choices  # a label of one table keeps its own


def test_a_paragraph_before_a_table_is_no_caption_naming_its_parameter():
    tip = (
        "若想获得 tid, 可以到对应科室页面 URL 中寻找 `t_id` 字段的值, "
        "如 `s_id` 对应 `sid` 的值为 5, `t_id` 对应 `tid` 的值为 277, "
        "所以可以得到路由 `/ex/5/277`, 其余的科室也是一样的方法"
    )
    table = "| 心血管 | 内分泌 |\n| --- | --- |\n| 2 | 6 |"
    sid, tid = route_slots(
        "/ex/:sid?/:tid?", {"sid": "科室, 见下表", "tid": "亚专业"}, f"{tip}\n\n{table}", "/ex"
    )

    assert sid.choices == [("心血管", "2"), ("内分泌", "6")]
    assert tid.choices == []


def test_labels_before_their_values_after_colons_are_listed():
    assert inline_values("标签, 所有:all;最新:topicList;热门:jhcpb") == [
        ("all", "all"),
        ("topicList", "topicList"),
        ("jhcpb", "jhcpb"),
        ("所有", "all"),
        ("最新", "topicList"),
        ("热门", "jhcpb"),
    ]


def test_a_query_a_description_shows_as_a_value_is_read_whole():
    hits = radar_hits("https://www.bookwalker.com.tw/search?order=sell_desc&s=20")

    assert [hit.path for hit in hits] == ["/bookwalker/search/order=sell_desc&s=20"]


def test_a_page_whose_route_leads_with_www_takes_it():
    hits = radar_hits("http://www.huazhou.gov.cn/xwdt/gzdt/")

    assert [hit.path for hit in hits] == ["/gov/huazhou/www/xwdt/gzdt"]


def test_a_parameter_documented_as_in_the_url_takes_the_pages_segment_of_its_shape():
    hits = radar_hits("https://pubsonline.informs.org/journal/opre")

    assert [hit.path for hit in hits] == ["/informs/opre"]


def test_a_page_of_another_shape_gives_that_parameter_nothing():
    assert radar_hits("https://pubsonline.informs.org/doi/10.1287") == []


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("财新 经济 栏目里的监管新闻", "/caixin/economy/regulation"),
        ("Caixin's finance coverage, only the market news", "/caixin/finance/market"),
        ("bad.news 每日热点 最新的帖子", "/bad/tag/每日热点/sort-new"),
        ("梅斯医学 肿瘤 NSCLC 亚专业的新文章", "/medsci/5/277"),
        ("国家自然科学基金委 管理科学部 工作动态", "/gov/nsfc/glkxb-gzdt"),
        ("游戏星辰 PS4 游戏区的热门帖", "/2023game/ps4/jhcpb"),
    ],
)
def test_questions_of_the_fifteenth_pass_read_their_paths(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    ("question", "namespace", "template"),
    [
        ("台灣角川的角編新聞台能用RSS訂閱嗎", "kadokawa", "/kadokawa/blog"),
        ("can I get the bytes.dev newsletter as a feed?", "bytes", "/bytes"),
        (
            "any podcast episodes or blog posts from Digital Camera World?",
            "digitalcameraworld",
            "/digitalcameraworld/news",
        ),
    ],
)
def test_a_latin_filler_word_among_chinese_and_a_kind_of_feed_are_no_topic(
    question, namespace, template
):
    assert _topic_terms(question, namespace, template) == ()


def test_a_latin_name_among_chinese_is_still_a_topic():
    terms = _topic_terms("台灣角川最近有 Vtuber 的新聞嗎", "kadokawa", "/kadokawa/blog")

    assert "Vtuber" in terms


def test_a_table_of_route_paths_lists_the_values_they_give():
    table = (
        "| Category | URL |\n| --- | --- |\n"
        "| All | [/show](https://rsshub.app/ex/show) |\n"
        "| Weekly Roundup | [/show/weekly-roundup](https://rsshub.app/ex/show/weekly-roundup) |\n"
        "| Late Night | [/show/late-night](https://rsshub.app/ex/show/late-night) |"
    )
    [slot] = route_slots("/ex/show/:name?", {"name": "Show, see below"}, table, "/ex/show")

    assert slot.choices == [("Weekly Roundup", "weekly-roundup"), ("Late Night", "late-night")]


def test_values_said_with_and_or_labelled_for_or_as_are_listed():
    assert inline_values("语言, 可选 CN 和 EN") == [("CN", "CN"), ("EN", "EN")]
    assert ("Hong Kong English", "en-hk") in inline_values(
        "Language, `zh` for China Mainland Chinese, `en-hk` for Hong Kong English"
    )
    assert ("Japanese", "jp") in inline_values("`jp` as Japanese or `en` as English")


def test_what_every_value_says_names_none_of_them():
    cities = [(v, v) for v in ("shinjuku-city", "minato-city", "shibuya-city")]

    assert option_named("izakaya listings in Minato", cities, loose=True) == "minato-city"


def test_what_a_label_says_in_parentheses_does_not_keep_it_from_being_named():
    ranges = [("ABC Class (Rated for ~1999)", "1"), ("ARC Class (Rated for ~2799)", "2")]

    assert option_named("only the ARC class ones", ranges, loose=False) == "2"


@pytest.mark.parametrize(
    "question",
    [
        "Can I follow one specific person's answers on CuriousCat?",
        "Can RSSHub turn my mail inbox into a feed over IMAP?",
        "字节点击某个标签下的文章能订阅吗",
    ],
)
def test_a_person_unnamed_the_service_itself_or_words_around_an_unnamed_tag_name_no_one(
    question,
):
    chosen, ctx = route(question)

    assert chosen is False and ctx.needs, f"read {ctx.paths} for {question!r}"


def test_tables_go_to_a_parameter_without_one_yet_then_to_the_one_their_header_names():
    description = (
        "| Alpha Game | Beta Game |\n| --- | --- |\n| 1 | 2 |\n\n"
        "| Notices | Events |\n| --- | --- |\n| 1 | 2 |\n\n"
        "| Category Name | `kind` parameter |\n| --- | --- |\n| 商品 | goods |\n| 音乐 | music |"
    )
    game, sort, kind = route_slots(
        "/ex/:game/:sort/:kind?",
        {"game": "Game", "sort": "Sort", "kind": "Kind"},
        description,
        "/ex/2/2",
    )

    assert game.choices == [("Alpha Game", "1"), ("Beta Game", "2")]
    assert sort.choices == [("Notices", "1"), ("Events", "2")]
    assert kind.choices == [("商品", "goods"), ("音乐", "music")]


def test_a_table_right_under_another_goes_on_listing_its_parameter():
    description = (
        "Category\n\n| All | Typical |\n| --- | --- |\n| 0 | 6 |\n\n"
        "| Archive | Sponsored |\n| --- | --- |\n| 200 | 1000 |"
    )
    sort, category = route_slots(
        "/ex/:sort?/:category?",
        {"sort": "Sort, see below", "category": "Category, see below"},
        description,
        "/ex",
    )

    assert sort.choices == []
    assert ("Sponsored", "1000") in category.choices


def test_a_default_said_by_its_label_fills_a_gap_before_a_value_named():
    path = first_path("AtCoder contest archive, only the AGC class ones")

    assert path == "/atcoder/contest/en/3"


def test_the_platforms_name_in_a_label_does_not_name_it():
    assert first_path("AtCoder's contest archive, ABC class") == "/atcoder/contest/en/1"


def test_the_language_a_feed_is_read_in_does_not_choose_the_route():
    assert first_path("What's on KBS World today? In English is fine.") == "/kbs/today"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("Cockroach Labs blog, just the culture category", "/cockroachlabs/blog/culture"),
        ("Doraemon Channel (dora-world.com), only its anime articles", "/dora-world/article/anime"),
        ("new items from this BOOTH shop: https://kumaya.booth.pm/", "/booth.pm/shop/kumaya"),
        ("中国炼焦行业协会 炼焦煤指数(MyCpic) 的更新", "/cnljxh/date/5907"),
        ("农工党 http://www.ngd.org.cn/xwzx/tpxw/index.htm 的新闻", "/ngd/xwzx-tpxw-index"),
    ],
)
def test_settings_said_before_their_name_hosts_labelled_parents_and_dashed_addresses(
    question, path
):
    assert first_path(question) == path


def test_a_domain_right_before_a_parameters_name_says_no_value_of_it():
    chosen, ctx = route("Subscribe me to the gwern.net category my coworker likes")

    assert chosen is False and [n["parameter"] for n in ctx.needs] == ["category"]


def test_a_two_row_table_headed_by_a_parameters_name_lists_one_value_a_row():
    table = "| 公告类别 | colId |\n| --- | --- |\n| 首页 - 招聘公告 | 1229116730 |"
    [slot] = route_slots("/ex/:colId?", {"colId": "栏目 id"}, table, "/ex/1229116730")

    assert slot.choices == [("首页 - 招聘公告", "1229116730")]


def test_a_platform_name_in_a_header_row_heads_no_column_of_values():
    table = "| Desktop | Nightly | iOS |\n| --- | --- | --- |\n| desktop | nightly | ios |"
    [slot] = route_slots("/ex/:platform?", {"platform": "the platform"}, table, "/ex/desktop")

    assert ("Nightly", "nightly") in slot.choices and ("iOS", "ios") in slot.choices


def test_values_spanning_two_parameters_give_each_its_part():
    table = (
        "| [国内资讯](https://ex.cn/?big=2&small=8) | [价格行情](https://ex.cn/?big=3&small=12) |\n"
        "| --- | --- |\n"
        "| [2/8](https://rsshub.app/ex/news/2/8) | [3/12](https://rsshub.app/ex/news/3/12) |"
    )
    big, small = route_slots("/ex/news/:big?/:small?", {}, table, "/ex/news/2/8")

    assert big.choices == [("国内资讯", "2"), ("价格行情", "3")]
    assert small.choices == [("国内资讯", "8"), ("价格行情", "12")]


def test_a_rule_ending_in_a_rest_parameter_takes_the_rest_of_the_page():
    hits = radar_hits("https://www.washingtonpost.com/world/asia-pacific")

    assert [hit.path for hit in hits] == ["/washingtonpost/app/world/asia-pacific"]


def test_a_keyword_the_asker_keeps_searching_is_asked_for():
    chosen, ctx = route("new Pixabay uploads for a keyword I keep searching, as a feed")

    assert chosen is False and [n["parameter"] for n in ctx.needs] == ["q"]


@pytest.mark.parametrize(
    ("question", "namespace", "template"),
    [
        (
            "idownloadblog full text please, their own feed is excerpts only",
            "idownloadblog",
            "/idownloadblog",
        ),
        ("趨勢科技防詐達人的詐騙情報能放進阅读器嗎, 想提醒爸媽", "getdr", "/getdr"),
    ],
)
def test_how_a_feed_is_read_and_for_whom_is_no_topic(question, namespace, template):
    assert _topic_terms(question, namespace, template) == ()


def test_an_address_on_another_host_of_a_platforms_domain_names_that_platform():
    _chosen, ctx = route("大工新闻网的人才培养 https://news.dlut.edu.cn/xwjj01/rcpy.htm 怎么订阅")

    assert ctx.platforms[:1] == ["dut"]


def test_codes_over_words_are_values_over_labels():
    table = "| zh\\_CN | ja\\_JP |\n| --- | --- |\n| Chinese | Japanese |"
    [slot] = route_slots("/ex/:locale?", {"locale": "Blog posts in a language"}, table, "/ex")

    assert slot.choices == [("Chinese", "zh_CN"), ("Japanese", "ja_JP")]


def test_one_concepts_words_do_not_say_another_concept():
    # 中文 says zh and cn, and zh-cn is simplified Chinese's: 繁體中文 still asks for 繁体
    choices = [("简体中文", "zh-hans"), ("繁体中文", "zh-hant")]

    assert option_named("有没有繁體中文版的订阅源", choices, loose=False) == "zh-hant"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("AP News politics section feed", "/apnews/rss/politics"),
        ("政协网 http://www.cppcc.gov.cn/zxxw/tt/ 这个栏目", "/gov/cppcc/zxxw-tt"),
    ],
)
def test_a_section_said_before_its_kind_and_a_dashed_page_with_its_slash(question, path):
    assert first_path(question) == path
