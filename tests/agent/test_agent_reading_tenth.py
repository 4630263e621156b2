"""The tenth pass of issue 29's reading rules: a route's tables belong to the parameter their
caption names (a "Language codes" table is :language's, a 分类 table is 帖子分类's), a
percent-encoded value is still a value, a lone flag's value ("set `free` to enable") is named
by itself, a value that is the platform's own name is never asked for by naming the platform,
a language is named in either language (简体版 names ``sc``, German names Deutsch, Korean
한국어), a route whose whole name the question says (Today, 首页) is the feed it asks for, and
letters whose case no words run together have are an id (a Scholar profile's JicYPdAAAAAJ),
a page's address says its site, whatever names its words hold, its host being no value, and
a board's short name between slashes (/v/) is a value; and what names no topic: the words of
a platform's host (KBS World is world.kbs.co.kr), 的话, "got" and "is fine". Tables headed by
a value of the parameter before theirs ("スポーツ sports" over baseball) give that parameter its
values and the value its group's.
Against the real catalog snapshot where a route is named, offline."""

import pytest

from agent.question import rewrite_offline
from agent.reading import question_reading
from agent.routes.enums import option_named
from agent.routes.forms import forms_read, opaque_id
from agent.routes.listed import inline_values
from agent.routes.params import params_fill
from agent.routes.slots import route_slots
from agent.routes.tables import captioned_tables, grouped_tables, table_blocks
from agent.summary.subject import context_words_load
from catalog.models import Route
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db

TWO_TABLES = """Categories

| Category          | Slug              |
| ----------------- | ----------------- |
| Diablo IV         | diablo4           |
| Hearthstone       | hearthstone       |
| Overwatch 2       | overwatch         |
| World of Warcraft | world-of-warcraft |

Language codes

| Language     | Code  |
| ------------ | ----- |
| Deutsch      | de-de |
| English (US) | en-us |
| Français     | fr-fr |
"""
BOTH_POINT = {"language": "Language code, see below", "category": "Category, see below"}


def test_each_table_goes_to_the_parameter_its_caption_names():
    slots = {s.name: s for s in route_slots("/news/:language?/:category?", BOTH_POINT,
                                            TWO_TABLES, "/news")}  # fmt: skip

    assert [v for _label, v in slots["language"].choices] == ["de-de", "en-us", "fr-fr"]
    assert [v for _label, v in slots["category"].choices] == [
        "diablo4", "hearthstone", "overwatch", "world-of-warcraft"
    ]  # fmt: skip


def test_a_chinese_caption_names_the_parameter_whose_description_says_it():
    description = (
        "分区\n\n| 分区 | id |\n| -- | -- |\n| 留学申请 | 257 |\n| 世界公民 | 379 |\n\n"
        "分类\n\n| 热门帖子 | 最新帖子 |\n| -- | -- |\n| hot | new |"
    )
    parameters = {"id": "分区 id\uff0c见下表", "type": "帖子分类, 见下表\uff0c默认为 hot"}
    slots = {s.name: s for s in route_slots("/section/:id?/:type?", parameters, description,
                                            "/section/345")}  # fmt: skip

    assert slots["type"].choices == [("热门帖子", "hot"), ("最新帖子", "new")]
    assert slots["id"].choices == [("留学申请", "257"), ("世界公民", "379")]


def test_the_labels_of_a_table_are_no_caption_of_it():
    """交易 among a table's labels does not make it the table of a code "带上交易所"."""
    description = "| 全部 | 交易 | 公告 |\n| -- | -- | -- |\n| all | trans | announcement |"
    parameters = {"id": "股票代码\uff08需要带上交易所\uff09", "type": "动态的类型"}
    slots = {s.name: s for s in route_slots("/stock/:id/:type?", parameters, description,
                                            "/stock/SZ000002")}  # fmt: skip

    assert slots["id"].choices == [] and slots["id"].subject
    assert ("公告", "announcement") in slots["type"].choices
    assert captioned_tables(description)[0][0] == ""


def test_a_percent_encoded_value_is_a_value_of_its_table():
    description = "| Topic | Link |\n| -- | -- |\n| Stock Analysis | stock-analysis |\n" + (
        "| Govt's Words | govt%27s-words |"
    )

    assert table_blocks(description) == [
        [("Stock Analysis", "stock-analysis"), ("Govt's Words", "govt%27s-words")]
    ]


def test_a_lone_flag_value_is_named_by_itself_not_by_what_it_does():
    text = "Only includes free articles, set `free` to enable, disabled by default"

    assert inline_values(text) == [("free", "free")]
    assert inline_values("填入 `pre` 以包含预发布版本") == [
        ("pre", "pre"),
        ("包含预发布版本", "pre"),
    ]


@pytest.mark.parametrize(
    "question, choices, value",
    [
        ("无线新闻的体育新闻\uff0c要简体版", [("繁", "tc"), ("简", "sc")], "sc"),
        ("要繁體的", [("繁", "tc"), ("简", "sc")], "tc"),
        ("Overwatch news in German please", [("Deutsch", "de-de"), ("Français", "fr-fr")],
         "de-de"),
        ("法语的新闻", [("Deutsch", "de-de"), ("Français", "fr-fr")], "fr-fr"),
        ("the Korean edition", [("English", "e"), ("한국어", "k"), ("日本語", "j")], "k"),
        ("要日语版", [("English", "e"), ("한국어", "k"), ("日本語", "j")], "j"),
    ],
)  # fmt: skip
def test_a_language_is_named_in_either_language(question, choices, value):
    assert option_named(question, choices, loose=False) == value


def test_the_platform_own_name_among_values_is_not_asked_for_by_naming_the_platform():
    description = "| Default | Jonathan Landay |\n| -- | -- |\n| reuters | jonathan-landay |"
    filled = params_fill(
        template="/reuters/:category/:topic?",
        parameters={"category": {"options": [{"value": "business", "label": "Business"}]},
                    "topic": "find it in the URL, or tables below"},
        description=description,
        example="/reuters/world/us",
        question="Reuters business news",
        platform_words=("reuters", "Reuters"),
    )  # fmt: skip

    assert filled.path == "/reuters/business"


@pytest.mark.parametrize(
    "question, path",
    [
        ("Overwatch news from Blizzard in French", "/blizzard/news/fr-fr/overwatch"),
        ("TVB 的体育新闻\uff0c繁体就行", "/tvb/news/sports/tc"),
        ("Nikkei politics coverage, just the free articles", "/nikkei/news/politics/free"),
        ("Finology pieces under the Indian Economy topic", "/finology/tag/indian-economy"),
        ("一亩三分地 海外求职 分区里的最新帖子", "/1point3acres/section/38/new"),
        ("Reuters legal news", "/reuters/legal"),
    ],
)
def test_a_second_setting_is_read_from_its_own_table(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    "question, path",
    [
        ("KBS World Today in Korean please", "/kbs/today/k"),
        ("标志情报局的首页文章推给我", "/logonews"),
    ],
)
def test_a_route_whose_whole_name_is_said_is_the_feed_asked_for(question, path):
    """Today and 首页 are words for any site's part, yet a route named just so is the one asked
    for, over one the search scored a little higher (News, 作品标签)."""
    assert first_path(question) == path


@pytest.mark.parametrize(
    "value, is_id",
    [
        ("JicYPdAAAAAJ", True),
        ("hMIBbqUAAAAJ", True),
        ("GitHubDesktop", False),
        ("XMLHttpRequest", False),
        ("HTMLParser", False),
        ("JavaScript", False),
        ("internationalization", False),
    ],
)
def test_letters_with_a_run_of_capitals_inside_are_an_id(value, is_id):
    assert opaque_id(value) is is_id
    assert (
        ("id", value) in [(f.kind, f.value) for f in forms_read(f"profile {value} please")[1]]
    ) is is_id


def test_a_letters_only_id_fills_the_route_of_its_kind_not_a_word_of_the_question():
    assert (
        first_path("Google Scholar citations of hMIBbqUAAAAJ, please")
        == "/google/citations/hMIBbqUAAAAJ"
    )


@pytest.mark.parametrize(
    "question, path",
    [
        ("greasyfork.org/scripts/12345-bilibili-evolved 的用户反馈",
         "/greasyfork/scripts/12345-bilibili-evolved/feedback"),
        ("Version history of greasyfork.org/scripts/9999-youtube-enhancer",
         "/greasyfork/scripts/9999-youtube-enhancer/versions"),
    ],
)  # fmt: skip
def test_a_page_address_says_its_site_and_its_host_is_no_value(question, path):
    """bilibili and youtube in the script's name name no platform; greasyfork.org is the
    source, not the :domain whose scripts to list."""
    chosen, ctx = route(question)

    assert chosen is True
    assert ctx.platforms == ["greasyfork"]
    assert ctx.paths[0][0] == path


@pytest.mark.parametrize(
    "text, values",
    [
        ("4chan /biz/ catalog", ["biz"]),
        ("the /v/ board", ["v"]),
        ("vercel/next.js releases", []),
        ("files under /usr/local/ here", []),
    ],
)
def test_a_short_name_between_slashes_is_a_value(text, values):
    assert [f.value for f in forms_read(text)[1] if f.kind == "quoted"] == values


def test_a_board_between_slashes_fills_the_board():
    assert first_path("4chan /biz/ catalog as a feed") == "/4chan/biz/catalog"


@pytest.mark.parametrize(
    "question, namespace, template, path",
    [
        ("KBS World 今天播了什么", "kbs", "/kbs/today/:language?", "/kbs/today"),
        ("Tesla 官网的价格变了的话告诉我", "tesla", "/tesla/price", "/tesla/price"),
        ("What breaches got added to Firefox Monitor? Weekly is fine", "firefox",
         "/firefox/breaches", "/firefox/breaches"),
        ("What is Firefox Monitor publishing these days?", "firefox", "/firefox/breaches",
         "/firefox/breaches"),
    ],
)  # fmt: skip
def test_the_host_words_and_how_a_question_is_put_are_no_topic(question, namespace, template, path):
    read = Route.objects.get(path=template)
    words = context_words_load(namespaces={namespace}, route_ids={read.pk}, paths=[(path, read.pk)])

    assert question_reading(question, rewrite_offline(question)).topic(words).terms == ()


@pytest.mark.parametrize(
    "question, value",
    [
        ("快讯只要重要的", "2"),
        ("重要快讯推给我", "2"),
        ("所有快讯", "1"),
    ],
)
def test_a_label_that_says_only_names_what_it_keeps(question, value):
    """只看重要的 is "only the important ones": 重要 names it, however the question puts it."""
    choices = [("1", "1"), ("2", "2"), ("全部快讯", "1"), ("只看重要的", "2")]

    assert option_named(question, choices, loose=False) == value


GROUPED = """::: tip
以下小标题即类型 `genre`\uff0c标题下表格中为对应类型的分类 `category`。
:::

トップ top

スポーツ sports

| 野球     | サッカー |
| -------- | -------- |
| baseball | soccer   |

IT・科学 tech\\_science [`/asahi/tech_science`](https://rsshub.app/asahi/tech_science)

| 科学    | デジもの |
| ------- | -------- |
| science | digital  |
"""


def test_tables_headed_by_a_value_are_grouped_under_it():
    assert grouped_tables(GROUPED) == [
        ("トップ", "top", []),
        ("スポーツ", "sports", [("野球", "baseball"), ("サッカー", "soccer")]),
        ("IT・科学", "tech_science", [("科学", "science"), ("デジもの", "digital")]),
    ]
    genre, category = route_slots("/asahi/:genre?/:category?", {}, GROUPED, "/asahi/top")
    assert [v for _label, v in genre.choices] == ["top", "sports", "tech_science"]
    assert dict(category.parents)["digital"] == "tech_science"


def test_captions_alone_group_nothing():
    assert grouped_tables(TWO_TABLES) == []


@pytest.mark.parametrize(
    "question, path",
    [
        ("经济观察网 宏观 栏目的文章", "/eeo/yaowen/hfshuju"),
        ("朝日新聞のサッカー記事", "/asahi/sports/soccer"),
        ("经济观察网的汽车栏目", "/eeo/qiche"),
    ],
)
def test_a_grouped_value_brings_its_group(question, path):
    """宏观 is a category of the 时事・政策・宏观 column (yaowen); 汽车 is a column of its own, not
    also the 汽车 category of another column."""
    assert first_path(question) == path


def test_a_table_listing_a_parameter_default_is_that_parameter_own():
    """No caption, no "see the table": 热搜榜 realtime is the board's default, so the table is
    the board's."""
    description = "| 热搜榜   | 小说榜 | 电影榜 |\n| -- | -- | -- |\n| realtime | novel  | movie  |"
    (board,) = route_slots("/baidu/top/:board?", {"board": "榜单\uff0c默认为 `realtime`"},
                           description, "/baidu/top")  # fmt: skip

    assert ("电影榜", "movie") in board.choices and not board.subject
    chosen, ctx = route("百度热搜里的电影榜")
    assert (chosen, ctx.paths[0][0]) == (True, "/baidu/top/movie")


@pytest.mark.parametrize(
    "text, pairs",
    [
        ("adamgryu's a-short-hike devlog", ["adamgryu/a-short-hike"]),
        ("my team's open-source repo", []),
        ("Open issues in my company's front-end repo", []),
    ],
)
def test_an_owner_s_slug_is_an_owner_and_a_name(text, pairs):
    assert [f.value for f in forms_read(text)[1] if f.kind == "pair"] == pairs


def test_a_word_of_the_route_path_said_whole_chooses_it():
    """ "devlog" is ``/itch/devlog/...``'s word, though its name says Developer Logs."""
    assert (
        first_path("itch.io devlog of noelberry's celeste-classic")
        == "/itch/devlog/noelberry/celeste-classic"
    )


@pytest.mark.parametrize(
    "question",
    [
        "new issues in my team's front-end repo on GitHub",
        "latest releases of our company's internal-tools repo on GitHub",
    ],
)
def test_a_word_between_the_askers_possessive_and_a_kind_names_no_one(question):
    """front-end says which of the team's repos, not whose: the run asks for the repo."""
    chosen, ctx = route(question)

    assert (chosen, ctx.paths) == (False, [])
    assert ctx.needs and all(n["source"] == "GitHub" for n in ctx.needs)


@pytest.mark.parametrize(
    "question, path",
    [
        ("Tell me when the iOS app id1436953057 drops its price in the US App Store",
         "/appstore/price/us/iOS/id1436953057"),
        ("美区 App Store 里 id441258766 这个 mac 应用打折了告诉我",
         "/appstore/price/us/mac/id441258766"),
    ],
)  # fmt: skip
def test_of_two_platforms_taking_the_subject_the_one_serving_the_intent_comes_first(question, path):
    """Apple's App Update and the App Store's Price Drop both take the app id; a price asked
    about reads the price drops first."""
    chosen, ctx = route(question)

    assert chosen is True
    assert ctx.paths[0][0] == path
    assert [p for p, _r in ctx.paths][1].startswith("/apple/apps/update/")


def test_a_quoted_name_a_few_words_after_by_is_whose():
    """'ksenia_studio' is the team that posts, not a word to search Dribbble for."""
    assert (
        first_path("new shots posted by the agency 'ksenia_studio' on Dribbble")
        == "/dribbble/user/ksenia_studio"
    )


@pytest.mark.parametrize(
    "question, path",
    [
        ("the freecomputerbooks.com 'webJavaScriptBooks' list, please",
         "/freecomputerbooks/webJavaScriptBooks"),
        ("freecomputerbooks.com new books about 'python'", "/freecomputerbooks"),
    ],
)  # fmt: skip
def test_a_setting_listing_no_values_takes_a_quoted_value_of_its_example_form(question, path):
    """compscAlgorithmBooks is the example: a quoted value in that form is the list asked for;
    a plain quoted word may be a topic, and is left to the topic check."""
    assert first_path(question) == path


def test_a_verb_asking_for_a_feed_names_no_route_word():
    """ "Follow" asks for the diary; it does not name the Following diary (of whom one follows)."""
    assert (
        first_path("Follow the Letterboxd diary of filmspotting")
        == "/letterboxd/user/diary/filmspotting"
    )


def test_an_address_of_two_segments_gives_an_owner_and_a_name():
    """gitlab.com/gnome/gimp names GNOME's GIMP, not only "gimp"."""
    assert ("pair", "gnome/gimp") in [
        (f.kind, f.value) for f in forms_read("gitlab.com/gnome/gimp")[1]
    ]
    assert first_path("Releases of gitlab.com/gnome/gimp") == "/gitlab/release/gnome/gimp"
