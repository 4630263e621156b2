"""Route search over the real catalog snapshot (tests/conftest.py imports it once per session)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import CircuitState, Platform, Route, UpstreamState
from catalog.search import (
    MAX_QUESTION_CHARS,
    SearchQuestionInvalid,
    platforms_named,
    routes_for_platforms,
    search_catalog,
)
from catalog.search_index import search_index_current, search_index_invalidate
from catalog.search_terms import ENTITY_WEIGHT, question_terms
from catalog.services import routes_set_enabled

ZHIHU_HOT = "/zhihu/hot/:category?"
ZHIHU_PIN_HOTLIST = "/zhihu/pin/hotlist"
KR36_NEWS = "/36kr/:category/:subCategory?/:keyword?"
KR36_HOT_LIST = "/36kr/hot-list/:category?"
WEIBO_HOT_SEARCH = "/weibo/search/hot/:fulltext?"  # imported disabled: needs a browser


@pytest.fixture(autouse=True)
def recheck_every_search(settings):
    """Check the catalog version on every search, as another process would after the interval.

    That also makes each test see its own world: an index built from an earlier test's
    rolled-back changes no longer matches the version.
    """
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 0


def top_namespace(question: str) -> str | None:
    platforms = search_catalog(question).platforms
    return platforms[0].namespace if platforms else None


def route_paths(question: str, **kwargs) -> list[str]:
    return [hit.path for hit in search_catalog(question, **kwargs).routes]


def platform_route_paths(namespaces: list[str], question: str) -> list[str]:
    return [hit.path for hit in routes_for_platforms(namespaces, question)]


# --- Relevance ----------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "namespace"),
    [
        ("36氪最近有什么值得注意的快讯", "36kr"),
        ("微博热搜榜现在有什么", "weibo"),
        ("知乎热榜上现在大家在讨论什么\uff1f", "zhihu"),
        ("B站今天有什么热门视频", "bilibili"),
        ("IT之家最新资讯", "ithome"),
        ("东方财富研报", "eastmoney"),
    ],
)
def test_it_finds_the_platform_a_chinese_question_names_without_spaces(question, namespace):
    assert top_namespace(question) == namespace, f"{question!r} should rank {namespace} first"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "namespace"),
    [
        ("What is on the Hacker News front page right now?", "hackernews"),
        ("V2EX hot topics", "v2ex"),
        ("Latest arXiv papers about diffusion models", "arxiv"),
        ("Apple newsroom press releases", "apple"),
        ("Epic Games free games this week", "epicgames"),
    ],
)
def test_it_finds_the_platform_an_english_question_names(question, namespace):
    assert top_namespace(question) == namespace, f"{question!r} should rank {namespace} first"


@pytest.mark.django_db
def test_it_ignores_case_in_english():
    lower = search_catalog("hacker news front page")
    upper = search_catalog("HACKER NEWS Front PAGE")
    assert lower.platforms[0].namespace == "hackernews"
    assert [(h.path, h.score) for h in upper.routes] == [(h.path, h.score) for h in lower.routes]


@pytest.mark.django_db
def test_it_does_not_let_question_words_name_a_platform():
    # "right" and "now" are namespaces too; "news" names Xinhua. Here they are plain words.
    result = search_catalog("BBC news right now, today", platform_limit=20)
    namespaces = [p.namespace for p in result.platforms]
    assert namespaces[0] == "bbc"
    assert not {"right", "now"} & set(namespaces), f"question words named platforms: {namespaces}"


@pytest.mark.django_db
def test_a_subject_value_names_no_platform_and_weighs_little():
    # rust-lang is no mention of the platform called Lang; vercel/next.js none of Next.js.
    assert top_namespace("Latest commits in the rust-lang/rust repository") == "github"
    assert top_namespace("Branches of the vercel/next.js repository") == "github"
    assert question_terms("rust-lang/rust commits")["rust"] == ENTITY_WEIGHT


@pytest.mark.django_db
def test_a_platform_named_as_whose_items_counts_less_than_the_one_read():
    assert top_namespace("Instagram posts of natgeo") == "instagram"
    assert top_namespace("News of BBC") == "bbc", "alone, it is still the platform asked"


@pytest.mark.django_db
def test_routes_the_questions_values_can_fill_are_not_held_back_by_their_parameters():
    # Two values (owner/name) fill the two required parameters of the branches route.
    paths = platform_route_paths(["github"], "Branches of the vercel/next.js repository")
    assert paths[0] == "/github/branches/:user/:repo"


@pytest.mark.django_db
def test_a_common_feed_word_matches_across_languages():
    # OpenAI's routes are named in English only; 新闻 still finds its news.
    assert platform_route_paths(["openai"], "新闻")[0] == "/openai/news"


@pytest.mark.django_db
def test_it_ranks_zhihu_hot_first_among_zhihu_routes_for_its_hot_list():
    paths = platform_route_paths(["zhihu"], "知乎热榜")
    assert paths[0] == ZHIHU_HOT, f"got {paths[:3]}"
    assert len(paths) > 10, "routes that match nothing still follow, as fallbacks"


@pytest.mark.django_db
def test_it_ranks_a_36kr_newsflash_route_first_for_快讯():
    paths = platform_route_paths(["36kr"], "快讯")
    assert paths[0] in (KR36_NEWS, KR36_HOT_LIST), f"got {paths}"
    assert paths[0] == KR36_NEWS, "its name lists 快讯: it should beat the hot list"


@pytest.mark.django_db
def test_it_ranks_the_named_platforms_route_first_in_the_overall_ranking():
    assert route_paths("知乎热榜上现在大家在讨论什么")[0] == ZHIHU_HOT


@pytest.mark.django_db
def test_it_returns_scores_best_first_within_the_limits():
    result = search_catalog("热榜", limit=7, platform_limit=3)
    assert len(result.routes) == 7 and len(result.platforms) == 3
    assert [h.score for h in result.routes] == sorted(
        (h.score for h in result.routes), reverse=True
    )
    assert all(h.score > 0 for h in result.routes)


@pytest.mark.django_db
def test_routes_for_an_unknown_platform_are_none():
    assert routes_for_platforms(["no-such-namespace"], "知乎热榜") == []


# --- Curation -----------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("alias", ["蓝莓小站", "Blueberry Hut"])
def test_it_finds_a_platform_by_an_alias_staff_added(alias):
    question = f"{alias}最近有什么新文章"
    assert top_namespace(question) != "solidot", "precondition: the alias names nothing yet"
    # A plain update, as a bulk admin action would do: updated_at does not move.
    Platform.objects.filter(namespace="solidot").update(aliases=["奇客", alias])
    assert top_namespace(question) == "solidot", "the index missed the new alias"


@pytest.mark.django_db
def test_it_notices_an_alias_replaced_by_one_as_long():
    assert Platform.objects.get(namespace="solidot").aliases == ["Solidot"]
    assert top_namespace("Qolidot headlines") != "solidot"
    Platform.objects.filter(namespace="solidot").update(aliases=["Qolidot"])
    assert top_namespace("Qolidot headlines") == "solidot", "an equal-length edit went unseen"


@pytest.mark.django_db
def test_it_never_returns_a_disabled_route():
    Route.objects.filter(path=ZHIHU_HOT).update(enabled=False)
    assert ZHIHU_HOT not in route_paths("知乎热榜", limit=50)
    assert ZHIHU_HOT not in platform_route_paths(["zhihu"], "知乎热榜")


@pytest.mark.django_db
def test_it_drops_a_route_disabled_after_the_index_was_built(settings):
    assert route_paths("知乎热榜")[0] == ZHIHU_HOT  # the index is current here
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 3600  # no version check: the index stays stale
    Route.objects.filter(path=ZHIHU_HOT).update(enabled=False)
    assert ZHIHU_HOT not in route_paths("知乎热榜", limit=50), "stale index leaked a disabled route"


@pytest.mark.django_db
def test_it_never_returns_a_disabled_platform_or_its_routes():
    Platform.objects.filter(namespace="zhihu").update(enabled=False)
    result = search_catalog("知乎热榜", limit=50, platform_limit=20)
    assert "zhihu" not in {p.namespace for p in result.platforms}
    assert "zhihu" not in {r.namespace for r in result.routes}
    assert routes_for_platforms(["zhihu"], "知乎热榜") == []


@pytest.mark.django_db
def test_a_platform_named_whose_routes_are_all_disabled_is_still_named():
    """Pixiv's routes are all imported disabled (nsfw): the search never finds it, but the
    question still names it (the agent then says it needs setting up)."""
    assert "pixiv" not in {p.namespace for p in search_catalog("Pixiv 画师 11").platforms}
    assert [n for n, _strength in platforms_named("Pixiv 画师 11 的新作品")] == ["pixiv"]
    assert platforms_named("rust-lang/rust releases") == [], "a subject value names no platform"
    assert platforms_named("   ") == []
    with pytest.raises(SearchQuestionInvalid):
        platforms_named("\x00" * 3)  # checked as a search's question is


@pytest.mark.django_db
def test_it_never_returns_a_route_removed_upstream():
    Route.objects.filter(path=ZHIHU_HOT).update(upstream_state=UpstreamState.REMOVED)
    assert ZHIHU_HOT not in route_paths("知乎热榜", limit=50)
    assert ZHIHU_HOT not in platform_route_paths(["zhihu"], "知乎热榜")


@pytest.mark.django_db
def test_it_never_returns_a_platform_removed_upstream(settings):
    search_catalog("知乎热榜")  # the index is current while zhihu is present
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 3600
    Platform.objects.filter(namespace="zhihu").update(upstream_state=UpstreamState.REMOVED)
    result = search_catalog("知乎热榜", limit=50, platform_limit=20)
    assert "zhihu" not in {p.namespace for p in result.platforms}
    assert "zhihu" not in {r.namespace for r in result.routes}


@pytest.mark.django_db
def test_it_offers_a_route_once_staff_enable_it():
    assert WEIBO_HOT_SEARCH not in route_paths("微博热搜榜", limit=50), "imported disabled"
    Route.objects.filter(path=WEIBO_HOT_SEARCH).update(enabled=True)
    assert route_paths("微博热搜榜")[0] == WEIBO_HOT_SEARCH


@pytest.mark.django_db
def test_a_stale_index_catches_up_when_invalidated(settings):
    search_catalog("微博热搜榜")
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 3600
    Route.objects.filter(path=WEIBO_HOT_SEARCH).update(enabled=True)
    search_index_invalidate()
    assert route_paths("微博热搜榜")[0] == WEIBO_HOT_SEARCH


@pytest.mark.django_db
def test_route_priority_lifts_a_route():
    assert platform_route_paths(["zhihu"], "知乎热榜")[:2] == [ZHIHU_HOT, ZHIHU_PIN_HOTLIST]
    Route.objects.filter(path=ZHIHU_PIN_HOTLIST).update(priority=5)
    assert platform_route_paths(["zhihu"], "知乎热榜")[0] == ZHIHU_PIN_HOTLIST
    assert route_paths("知乎热榜")[0] == ZHIHU_PIN_HOTLIST


@pytest.mark.django_db
def test_platform_priority_lifts_a_platform():
    third = search_catalog("快讯").platforms[2].namespace
    Platform.objects.filter(namespace=third).update(priority=5)
    assert search_catalog("快讯").platforms[0].namespace == third


@pytest.mark.django_db
def test_failing_health_lowers_a_route():
    Route.objects.filter(path=ZHIHU_HOT).update(attempts=20, successes=0, consecutive_failures=20)
    assert platform_route_paths(["zhihu"], "知乎热榜")[0] == ZHIHU_PIN_HOTLIST


@pytest.mark.django_db
def test_an_open_circuit_lowers_a_route_without_hiding_it():
    until = timezone.now() + timedelta(hours=1)
    Route.objects.filter(path=ZHIHU_HOT).update(circuit=CircuitState.OPEN, circuit_open_until=until)
    paths = platform_route_paths(["zhihu"], "知乎热榜")
    assert paths[0] == ZHIHU_PIN_HOTLIST
    assert ZHIHU_HOT in paths, "an open circuit lowers a route; it does not remove it"


@pytest.mark.django_db
def test_it_excludes_namespaces_and_routes_already_tried():
    hot = Route.objects.get(path=ZHIHU_HOT)
    by_path = route_paths("知乎热榜", exclude_routes=[ZHIHU_HOT], limit=50)
    by_id = route_paths("知乎热榜", exclude_routes=[hot.id], limit=50)
    assert ZHIHU_HOT not in by_path and ZHIHU_HOT not in by_id
    result = search_catalog("知乎热榜", exclude_namespaces=["zhihu"], limit=50)
    assert "zhihu" not in {p.namespace for p in result.platforms} | {
        r.namespace for r in result.routes
    }
    assert ZHIHU_HOT not in [h.path for h in routes_for_platforms(["zhihu"], "", exclude=[hot.id])]


# --- Keeping the index ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_staff_enabling_a_route_keeps_the_index_and_offers_the_route():
    index = search_index_current()
    weibo = Route.objects.get(path=WEIBO_HOT_SEARCH)
    assert routes_set_enabled(route_ids=[weibo.pk], enabled=True) == 1  # moves updated_at
    assert route_paths("微博热搜榜")[0] == WEIBO_HOT_SEARCH
    assert search_index_current() is index, "one route's curation rebuilt the whole index"


@pytest.mark.django_db
def test_a_route_whose_text_changed_rebuilds_the_index():
    index = search_index_current()
    Route.objects.filter(path=ZHIHU_PIN_HOTLIST).update(
        name="Quokkaboard of ideas", updated_at=timezone.now()
    )
    assert route_paths("quokkaboard")[:1] == [ZHIHU_PIN_HOTLIST]
    assert search_index_current() is not index


@pytest.mark.django_db
def test_an_alias_edit_rebuilds_the_index():
    index = search_index_current()
    Platform.objects.filter(namespace="zhihu").update(aliases=["Quokkahu"])  # updated_at kept
    assert top_namespace("Quokkahu 热榜") == "zhihu"
    assert search_index_current() is not index


# --- Cost ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_search_costs_one_query_whatever_the_question(settings, django_assert_num_queries):
    search_index_current()
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 3600
    for question in ("知乎热榜", "What is on the Hacker News front page?", "快讯"):
        with django_assert_num_queries(1):  # fresh curation and health of the candidates
            search_catalog(question)
    with django_assert_num_queries(1):
        routes_for_platforms(["zhihu", "bilibili"], "热门")


# --- Hostile input ------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "complaint"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("知" * (MAX_QUESTION_CHARS + 1), "at most"),
        ("知乎\x00热榜", "control character"),
        ("hot\x1b[31m", "control character"),
        ("bad \ud800 surrogate", "control character"),
        (None, "must be text"),
    ],
)
def test_it_refuses_an_unsearchable_question(question, complaint):
    with pytest.raises(SearchQuestionInvalid, match=complaint):
        search_catalog(question)


def ranking(question: str) -> tuple[list[str], list[str]]:
    result = search_catalog(question)
    return [p.namespace for p in result.platforms], [r.path for r in result.routes]


# Each hostile question, and the plain one it must answer exactly like ("" = nothing at all):
# the metacharacters are inert text, the words still count.
HOSTILE_QUESTIONS = {
    "punctuation only": ("?!?。\uff0c、……——", ""),
    "sql comment": ("'; DROP TABLE catalog_route; --", "DROP TABLE catalog_route"),
    "sql union": (
        "知乎 OR 1=1 /* */ UNION SELECT * FROM auth_user",
        "知乎 OR 1=1 UNION SELECT FROM auth_user",
    ),
    "regex": (".*[(+?{\\1}$^|)", ""),
    "zero-width": ("\u200b\ufeff", ""),
    "the longest question": ("知乎" * (MAX_QUESTION_CHARS // 2), "知乎"),
    "emoji": ("🔥🔥🔥 热榜 🚀", "热榜"),
}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "plain"), HOSTILE_QUESTIONS.values(), ids=HOSTILE_QUESTIONS.keys()
)
def test_it_searches_hostile_text_as_plain_text(question, plain):
    platforms, routes = ranking(question)
    if plain:
        assert (platforms, routes) == ranking(plain)
        assert platforms and routes, "the words of the question still find something"
    else:
        assert (platforms, routes) == ([], [])
    assert Route.objects.count() == 3905, "the catalog must be untouched"


@pytest.mark.django_db
def test_a_named_platform_leads_despite_an_injection_tail():
    platforms, routes = ranking("知乎 OR 1=1 /* */ UNION SELECT * FROM auth_user")
    assert platforms[0] == "zhihu"
    assert routes[0].startswith("/zhihu/")


@pytest.mark.django_db
def test_an_empty_catalog_finds_nothing():
    Route.objects.all().delete()
    Platform.objects.all().delete()
    result = search_catalog("知乎热榜")
    assert result.platforms == [] and result.routes == []
    assert routes_for_platforms(["zhihu"], "知乎热榜") == []


@pytest.mark.django_db
def test_only_punctuation_matches_nothing():
    result = search_catalog("?!?。\uff0c、")
    assert result.platforms == [] and result.routes == []
