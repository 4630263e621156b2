"""The fifth pass of issue 29's reading rules, one behaviour each: a word said in passing names an
optional setting's value only when the question asks for that very word; "front page" names the
site's home, not a value "front"; a label in parentheses after a backticked value is read; a name
too short for the search ("X") names its platform when said as the place to read. (Platforms
whose routes all wait for staff: tests/agent/test_agent_setup.py.) Hostile input is read without
error."""

from types import SimpleNamespace

import pytest

from agent.platform import named_short
from agent.routes.enums import asked_for, option_named
from agent.routes.listed import inline_values
from agent.routes.named import kind_said
from agent.routes.params import params_fill
from catalog.search import PlatformHit

pytestmark = pytest.mark.django_db  # parameter filling reads the database

HN = {
    "section": {
        "description": "Content section, default to `index`. Common sections: `index`, `newest`,"
        " `ask`, `show`, `jobs`, `over`, `threads`, `submitted`. Any valid HN section (e.g."
        " `best`, `front`, `active`) is also accepted"
    },
    "type": {
        "description": "Content format, default to `sources`. `sources` links to originals,"
        " `comments` fetches full comment threads, `comments_list` shows parent story"
    },
    "value": {"description": "For `threads`/`submitted` sections, set user ID."},
}
SECTIONS = inline_values(HN["section"]["description"])

HOSTILE = [
    "",
    "   ",
    "\x00\x07\x1b[2J\u202e\u200b",
    "what's " * 400 + "new",
    "front page " * 300,
    "`a`\uff08" * 200,
    "Ünïcödé 🙂 newest //// 上上上 `new`(最新",
]


def hn(question: str) -> str:
    return params_fill(
        template="/hackernews/:section?/:type?/:value?",
        parameters=HN,
        description="",
        example="/hackernews/threads/comments_list/dang",
        question=question,
        platform_words=("hackernews", "Hacker News"),
        route_name="Stories",
    ).path


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("Newest stories on Hacker News", "/hackernews/newest"),
        ("Hacker News newest stories about Rust", "/hackernews/newest"),
        ("What's new on Hacker News?", "/hackernews"),
        ("Anything new on Hacker News today?", "/hackernews"),
        ("Latest news on Hacker News", "/hackernews"),
        ("Show HN: the newest ones", "/hackernews/show"),
    ],
)
def test_a_passing_word_names_a_value_only_when_asked_for_itself(question, path):
    assert hn(question) == path


def test_asked_for_reads_whole_words_and_not_what_is_said_in_passing():
    assert asked_for("newest", "the NEWEST posts")
    assert not asked_for("new", "the newest posts"), "a word inside another is not said"
    assert not asked_for("new", "what's new here")
    assert asked_for("new", "what's new here, and the new queue"), "the second is asked for"


@pytest.mark.parametrize(
    "question", ["What's on the Hacker News front page?", "the Hacker News home-page"]
)
def test_the_front_page_is_the_sites_home_not_a_value_front(question):
    assert option_named(question, SECTIONS, loose=False) is None
    assert hn(question) == "/hackernews"


def test_a_value_named_for_the_front_page_is_still_chosen():
    choices = [("frontpage", "frontpage"), ("new", "new")]
    assert option_named("the front page of Lobsters", choices, loose=False) == "frontpage"


def test_a_label_in_parentheses_after_a_backticked_value_is_read():
    listed = inline_values(
        "排序方式\uff0c可选 `new`\uff08最新\uff09、`hot`\uff08热门\uff09\uff0c默认为 `new`"
    )
    assert ("热门", "hot") in listed and ("new", "new") in listed
    assert option_named("编程导航最热门的问答", listed, loose=False) == "hot"
    assert option_named("编程导航最新的问答", listed, loose=False) is None, "最新 is in passing"


@pytest.mark.parametrize("question", HOSTILE)
def test_hostile_input_is_read_without_error(question):
    assert isinstance(inline_values(question), list)
    assert option_named(question, SECTIONS, loose=False) in {None, *(v for _l, v in SECTIONS)}
    assert isinstance(asked_for("new", question), bool)
    assert hn(question).startswith("/hackernews")
    assert isinstance(short_named(question), list)
    assert kind_said("Image New Build", "/dockerhub/build/:owner/:image", question) >= 0


def short_named(question: str, candidates=()) -> list[str]:
    ctx = SimpleNamespace(rewrite=SimpleNamespace(query=question), tried_namespaces=set())
    return named_short(ctx, list(candidates))


@pytest.mark.parametrize(
    "question", ["What's trending on X right now?", "X 上现在的热门趋势", "在 X 看到的趋势"]
)
def test_a_one_letter_name_said_as_the_place_names_its_platform(question):
    assert short_named(question)[:1] == ["twitter"], "the larger of the two X (Twitter) first"


@pytest.mark.parametrize(
    "question",
    ["Version X of the spec", "what's trending on x", "on X.org", "X-ray news", "上海 X 光", ""],
)
def test_a_one_letter_word_elsewhere_names_no_platform(question):
    assert short_named(question) == []


def test_a_platform_the_search_found_by_name_stands():
    named_hit = PlatformHit("github", "GitHub", 9.0, ("name GitHub",))
    assert short_named("GitHub trending on X", [named_hit]) == []


def test_of_two_chinese_kind_nouns_in_a_row_the_last_is_asked_for():
    question = "Docker Hub 上 bitnami 发布的镜像仓库"
    repositories = kind_said("Owner Repositories", "/dockerhub/repositories/:owner", question)
    builds = kind_said("Image New Build", "/dockerhub/build/:owner/:image/:tag?", question)
    assert (repositories, builds) == (1, 0)
    assert kind_said("Image New Build", "/dockerhub/build/:owner/:image", "bitnami 的镜像") == 1
    assert kind_said("Image", "/x/:image", "镜像仓库 和 镜像") == 1, "said alone later: asked for"
