"""The fourteenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.entities import question_read
from agent.routes.enums import option_named
from agent.routes.listed import inline_values
from agent.routes.params import params_fill
from agent.routes.slots import route_slots
from agent.routes.tables import table_blocks
from agent.summary.subject import asker_said
from fetching.radar import radar_hits
from tests.agent.test_agent_reading_thirteenth import _topic_terms
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db

WORDS_A_ROW = """| Categories    | parameter         |
| ------------- | ----------------- |
| Featured Map  | mind-map-examples |
| Business      | business          |
| Design        | design            |
| Education     | education         |"""

WORDS_IN_TURN = """| Business News | Design Work |
| ------------- | ----------- |
| biz           | dsgn        |
| Science       | Arts Today  |
| sci           | arts        |"""


def test_a_table_of_words_a_row_pairs_each_label_with_its_own_value():
    assert table_blocks(WORDS_A_ROW) == [
        [
            ("Featured Map", "mind-map-examples"),
            ("Business", "business"),
            ("Design", "design"),
            ("Education", "education"),
        ]
    ]


def test_a_table_of_words_in_rows_in_turn_still_reads_labels_over_values():
    assert table_blocks(WORDS_IN_TURN) == [
        [
            ("Business News", "biz"),
            ("Design Work", "dsgn"),
            ("Science", "sci"),
            ("Arts Today", "arts"),
        ]
    ]


def test_one_column_of_words_under_a_header_lists_values_that_are_their_own_labels():
    table = "| Category |\n| -------- |\n| すべて |\n| テレビ |\n| イベント |"

    assert table_blocks(table) == [
        [("すべて", "すべて"), ("テレビ", "テレビ"), ("イベント", "イベント")]
    ]


def test_one_column_of_links_to_pages_lists_nothing():
    table = "| Page |\n| --- |\n| [日本語](https://ja.example) |\n| [English](https://en.example) |"

    assert table_blocks(table) == []


def test_the_one_parameter_of_a_route_owns_a_table_nothing_else_claims():
    slots = route_slots(
        "/:channel?",
        {"channel": "默认不填为 最新文章, 频道如下"},
        "| 最新文章 | 行业快讯 | 投融界 |\n| --- | --- | --- |\n|   | fresh | investor |",
        "",
    )

    assert slots[0].choices == [("行业快讯", "fresh"), ("投融界", "investor")]


def test_values_labelled_after_colons_are_listed_with_their_labels():
    assert inline_values("过滤类型ID, 0\uff1a全部\u30011\uff1a原创\u30012\uff1a图片") == [
        ("0", "0"),
        ("1", "1"),
        ("2", "2"),
        ("全部", "0"),
        ("原创", "1"),
        ("图片", "2"),
    ]


def test_a_range_takes_the_labels_its_values_have_after_colons():
    listed = inline_values("分类(1-3), 1:电影, 2:电视剧, 3:本周热门", example="1")

    assert ("本周热门", "3") in listed and ("1", "1") in listed


def test_a_list_said_in_words_is_no_pair_of_colons():
    listed = inline_values("Choose from: date, week, month. Default: date", example="week")

    assert listed == [("date", "date"), ("week", "week"), ("month", "month")]


def test_a_list_to_fill_in_names_its_values():
    assert inline_values("Fill in ipsws or otas to get different versions of firmware") == [
        ("ipsws", "ipsws"),
        ("otas", "otas"),
    ]


def test_a_chinese_label_is_named_by_its_core_without_the_kind_of_list():
    choices = [("作品项目", "works"), ("科普系列", "kb"), ("计划与日志", "planlog")]

    assert (
        option_named("a feed just for their explainer series (the 科普 posts)", choices, loose=True)
        == "kb"
    )


def test_not_only_a_value_asks_for_more_than_it():
    choices = [("All", "all"), ("Latest", "latest")]
    question = "I'd like all of this month's news, not only the latest batch."

    assert option_named(question, choices, loose=False) == "all"


def test_only_a_value_still_asks_for_it():
    choices = [("All", "all"), ("Latest", "latest")]

    assert (
        option_named("all right, give me only the latest batch", choices, loose=False) == "latest"
    )


def test_an_english_question_glossing_a_chinese_word_makes_no_latin_word_a_name():
    asked = question_read(
        "what's in the essence (精華) picks on Matters town lately?",
        platform_words=("matters",),
        excluded=("essence",),
    )

    assert "picks" not in [e.value for e in asked.entities]


def test_latin_words_in_a_chinese_question_are_still_names():
    asked = question_read(
        "Twitter 用户 elonmusk 最新推文", platform_words=("twitter",), excluded=()
    )

    assert "elonmusk" in [e.value for e in asked.entities]


def test_the_platforms_own_host_gives_way_to_another_domain_said():
    asked = question_read(
        "tell me when winstall.app shows a new version of Microsoft.PowerToys",
        platform_words=("winstall",),
        excluded=(),
        hosts=("winstall.app",),
    )

    assert [e.value for e in asked.entities if e.kind == "domain"] == ["Microsoft.PowerToys"]


def test_a_page_address_gives_its_id_without_the_page_extension():
    hits = radar_hits("https://www.cartoonmad.com/comic/1152.html")

    assert [hit.path for hit in hits] == ["/cartoonmad/comic/1152"]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "I teach German and want MindMeister's public maps in the Education category, "
            "the German-language ones",
            "/mindmeister/education/de",
        ),
        ("wto dispute settlement news for 2023 pls", "/wto/dispute-settlement/2023"),
        ("不太灵影视 2bt0.com 的本周热门列表 有rss吗", "/bt0/tlist/4"),
        ("镁客网 投融界 频道, 想跟一下硬件圈的融资新闻", "/im2maker/investor"),
        (
            "notify me whenever ipsw.me lists a new OTA for iPhone11,8, not the full IPSWs, "
            "just the OTAs",
            "/ipsw/index/otas/iPhone11,8",
        ),
        (
            "how can I follow winstall.app for new versions of Microsoft.PowerToys?",
            "/winstall/Microsoft.PowerToys",
        ),
        ("the essence (精華) picks on Matters town?", "/matters/latest/essence"),
    ],
)
def test_questions_of_the_fourteenth_pass_read_their_paths(question, path):
    assert first_path(question) == path


def test_a_year_goes_to_a_parameter_of_years_and_to_no_other_optional_one():
    def path(template: str, description: str) -> str:
        return params_fill(
            template=template,
            parameters={template.split(":")[1].rstrip("?"): description},
            description="",
            example="",
            question="dispute settlement news for 2023 pls",
        ).path

    assert path("/wto/ds/:year?", "Year, current year by default") == "/wto/ds/2023"
    assert path("/wto/ds/:region?", "Region, all by default") == "/wto/ds"


@pytest.mark.parametrize(
    "question",
    [
        "Matters 上有個作者我很喜歡, 想訂閱他發的新文章",
        "There's a designer on MakerWorld whose prints I love, can I get their new models?",
        "my son is obsessed with one of the Supercell games, can I follow that game's blog?",
        "want new papers from one particular IEEE journal",
    ],
)
def test_a_subject_meant_but_unnamed_is_asked_for(question):
    chosen, ctx = route(question)

    assert (chosen, ctx.paths) == (False, [])
    assert ctx.needs, f"{question!r} asked for nothing"


@pytest.mark.parametrize(
    ("question", "namespace", "template"),
    [
        ("I run an Unraid server, is there a feed of new Community Apps?",
         "unraid", "/unraid/community-apps"),
        ("cointelegraph latest news, full text if possible", "cointelegraph", "/cointelegraph"),
        ("河海大学图书馆发的通知公告, 有订阅地址吗", "hhu", "/hhu/libNews"),
        ("想追蹤 Shopping Design 網站的最新文章", "shoppingdesign", "/shoppingdesign/posts"),
        ("ebb.io 的新番連載有更新嗎? 幫我訂閱", "ebb", "/ebb"),
        ("immich's 'cursed knowledge' page is hilarious, can I subscribe to it?",
         "immich", "/immich/cursed-knowledge"),
    ],
)  # fmt: skip
def test_what_the_asker_says_of_themselves_and_how_they_ask_are_no_topic(
    question, namespace, template
):
    assert _topic_terms(question, namespace, template) == ()


def test_a_clause_of_what_the_asker_wants_still_names_the_topic():
    assert asker_said("I only care about the office software repacks") == set()
    assert asker_said("I'm interested in Rust, any posts?") == set()
    assert asker_said("I teach German and want the Education maps") == {"i", "teach", "german"}


@pytest.mark.parametrize(
    "question",
    [
        "鸟哥笔记上我常看的一个分类目录, 能弄成RSS吗",
        "There's a newsletter on Hedwig I'd like to read in my feed reader instead of email",
    ],
)
def test_a_required_id_or_a_word_turned_down_is_asked_for_not_read(question):
    chosen, ctx = route(question)

    assert (chosen, ctx.paths) == (False, [])
    assert ctx.needs


def test_of_two_columns_of_words_the_one_headed_as_the_value_is_it():
    table = "| Language | Id |\n| --- | --- |\n| English | english |\n| Spanish | spanish |"

    assert table_blocks(table) == [[("English", "english"), ("Spanish", "spanish")]]


def test_labels_before_their_values_in_parentheses_are_listed():
    listed = inline_values("类型, 默认为通知公告 (tzgg), 可选学院动态 (news)\u3001学术活动 (xshd)")

    assert ("学术活动", "xshd") in listed and ("学院动态", "news") in listed


def test_a_one_character_label_said_as_a_word_names_its_value():
    choices = [("铜", "copper"), ("铝", "alu"), ("镍", "ni")]

    assert option_named("长江有色网镍的调价动态", choices, loose=True) == "ni"
    assert option_named("长江有色网的调价动态", choices, loose=True) is None


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "My Japanese colleague wants Voice of Mongolia (vom.mn) news, the Japanese-language "
            "version of their featured news",
            "/vom/featured/ja",
        ),
        ("taptap.cn 上游戏 ID 168332 的更新日志", "/taptap/changelog/168332"),
        ("the Qwen blog (qwen.ai) in its Chinese version?", "/qwen/blog/zh-CN"),
        ("tokyu railways station ridership numbers for fiscal 2019 pls", "/tokyu/ridership/2019"),
        ("陕西师范大学计算机科学学院的学术活动通知, 有办法订阅吗", "/snnu/ccs/xshd"),
        ("想追 Esquire HK 嘅 Fashion tag, 有冇得訂閱?", "/esquirehk/tag/Fashion"),
        ("长江有色网镍的调价动态, 有没有rss", "/ccmn/price-adjustment/ni"),
    ],
)
def test_more_questions_of_the_fourteenth_pass_read_their_paths(question, path):
    assert first_path(question) == path


def test_a_month_stays_a_month_where_the_example_is_one():
    question = "stuck since May 2024, can I follow the checkee.info visa check cases for 2024-05?"

    assert first_path(question) == "/checkee/2024-05"


def test_a_page_address_maps_to_the_route_path_its_description_shows_for_it():
    hits = radar_hits("东北师大研究生院的校内新闻 https://yjsy.nenu.edu.cn/xwdt/xnxw.htm")

    assert [hit.path for hit in hits] == ["/nenu/yjsy/xwdt/xnxw"]


def test_a_page_whose_query_a_description_reads_beats_a_rule_that_reads_none_of_it():
    page = "https://www.jgjcndrc.org.cn/list?clmId=1832298113994649601&sclmId=1832751799531220993"

    assert [hit.path for hit in radar_hits(page)] == [
        "/gov/jgjcndrc/1832298113994649601/1832751799531220993"
    ]


def test_a_link_to_its_own_path_gives_the_value_as_the_path_writes_it():
    table = (
        "| [投资通 / 推荐](https://rsshub.app/21caijing/channel/投资通/推荐) "
        "| [投资通 / 盘前情报](https://rsshub.app/21caijing/channel/投资通/盘前情报) |\n"
        "| --- | --- |"
    )

    assert table_blocks(table) == [
        [("投资通/推荐", "投资通/推荐"), ("投资通/盘前情报", "投资通/盘前情报")]
    ]


def test_a_long_column_of_values_but_one_is_still_the_column_of_values():
    rows = ["| 名稱 | Name | :category |", "| --- | --- | --- |"]
    rows += [f"| 類{i} | Kind {i} | kind{i} |" for i in range(5)]
    rows += ["| 院刊 | NYC CCS MAGAZINE | NYC CCS MAGAZINE |"]

    pairs = table_blocks("\n".join(rows))[0]
    assert ("類3", "kind3") in pairs and all(value != "NYC CCS MAGAZINE" for _l, value in pairs)


def test_a_grid_of_short_chinese_words_lists_values_that_are_their_own_labels():
    table = "| 小说 | 文学 | 推理 |\n| --- | --- | --- |\n| 传记 | 美国 | 悬疑 |"

    assert table_blocks(table) == [
        [(w, w) for w in ("小说", "文学", "推理", "传记", "美国", "悬疑")]
    ]


def test_a_list_said_as_what_a_value_could_be_names_its_values():
    assert inline_values("language, could be ja or en") == [("ja", "ja"), ("en", "en")]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "News from Institute of Science Tokyo (isct.ac.jp), but the English version, I "
            "can't read Japanese.",
            "/isct/news/en",
        ),
        ("陽明交大資訊學院的公告裡面, 我只想追獎學金相關的, 有沒有 RSS?", "/nycu/cs/scholarship"),
        ("SoBooks 上\u201c推理\u201d这个标签下的新书能订阅吗?", "/sobooks/tag/推理"),
        ("21财经 投资通里的盘前情报, 能订阅吗", "/21caijing/channel/投资通/盘前情报"),
    ],
)
def test_questions_of_the_fourteenth_pass_third_round_read_their_paths(question, path):
    assert first_path(question) == path


def test_a_platform_said_after_through_names_no_subject():
    question = "keep an eye on App Store reviews for an app through AppStare"
    asked = question_read(question, platform_words=("appstore",), excluded=())

    assert "through" not in [e.value for e in asked.entities]


def test_a_default_said_after_its_value_is_read_and_a_numbered_page_takes_no_name():
    question = "a way to follow Morita Hikaru's (森田ひかる) posts on the Sakurazaka46 blog?"

    assert first_path(question) == "/sakurazaka46/blog/50"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("爆料公社嘅動態可唔可以睇熱門排序? 唔想睇最新嗰啲", "/bc3ts/post/list/2"),
        ("Is there a feed for Taiwan's Central News Agency (CNA) sports section?", "/cna/aspt"),
        (
            "At the Shanghai Museum? Only the current special exhibitions, not past ones.",
            "/shanghaimuseum/display/offline-exhibit/PRESENT",
        ),
        (
            "I live in Singapore and read 8world, can I get just their finance news?",
            "/8world/finance",
        ),
        ("cursor changelog but the japanese version pls", "/cursor/changelog/ja"),
        (
            "I use O&O AppBuster to clean up Windows bloat - want to know when they push a new "
            "version, changelog feed?",
            "/oo-software/changelog/ooappbuster",
        ),
    ],
)
def test_questions_of_the_fourteenth_pass_last_round_read_their_paths(question, path):
    assert first_path(question) == path
