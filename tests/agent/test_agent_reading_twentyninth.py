"""The twenty-ninth pass of issue 29's reading rules. Against the real catalog snapshot where
a route is named, offline."""

import pytest

from agent.routes.entities import Entity
from agent.routes.queries import fielded_fill
from agent.routes.slots import Slot
from agent.routes.suits import fit_of
from agent.unnamed import subject_unnamed
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "question",
    [
        "What has my coworker pushed on GitHub lately?",
        "my roommate's latest GitHub activity",
        "想在 arXiv 上订阅一个我关心的关键词\uff0c有新论文就提醒我",
        "我常搜的检索词在 arXiv 上有新论文吗",
        "any new versions of the huggingface model my team trained?",
        "steam 上我愿望单里那款游戏降价了吗",
    ],
)
def test_one_of_the_askers_circle_or_a_search_of_theirs_is_asked_for(question):
    chosen, ctx = route(question)

    assert subject_unnamed(question)
    assert chosen is False and ctx.paths == [], f"read {ctx.paths}"
    assert ctx.needs, "it should ask whose feed, or what to search for"


def test_a_friend_who_names_the_user_still_reads_the_user():
    question = "my friend recommended the user Torvalds on GitHub, show his activity"

    assert first_path(question) == "/github/activity/Torvalds"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "知乎用户 9f2b7c1d4e5a6b7c8d9e0f1a2b3c4d5e 最近有什么新回答",
            "/zhihu/xhu/people/answers/9f2b7c1d4e5a6b7c8d9e0f1a2b3c4d5e",
        ),
        (
            "Did gist 7a1e0c5b93f24d68ab01 change lately?",
            "/github/gist/7a1e0c5b93f24d68ab01",
        ),
    ],
)
def test_a_long_hexadecimal_id_suits_a_parameter_whose_example_is_one(question, path):
    assert first_path(question) == path


def test_an_id_of_the_examples_letters_suits_and_another_kind_does_not():
    slot = Slot("id", "", False, "网易号 ID", [], "W4983108759592548559", None, True, ())

    assert fit_of(Entity("W8126954401234567890", "id"), slot) == 1
    assert fit_of(Entity("T1555591616739", "id"), slot) == -1


def test_an_id_with_no_prefix_of_its_kind_differs_without_being_another_kind():
    slot = Slot("topic", "", False, "The topic ID", [], "ckr7mn6r003t", None, True, ())

    assert fit_of(Entity("cq8nqywy37yt", "id"), slot) == 0


def test_a_topic_known_by_its_id_takes_the_id_not_the_questions_words():
    question = "BBC 中文网话题 cx2d8m4pq7wt 的新闻\uff0c简体的"

    assert first_path(question) == "/bbc/zhongwen/topics/cx2d8m4pq7wt/simp"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("rss for new arxiv papers by author LeCun", "/arxiv/search_query=au:LeCun"),
        ("arxiv papers with 'kolmogorov' in the title", "/arxiv/search_query=ti:kolmogorov"),
        ("new arxiv papers mentioning perovskite", "/arxiv/search_query=all:perovskite"),
        ("arxiv 上标题里有 diffusion 的最新论文", "/arxiv/search_query=ti:diffusion"),
        ("Any new arXiv papers in math.AG this week?", "/arxiv/search_query=cat:math.AG"),
        (
            "latest arxiv papers in stat.ML, sorted by submission date",
            "/arxiv/search_query=cat:stat.ML&sortBy=submittedDate&sortOrder=descending",
        ),
        (
            "arXiv feed of the cs.RO category, 25 results at a time",
            "/arxiv/search_query=cat:cs.RO&max_results=25",
        ),
        (
            "arxiv search_query=au:bengio&sortBy=submittedDate",
            "/arxiv/search_query=au:bengio&sortBy=submittedDate",
        ),
    ],
)
def test_a_search_is_written_in_the_sites_query_language(question, path):
    assert first_path(question) == path


def test_a_query_not_written_field_colon_term_is_left_as_read():
    slot = Slot("query", "", False, "query", [], "data+visualization", None, True, ())
    values = {"query": "graph neural networks"}

    fielded_fill([slot], "graph neural networks", values, {})

    assert values == {"query": "graph neural networks"}


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "notify me when a new build of the official mysql:8.4 image is out on Docker Hub",
            "/dockerhub/build/library/mysql/8.4",
        ),
        ("docker hub 上 redis 7.2-alpine 有新构建吗", "/dockerhub/build/library/redis/7.2-alpine"),
        ("new builds of bitnami/redis:7.4 on docker hub", "/dockerhub/build/bitnami/redis/7.4"),
    ],
)
def test_an_image_and_its_tag_written_together_fill_both(question, path):
    assert first_path(question) == path


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("v2ex jobs tab latest topics", "/v2ex/tab/jobs"),
        ("notify me when the telegram sticker pack SunnyOtter gets new stickers", None),
    ],
)
def test_a_name_said_by_the_routes_kind_fills_it(question, path):
    expected = path or "/telegram/stickerpack/SunnyOtter"

    assert first_path(question) == expected


def test_a_lower_case_word_after_the_kind_is_no_name():
    chosen, ctx = route("notify me when the telegram sticker pack gets new stickers")

    assert chosen is False and ctx.needs, f"read {ctx.paths}"


def test_a_search_joined_as_the_example_joins_it_drops_the_word_for_results():
    question = "Notify me of new Google Scholar hits for protein folding"

    assert first_path(question) == "/google/scholar/protein+folding"


def test_the_international_edition_said_reads_its_route():
    assert first_path("taptap国际服 游戏 135790 最新的玩家评价").startswith(
        "/taptap/intl/review/135790"
    )
    assert first_path("taptap 游戏 135790 的玩家评价") == "/taptap/review/135790"


def test_a_route_taking_a_keyed_value_and_saying_more_beats_one_listing_it():
    question = "哔哩哔哩 分区 tid 17 最近 7 天的视频排行榜"

    assert first_path(question).startswith("/bilibili/partion/ranking/17")


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("gvanrossum github activity", "/github/activity/gvanrossum"),
        ("antfu github stars", "/github/starred_repos/antfu"),
    ],
)
def test_a_lower_case_handle_opening_the_question_before_the_platform_is_whose(question, path):
    assert first_path(question) == path


def test_a_word_for_items_opening_the_question_is_no_handle():
    chosen, ctx = route("latest github activity")

    assert chosen is False and ctx.needs, f"read {ctx.paths}"


@pytest.mark.parametrize(
    "question",
    [
        "那个雪球大V最近说了啥",
        "the huggingface model my lab fine-tuned, any updates",
    ],
)
def test_that_one_of_a_kind_or_the_askers_own_is_asked_for(question):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == [], f"read {ctx.paths}"
    assert ctx.needs
