"""The thirteenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.question import WORD_RE, rewrite_offline
from agent.reading import question_reading
from agent.routes.enums import option_named
from agent.routes.fit import route_fill, values_lent
from agent.routes.listed import inline_values
from agent.routes.slots import route_slots
from agent.routes.tables import table_blocks, value_columns
from agent.summary.subject import context_words_load
from agent.unnamed import ASKERS_KIND_ZH, ONE_OF_KIND_ZH
from catalog.abbreviations import short_names
from catalog.models import Route
from catalog.segment import zh_leads_as_function
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db

LANGUAGES_ACROSS = """| Language | 한국어 | English | 日本語 |
| -------- | ------ | ------- | ------ |
| `:lang`  | `ko`   | `en`    | `jp`   |

For a full list of channels, please refer to the page of the corresponding language

| RSS Feed Page                      |
| ---------------------------------- |
| [한국어](https://example.org/ko)   |
| [English](https://example.org/en)  |
| [日本語](https://example.org/jp)   |"""


def test_a_column_of_links_to_pages_lists_no_values():
    assert table_blocks(LANGUAGES_ACROSS) == [
        [("Language", ":lang"), ("한국어", "ko"), ("English", "en"), ("日本語", "jp")]
    ]


def test_a_row_header_naming_the_parameter_labels_no_value_column():
    assert value_columns(LANGUAGES_ACROSS) == []


def test_a_parameter_pointed_at_a_list_of_pages_takes_none_of_their_labels():
    slots = route_slots(
        "/:lang?/:channel?",
        {"lang": "Language, see below", "channel": "RSS Feed Channel, see below"},
        LANGUAGES_ACROSS,
        "/en/national",
    )

    assert [(slot.name, slot.choices) for slot in slots] == [
        ("lang", [("한국어", "ko"), ("English", "en"), ("日本語", "jp")]),
        ("channel", []),
    ]


def test_a_language_named_in_english_reads_its_native_label():
    assert first_path("Yonhap news in Japanese") == "/yna/jp"


def test_a_value_given_two_ways_in_a_cell_is_read_as_the_first():
    said = """| 新闻栏目 | 武大资讯         | 学术动态    |
| -------- | ---------------- | ----------- |
| 参数     | 0 或 `wdzx/wdyw` | 1 或 `kydt` |"""

    assert table_blocks(said) == [[("新闻栏目", "参数"), ("武大资讯", "0"), ("学术动态", "1")]]


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("武汉大学", "武大"),
        ("浙江大学", "浙大"),
        ("四川农业大学", "川农"),
        ("湖南农业大学", "湘农"),
    ],
)
def test_a_university_goes_by_its_first_character_and_da_or_its_province(name, short):
    assert short in short_names(name)


def test_a_two_word_name_other_than_a_university_has_no_short_name():
    assert short_names("北京日报") == set()


def test_a_short_name_the_segmenter_guesses_into_a_longer_word_still_names_its_school():
    assert first_path("川农动科院的就业信息有更新就提醒我\uff0c大四了在找工作") == "/sicau/dky/zpxx"


def test_a_university_named_by_its_short_name_is_read():
    assert (
        first_path("准备考武大的研\uff0c研究生院发的招生类通知能订阅吗\uff1f其他通知不需要")
        == "/whu/gs/4"
    )


def test_a_question_in_traditional_characters_means_no_mainland_school_by_a_short_name():
    _chosen, ctx = route("成大物理系的獎助學金公告可以用 RSS 追蹤嗎\uff1f")
    assert not ctx.paths[0][0].startswith("/cdu/")
    assert first_path("成大的通知公告") == "/cdu/tzggcdunews"


def test_a_short_name_inside_a_longer_school_name_names_nothing():
    _chosen, ctx = route("东北大学的通知公告")
    assert all(not path.startswith("/pku/") for path, _route in ctx.paths)


def test_a_row_whose_value_is_left_out_keeps_the_column_a_list_of_values():
    said = """| Category      | Description            |
| ------------- | ---------------------- |
| (empty)       | Homepage / Top stories |
| international | World - International  |
| europe        | Europe                 |
| economy       | Economy                |
| football      | Sport - Football       |"""

    assert table_blocks(said)[0][-2:] == [("Economy", "economy"), ("Sport - Football", "football")]


def test_a_section_listed_after_a_home_page_row_is_read():
    assert (
        first_path(
            "I follow Le Monde's English edition mostly for sport, can I get just their "
            "football coverage as a feed?"
        )
        == "/lemonde/en/football"
    )


def test_of_two_labels_said_alike_the_one_said_more_often_is_read():
    assert (
        option_named(
            "\u5c01\u9762\u65b0\u95fb\u4f53\u80b2\u9891\u9053\u6709\u8ba2\u9605\u6e90\u5417\uff1f"
            "\u60f3\u6bcf\u5929\u770b\u770b\u56db\u5ddd\u672c\u5730\u7684\u4f53\u80b2\u65b0\u95fb",
            [("四川", "3560"), ("体育", "3689")],
            loose=True,
        )
        == "3689"
    )


@pytest.mark.parametrize(
    "question",
    [
        "I play FFXIV on an EU data center and keep missing the Lodestone maintenance notices.",
        "Lodestone maintenance notices for Europe, I always keep forgetting the downtime",
    ],
)
def test_a_platform_named_by_a_verb_before_an_ing_form_is_not_named(question):
    _chosen, ctx = route(question)
    assert ctx.paths and ctx.paths[0][0].startswith("/ff14/"), ctx.paths


def test_initials_give_way_to_the_candidate_whose_name_the_question_begins_with():
    _chosen, ctx = route("Rockstar Social Club events for Red Dead Redemption 2, please")
    assert "rockstargames" in ctx.platforms and "rsc" not in ctx.platforms


def test_a_parameter_documented_as_above_lends_the_values_another_route_lists():
    pictures = Route.objects.get(
        platform__namespace="myfigurecollection", key="/:category?/:language?"
    )

    lent = values_lent(pictures)

    assert ("ja" in {value for _label, value in lent["language"]}) and "category" not in lent


def test_values_lent_fill_the_parameter_as_its_own_would():
    pictures = Route.objects.get(
        platform__namespace="myfigurecollection", key="/:category?/:language?"
    )

    filled = route_fill(pictures, "MyFigureCollection pictures of the week, in Japanese")

    assert filled.path == "/myfigurecollection/potw/ja"


def test_a_route_without_a_parameter_as_above_borrows_nothing():
    assert values_lent(Route.objects.get(platform__namespace="lemonde", key="/en/:category?")) == {}


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "What exhibitions are coming up soon at the Zhejiang Provincial Museum?",
            "/zjmuseum/exhibition/forecast",
        ),
        ("Zhejiang Provincial Museum upcoming exhibitions", "/zjmuseum/exhibition/forecast"),
    ],
)
def test_upcoming_names_the_label_of_what_is_about_to_start(question, path):
    assert first_path(question) == path


def asks(question: str) -> list[str]:
    _chosen, ctx = route(question)
    assert not ctx.paths, f"{question!r} read {ctx.paths}"
    return [need["parameter"] for need in ctx.needs]


def test_an_account_on_a_platform_said_as_one_of_its_kind_is_asked_for():
    assert ONE_OF_KIND_ZH.search("\u6211\u5173\u6ce8\u4e86\u4e00\u4e2a\u5934\u6761\u53f7")
    assert asks("我关注了一个搜狐号, 想在它更新时收到推送") == ["xpt"]


def test_a_section_the_asker_visits_is_unnamed():
    assert ASKERS_KIND_ZH.search("我常看的那个栏目")
    assert asks("S1 我常逛的那个版块, 想订阅一下它的论坛摘要") == ["tid"]


def test_an_id_of_a_word_and_numbers_takes_only_that_form():
    assert first_path("Saraba1st 论坛摘要 forum-75-1") == "/saraba1st/digest/forum-75-1"


def test_the_name_of_another_route_of_the_platform_is_no_subject():
    assert asks("知园上有个作者的newsletter写得挺好, 想订阅他的") == ["author"]


def test_a_label_said_inside_the_route_name_counts_less_than_one_said_apart():
    assert (
        first_path("太平洋科技的科技新闻里, 我只想看人物那一类的报道")
        == "/pconline/focus/character"
    )


def test_a_word_a_listed_value_spells_is_that_setting_not_someone():
    assert first_path("toutiao sports channel news pls") == "/toutiao/channel/news_sports"


def test_the_kind_of_a_subject_route_said_keeps_the_subject():
    assert first_path("IT之家 iPhone 标签的最新资讯") == "/ithome/tag/iPhone"


def test_a_chinese_label_said_whole_outweighs_an_english_value_of_more_letters():
    choices = [("学院通知", "notice"), ("招生通知", "enrollment")]

    assert option_named("Tongji SEM admissions notices (招生通知)", choices, loose=False) == (
        "enrollment"
    )


def test_of_two_platforms_at_one_address_the_one_the_search_ranks_first_is_read():
    assert first_path("bytes.dev react newsletter issues") == "/reactnewsletter"
    assert first_path("bytes.dev weekly dose of JS") == "/bytes"


def test_a_number_keyed_by_the_parameter_name_in_an_address_fills_it():
    question = (
        "The official CNBC technology RSS (https://search.cnbc.com/rs/search/combinedcms/"
        "view.xml?partnerId=wrss01&id=19854910) only gives me summaries: full articles please"
    )

    assert first_path(question) == "/cnbc/rss/19854910"


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("logrocket blog product managment posts", "product-management"),
        ("logrocket ux desing posts", "ux-design"),
        ("logrocket posts on ux", None),  # a short word is said as it is or not at all
    ],
)
def test_a_long_word_misspelt_by_one_letter_names_its_value(question, value):
    choices = [
        ("dev", "dev"),
        ("product-management", "product-management"),
        ("ux-design", "ux-design"),
    ]

    assert option_named(question, choices, loose=False) == value


def test_values_an_example_lists_with_commas_are_values():
    slots = route_slots(
        "/recently/:category?",
        {"category": "Category path name, seperate by comma, default is all categories"},
        "",
        "/recently/developer-apps,system-tools",
    )

    assert slots[0].choices == [
        ("developer apps", "developer-apps"),
        ("system tools", "system-tools"),
    ]
    assert first_path("macmenubar recently added apps in the system tools category") == (
        "/macmenubar/recently/system-tools"
    )


def _topic_terms(question: str, namespace: str, template: str) -> tuple[str, ...]:
    read = Route.objects.get(path=template)
    words = context_words_load(
        namespaces={namespace}, route_ids={read.pk}, paths=[(template, read.pk)]
    )
    return question_reading(question, rewrite_offline(question)).topic(words).terms


@pytest.mark.parametrize(
    ("question", "namespace", "template"),
    [
        ("Let me know whenever ManicTime puts out a new release, I keep forgetting to update it.",
         "manictime", "/manictime/releases"),
        ("Penguin Random House book lists, the curated ones, in my reader if possible",
         "penguin-random-house", "/penguin-random-house/the-read-down"),
        ("重庆燃气的停气检修通知能不能帮我盯着, 上次突然停气", "cqgas", "/cqgas/tqtz"),
        ("HKJunkCall 最近有咩新嘅資訊?", "hkjunkcall", "/hkjunkcall"),
    ],
)  # fmt: skip
def test_words_of_how_a_question_is_put_are_no_topic(question, namespace, template):
    assert _topic_terms(question, namespace, template) == ()


def test_a_latin_word_with_accents_is_one_word():
    assert WORD_RE.findall("Onet Wiadomości, café") == ["Onet", "Wiadomości", "café"]


@pytest.mark.parametrize(
    ("question", "parameter"),
    [
        ("创业邦上有个作者写得挺好的, 想关注一下他的文章", "id"),
        ("有个爱奇艺的up主我挺喜欢的, 他一发新视频我就想知道", "uid"),
        ("There's this one author on Voronoi whose charts I love, can you track their posts?",
         "username"),
    ],
)  # fmt: skip
def test_what_follows_a_kind_said_as_one_of_many_names_no_one(question, parameter):
    assert asks(question) == [parameter]


def test_a_verb_or_a_pronoun_starts_no_name_but_a_name_does():
    assert zh_leads_as_function("写得挺好的") and zh_leads_as_function("我挺喜欢的")
    assert not zh_leads_as_function("老番茄的最新视频")


def test_values_the_route_description_lists_one_after_another_are_the_parameters():
    said = (
        "Supported site identifiers: [`apache`](https://bz.apache.org/bugzilla), "
        "[`kernel`](https://bugzilla.kernel.org), [`webkit`](https://bugs.webkit.org)"
    )

    slots = route_slots("/bug/:site/:bugId", {"site": "site identifier"}, said, "/bug/webkit/1")

    assert slots[0].choices == [("apache", "apache"), ("kernel", "kernel"), ("webkit", "webkit")]


def test_backticked_words_in_prose_list_no_values():
    said = (
        "Set it to `true` `yes` `t` or leave it; the id is `6b5c39b3dd84`, see `/qk/6b5c39b3dd84`"
    )

    slots = route_slots("/qk/:id", {"id": "期刊 id"}, said, "/qk/6b5c39b3dd84")

    assert slots[0].choices == [] and slots[0].subject


def test_values_listed_each_with_its_label_after_a_hyphen_are_read():
    said = "支持小说类型: jinqigengxin-近期更新,dushi-都市,wuxia-武侠,kehuan-科幻"

    slots = route_slots("/novel/:type", {"type": "小说类型"}, said, "/novel/jinqigengxin")

    assert ("武侠", "wuxia") in slots[0].choices
    assert first_path("知轩藏书最近上了哪些武侠小说") == "/zxcs/novel/wuxia"


def test_a_value_said_equal_to_its_label_is_listed():
    said = "语言: `china` = 简体中文 (默认), `tchina` = 繁體中文"

    assert ("繁體中文", "tchina") in inline_values(said)
    assert first_path("共同網有繁體中文版嗎? 想看繁中的最新報導") == "/kyodonews/tchina"


def test_values_over_labels_are_read_when_a_label_row_holds_one_that_is_no_value():
    said = """| 其他任意值 | mto          | mpt          | gi       |
| ---------- | ------------ | ------------ | -------- |
| 全部订阅   | 教学运行管理 | 实践教学管理 | 综合信息 |"""

    assert ("实践教学管理", "mpt") in table_blocks(said)[0]


def test_a_row_of_example_paths_is_no_row_of_labels():
    said = """| HN100              | User submitted                       |
| ------------------ | ------------------------------------ |
| `/hackernews/over` | `/hackernews/submitted/sources/dang` |"""

    assert ("/hackernews/over", "HN100") not in table_blocks(said)[0]


def test_the_label_said_as_the_only_one_wanted_is_read():
    choices = [("Top Stories (default)", "top-stories"), ("Crime", "crime")]
    question = "Only the crime news from nltimes.nl, the top stories feed is way too broad"

    assert option_named(question, choices, loose=False) == "crime"


@pytest.mark.parametrize(
    ("name", "shorts"),
    [
        ("中央汇金投资有限责任公司", {"中央汇金投资", "中央汇金"}),
        ("拉勾网", {"拉勾"}),
        ("新浪网", {"新浪"}),
    ],
)
def test_a_company_goes_without_its_legal_form_and_a_site_without_wang(name, shorts):
    assert shorts <= short_names(name)


def test_a_site_named_by_a_common_word_keeps_its_wang():
    assert "人民" not in short_names("人民网")


def test_a_site_said_without_wang_is_the_platform_where_jobs_are_read():
    assert first_path("拉勾上深圳的 Python 岗位有新发布的吗? 在找工作") == "/lagou/jobs/Python/深圳"


def test_a_feature_asked_whether_first_is_labelled_by_what_it_does():
    said = "是否获取全文, 需要获取则传入参数`y`"

    assert inline_values(said) == [("y", "y"), ("获取全文", "y"), ("全文", "y")]
    assert first_path("大眼仔旭的教程资源有更新就推给我, 最好直接带全文") == "/dayanzai/tutorial/y"


def test_a_word_said_in_passing_names_its_label_when_quoted():
    choices = [("全部", ""), ("最新", "new"), ("每天60秒读懂世界", "news")]

    assert option_named("60s.aa1.cn 上「最新」那个分类的文章", choices, loose=False) == "new"
    assert option_named("60s.aa1.cn 上最新的文章", choices, loose=False) is None
