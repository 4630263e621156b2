"""The seventh pass of issue 29's reading rules on questions that name no one they mean: the
asker's own or someone unnamed ("the repo I maintain", "a Twitch streamer's", 我关注的那个 UP
主, 我在追的那本书) is asked for, on a route taking that kind of subject, instead of reading a
feed of no one or searching the words around them. Against the real catalog snapshot, offline."""

import pytest

from tests.agent.test_agent_route_offline import route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "question",
    ["我关注的那个 B 站 UP 主这两天更新了吗", "某位 B 站 UP 主的最新视频"],
)
def test_an_unnamed_subject_is_asked_for_on_a_route_taking_its_kind(question):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == []
    assert [(n["parameter"], n["route"].split("/")[2]) for n in ctx.needs] == [("uid", "user")], (
        f"{question!r} asked {ctx.needs}: an UP 主 is a user, not a comic or a video"
    )


def test_an_unnamed_repositorys_discussions_wait_for_staff_on_their_own_route():
    # the one route serving discussions needs a token the instance lacks: the brief says so
    # instead of asking for a repository whose discussions could not be read anyway
    _chosen, ctx = route("Open discussions in our project's GitHub repository")

    assert ctx.paths == []
    assert [s["route"] for s in ctx.setup_needed] == [
        "/github/discussion/:user/:repo/:state?/:category?"
    ]


@pytest.mark.parametrize(
    "text, unnamed",
    [
        ("我在 GitHub 上 star 的项目", True),
        ("我昨天在 V2EX 发的那个帖子有人回复吗", True),
        ("我想看 V2EX 最热的帖子", False),
        ("我要看 GitHub 上最火的项目", False),
    ],
)
def test_the_askers_clause_may_hold_latin_words_but_a_wish_is_no_clause(text, unnamed):
    from agent.unnamed import subject_unnamed

    assert subject_unnamed(text) is unnamed


@pytest.mark.parametrize(
    "question, parameter",
    [
        # the words around an unnamed subject are never searched
        ("Ping me about new issues in the repo I maintain on GitHub.", "user"),
        ("我昨天在 V2EX 发的那个帖子有人回复吗\uff1f", "postid"),
        # the asker's own subject
        ("Can you watch for new versions of that npm package our app depends on?", "name"),
        ("has my favourite youtuber posted anything new?", "handle"),
        ("did the Chrome extension I rely on update?", "id"),
    ],
)
def test_an_unnamed_subject_is_asked_for_by_its_parameter(question, parameter):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == [], f"{question!r} read {ctx.paths}"
    assert ctx.needs and ctx.needs[0]["parameter"] == parameter, ctx.needs


@pytest.mark.parametrize(
    "question",
    [
        # a kind of subject or a word for feeds is no name
        "I want a feed of a Twitch streamer's stream schedule",
        "Make an RSS feed of my Trakt collection.",
        # nor is a kind of feed, or the asker's kind
        "Set up a feed of pull requests on my GitHub repo.",
        "update feed for the Chrome extension our team publishes",
        # a course, a user or a book the asker says which by a clause
        "Let me know about updates to a XuetangX course I'm taking.",
        "I want to follow a GamerSky user's activity \u2014 a friend of mine posts there.",
        "起点上我在追的那本书更新了没",
    ],
)
def test_a_subject_the_asker_says_which_by_a_clause_is_asked_for(question):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == [] and ctx.needs, f"{question!r} read {ctx.paths}"
