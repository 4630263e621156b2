"""The fourth pass of issue 29's reading rules, one behaviour each: a noun heading the asker's
clause is no name, a kind of feed after a name marker is no name, a word before a kind noun is
one, spans of time and filler are no topic, settings listed in parentheses or escaped in tables
are values, the kind a Chinese question names chooses the route, the platform named as the place
to read comes first, and parameter filling reads the run's one reading. Hostile input is read
without error."""

import pytest

from agent.platform import platforms_offline
from agent.platform_named import named_as_place
from agent.question import rewrite_offline
from agent.reading import question_reading
from agent.routes.entities import question_read
from agent.routes.listed import inline_values
from agent.routes.named import kind_said
from agent.routes.params import params_fill
from agent.routes.slots import route_words
from agent.routes.tables import table_blocks
from agent.summary.subject import _settings_named, context_words_load
from agent.unnamed import subject_unnamed
from agent.vocabulary import intent_word, intents_of
from catalog.models import Route
from catalog.search import PlatformHit

HOSTILE = [
    "",
    "   ",
    "\x00\x07\x1b[2J\u202e\u200b",
    "the " * 400 + "image I use",
    "吧" * 300,
    "组织 " * 200,
    "(" + ", ".join(["a"] * 500) + ")",
    "Ünïcödé GitHub 上 Пётр/репо 的 🙂 организация @@@ //// 上上上",
]


def values(question: str, platform: tuple[str, ...] = ()) -> list[str]:
    asked = question_read(question, platform_words=platform, excluded=())
    return [e.value for e in asked.entities]


def reading(question: str):
    return question_reading(question, rewrite_offline(question))


# --- no name where the asker's clause or a kind of feed stands -----------------------------------


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("Hugging Face models by the lab I follow", "lab"),
        ("Releases from the vendor we buy from", "vendor"),
        ("Videos by the creator you recommended", "creator"),
    ],
)
def test_a_noun_heading_the_askers_clause_is_no_name(question, word):
    assert word not in values(question, ("huggingface", "Hugging Face"))


def test_a_name_before_a_clause_of_someone_else_is_still_a_name():
    assert "gaearon" in values("Repositories from gaearon on GitHub", ("github", "GitHub"))


@pytest.mark.parametrize("question", ["B 站 UP 主点赞的视频", "UP 主投稿的视频", "用户收藏的文章"])
def test_a_kind_of_feed_after_a_name_marker_names_no_one(question):
    found = values(question, ("bilibili", "B 站", "B站"))
    assert not any(intent_word(v) for v in found), found


@pytest.mark.parametrize("question", ["那位 B 站 UP 主点赞的视频", "这位博主最近的微博"])
def test_that_person_is_someone_unnamed(question):
    assert subject_unnamed(question)


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Telegram 频道 telegram 的最新消息", "telegram"),
        ("Repositories of the GitHub user github", "github"),
    ],
)
def test_a_platforms_name_right_after_a_kind_of_subject_names_that_subject(question, name):
    assert values(question, ("telegram", "Telegram", "github", "GitHub")) == [name]


def test_a_platforms_name_elsewhere_still_names_only_the_source():
    assert values("Posts from Twitter by user jack", ("twitter", "Twitter")) == ["jack"]
    assert values("Telegram channel durov", ("telegram", "Telegram")) == ["durov"]


# --- a word before a kind noun is its name -------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "platform", "name"),
    [
        ("Docker Hub postgres image new tags", ("dockerhub", "Docker Hub"), "postgres"),
        ("Repositories under the llm topic on GitHub", ("github", "GitHub"), "llm"),
        ("the golang organization on GitHub", ("github", "GitHub"), "golang"),
        ("What's new in mastodon org events on GitHub", ("github", "GitHub"), "mastodon"),
    ],
)
def test_a_word_first_or_after_the_before_a_kind_noun_is_its_name(question, platform, name):
    assert name in values(question, platform)


def test_a_plural_of_the_routes_own_word_is_no_name():
    asked = question_read(
        "What's new in mastodon org events",
        platform_words=("github",),
        excluded={"organization", "event"},
    )

    assert [e.value for e in asked.entities] == ["mastodon"]


def test_filler_before_a_kind_noun_is_still_no_name():
    assert values("latest image tags on Docker Hub", ("dockerhub", "Docker Hub")) == []


# --- the topic: no span of time, no filler read whole --------------------------------------------


@pytest.mark.parametrize(
    ("question", "context", "terms"),
    [
        ("IT之家 24 小时热榜", {"ithome", "it之家", "热榜"}, ()),
        ("少数派过去一周的文章", {"sspai", "少数派"}, ()),
        ("36kr news on Kirin chips from the last 7 days", {"36kr"}, ("Kirin", "chips")),
        ("掘金本周最热的前端文章", {"掘金", "juejin"}, ("前端",)),
        ("微博上关于统一的讨论", {"微博", "weibo"}, ("统一",)),  # 统一 lends no 一 to a span
    ],
)
def test_spans_of_time_and_whole_filler_are_no_topic(question, context, terms):
    assert reading(question).topic(context).terms == terms


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("Weibo posts mentioning Kirin chips", ("Kirin", "chips")),
        ("HN stories regarding WebAssembly", ("WebAssembly",)),
        ("微博上提到鸿蒙的帖子", ("鸿蒙",)),
    ],
)
def test_mentioning_regarding_and_提到_mark_the_topic_and_ask_for_a_search(question, terms):
    read = reading(question)

    assert read.topic({"weibo", "微博", "hn"}).terms == terms
    assert "search" in read.intents


def test_a_setting_value_the_path_took_and_its_label_name_the_feed():
    route = Route(
        path="/juejin/trending/:category/:type",
        parameters={
            "category": {"options": [{"value": "frontend", "label": "前端"}]},
            "type": {"options": [{"value": "weekly", "label": "本周最热"}]},
        },
        description="",
        example="/juejin/trending/ios/monthly",
    )

    named = _settings_named("/juejin/trending/frontend/weekly", route)

    assert {"前端", "frontend", "本周最热", "weekly"} <= set(named)
    assert _settings_named("/juejin/trending/backend/weekly", route) == ["本周最热", "weekly"]


@pytest.mark.django_db
def test_a_chinese_route_name_names_the_feed_in_its_words_and_its_settings_too():
    playing = Route.objects.get(path="/douban/movie/playing")
    trending = Route.objects.get(path="/juejin/trending/:category/:type")

    words = context_words_load(
        namespaces={"douban", "juejin"},
        route_ids={playing.pk},
        paths=[("/juejin/trending/frontend/weekly", trending.pk)],
    )

    assert {"正在", "上映", "电影"} <= words  # 正在上映的电影, in words
    assert {"前端", "frontend"} <= words  # the setting the path took
    assert "后端" not in words, "a value the path did not take names nothing"
    assert reading("豆瓣正在上映的电影").topic(words).terms == ()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "question, namespace, path, route",
    [
        ("Newest questions on 编程导航", "codefather", "/codefather/questions",
         "/codefather/questions/:sort?"),
        ("Metacritic newest game releases", "metacritic", "/metacritic/game/new",
         "/metacritic/game/:sort?/:filter?"),
        ("X 上现在的热门趋势", "twitter", "/twitter/trends", "/twitter/trends/:woeid?"),
    ],
)  # fmt: skip
def test_the_words_a_routes_address_says_are_no_topic(question, namespace, path, route):
    """The literal words of a read path say which feed it is (questions, a game list), and so
    do the words of a kind of feed they name, in either language (trends: 趋势)."""
    read = Route.objects.get(path=route)

    words = context_words_load(namespaces={namespace}, route_ids={read.pk}, paths=[(path, read.pk)])

    assert reading(question).topic(words).terms == ()


@pytest.mark.django_db
def test_a_topic_beside_a_routes_own_words_is_still_the_topic():
    read = Route.objects.get(path="/codefather/questions/:sort?")
    words = context_words_load(
        namespaces={"codefather"}, route_ids={read.pk}, paths=[("/codefather/questions", read.pk)]
    )

    assert "questions" in words and "question" in words
    assert reading("Questions about kubernetes on 编程导航").topic(words).terms == ("kubernetes",)
    hn = context_words_load(namespaces={"hackernews"}, route_ids=set())
    assert reading("Hacker News 首页现在有什么").topic(hn).terms == ()  # a home page: no topic


# --- values listed by settings -------------------------------------------------------------------


def test_a_bare_list_in_parentheses_is_a_settings_values():
    assert inline_values("Period (week, month, year, infinity)") == [
        ("week", "week"),
        ("month", "month"),
        ("year", "year"),
        ("infinity", "infinity"),
    ]
    assert inline_values("a name (e.g. foo, bar)") == [], "words with spaces are no list"
    assert inline_values("the user (optional)") == []


@pytest.mark.django_db
def test_the_month_asked_for_fills_a_period_listed_in_parentheses():
    filled = params_fill(
        template="/dev.to/top/:period",
        parameters={"period": "Period (week, month, year, infinity)"},
        description="",
        example="/dev.to/top/week",
        question="dev.to top posts this month",
        platform_words=("dev.to", "DEV Community"),
        route_name="Top Posts",
    )

    assert filled.path == "/dev.to/top/month"


def test_markdown_escapes_in_a_table_are_undone():
    table = (
        "| 一周口碑电影榜 | 华语口碑剧集榜 |\n| --- | --- |\n| movie\\_weekly\\_best | tv\\_best |"
    )

    assert table_blocks(table) == [
        [("一周口碑电影榜", "movie_weekly_best"), ("华语口碑剧集榜", "tv_best")]
    ]


@pytest.mark.parametrize(
    "question", ["掘金本周最热的文章", "知乎最火的回答", "IT之家热榜", "What's hot on V2EX"]
)
def test_the_hottest_asks_for_a_trend(question):
    assert "trend" in intents_of(question)


# --- the kind a Chinese question names chooses the route -----------------------------------------


def test_a_forum_marker_chooses_the_route_of_a_forum():
    question = "百度贴吧 原神吧 的最新帖子"

    assert kind_said("帖子列表", "/baidu/tieba/forum/:kw/:sortBy?", question, {"kw": "吧名"}) == 1
    assert kind_said("用户帖子", "/baidu/tieba/user/:uid", question, {"uid": "用户 ID"}) == 0


def test_a_kind_said_in_both_languages_counts_once():
    question = "少数派用户 42 的文章"

    by_id = kind_said("收藏集", "/sspai/collections/:userId", question, {"userId": "用户标志"})
    posts = kind_said("用户文章", "/sspai/posts/:id", question, {"id": "用户 id"})

    assert by_id == posts == 1


def test_an_organization_in_chinese_chooses_the_route_of_an_organization():
    question = "kubernetes 组织在 GitHub 上的事件"

    assert kind_said("Organization Event", "/github/org_event/:org/:types?", question) == 1
    assert kind_said("User Activities", "/github/activity/:user", question) == 0


# --- the platform named as the place to read comes first -----------------------------------------


GITHUB = PlatformHit("github", "GitHub", 11.0, ("name 'github'",))
MICROSOFT = PlatformHit("microsoft", "Microsoft", 12.0, ("name 'microsoft'",))


@pytest.mark.parametrize(
    "question",
    [
        "microsoft 组织在 GitHub 上的最新事件",
        "GitHub 上 microsoft 组织的事件",
        "Events of the microsoft organization on GitHub",
    ],
)
def test_the_platform_named_as_the_place_comes_first(question):
    assert platforms_offline([MICROSOFT, GITHUB], question)[0] == ["github", "microsoft"]


def test_without_a_place_the_search_order_stands():
    assert platforms_offline([MICROSOFT, GITHUB], "microsoft github")[0] == [
        "microsoft",
        "github",
    ]
    assert not named_as_place(GITHUB, "GitHub 上海分部"), "上海 is a city, not 上"


# --- parameter filling reads the run's one reading -----------------------------------------------


@pytest.mark.django_db
def test_parameter_filling_reads_the_query_once_per_route():
    read = reading("Latest builds of the Docker image linuxserver/plex")
    words = ("dockerhub", "Docker Hub")
    excluded = route_words("/dockerhub/build/:owner/:image/:tag?", "Image New Build")

    asked = read.route_subjects(words, excluded)

    assert read.route_subjects(words, excluded) is asked
    assert ("linuxserver/plex", "pair") in {(e.value, e.kind) for e in asked.entities}
    filled = params_fill(
        template="/dockerhub/build/:owner/:image/:tag?",
        parameters={"owner": "Image owner", "image": "Image name", "tag": "Image tag"},
        description="",
        example="/dockerhub/build/diygod/rsshub/latest",
        question="(ignored: the reading is given)",
        asked=asked,
    )
    assert filled.path == "/dockerhub/build/linuxserver/plex"


# --- hostile input -------------------------------------------------------------------------------


@pytest.mark.parametrize("question", HOSTILE)
def test_hostile_input_is_read_by_every_rule_without_error(question):
    read = reading(question)
    asked = read.route_subjects(("github", "GitHub"), frozenset({"events"}))
    assert all(isinstance(e.value, str) for e in asked.entities)
    assert isinstance(read.topic({"github"}).terms, tuple)
    assert kind_said("Organization Event", "/github/org_event/:org", question, {"org": None}) >= 0
    assert isinstance(named_as_place(PlatformHit("c++", "C++ (.*)", 1.0), question), bool)
    assert isinstance(inline_values(question), list)
