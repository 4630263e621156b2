"""Reading a question's subject and intent (issue 29's failures, as behaviours, in other
wordings too): filler never becomes a subject, a question naming none asks for one, a handle
stays whole, the kind of feed asked for chooses among a platform's routes, and a platform the
question names is never swapped for another. Against the real catalog snapshot, offline."""

import pytest

from agent.platform import platforms_offline
from agent.routes.entities import question_read
from agent.vocabulary import filler_en, intents_of
from catalog.search import MAX_QUESTION_CHARS, PlatformHit
from tests.agent.test_agent_route_offline import route

pytestmark = pytest.mark.django_db


def values(question: str, platform: tuple[str, ...] = ()) -> list[str]:
    asked = question_read(question, platform_words=platform, excluded=())
    return [e.value for e in asked.entities]


@pytest.mark.parametrize(
    "question",
    [
        "Latest GitHub issues of the repo I care about",
        "Issues someone opened on the repo my company maintains on GitHub",
        "Latest Docker Hub tags for the image I use",
        "New tags for the Docker image my team deploys",
        "我们团队用的 Docker 镜像有新标签吗",
        "某个 GitHub 用户最近的动态",
        "这个 GitHub 用户最近的动态",
        "那个知乎用户最近的回答",
        "Mastodon posts from somebody I follow",
        "Hugging Face models from an organization I watch",
        "某位 B 站 UP 主的最新视频",  # someone is meant: no partition's feed stands in for them
        "某个 B站 up主 最近发的视频",
    ],
)
def test_a_question_naming_no_subject_asks_for_one(question):
    chosen, ctx = route(question)

    assert ctx.paths == [], f"{question!r} read {ctx.paths} with a subject it never named"
    assert chosen is False and ctx.needs, f"{question!r} should ask for its subject"


@pytest.mark.parametrize(
    "question, asked",
    [
        ("Latest GitHub issues of the repo I care about", [("GitHub", "user"), ("GitHub", "repo")]),
        ("某个 GitHub 用户最近的动态", [("GitHub", "user")]),
    ],
)
def test_it_asks_only_what_the_best_route_of_the_platform_lacks(question, asked):
    """Not also the keyword a search route of the same platform would have taken: a reader
    asked for a repository is not made to type a search term too."""
    _chosen, ctx = route(question)

    assert [(n["source"], n["parameter"]) for n in ctx.needs] == asked


@pytest.mark.parametrize(
    "question, word",
    [
        ("the repo I care about", "care"),
        ("the image I use", "use"),
        ("the image my team deploys", "team"),
        ("from someone I follow", "follow"),
        ("某个用户的动态", "某个"),
        ("这个用户的动态", "这个"),
        ("某位 UP 主的最新投稿", "投稿"),
    ],
)
def test_filler_and_indefinite_words_are_never_subject_values(question, word):
    assert word not in values(question), f"{word!r} was taken as the subject of {question!r}"


@pytest.mark.parametrize(
    "question, path",
    [
        ("What's new in the golang organization's events on GitHub", "/github/org_event/golang"),
        ("Events of the kubernetes organization\u2019s GitHub", "/github/org_event/kubernetes"),
        ("antirez's repositories on GitHub", "/github/repos/antirez"),
    ],
)
def test_a_possessive_s_is_never_a_value(question, path):
    chosen, ctx = route(question)

    assert chosen is True and ctx.paths[0][0] == path


@pytest.mark.parametrize(
    "question, handle",
    [
        ("Recent Mastodon statuses from Gargron@mastodon.social", "Gargron@mastodon.social"),
        ("Toots by @dansup@pixelfed.social", "dansup@pixelfed.social"),
        ("Mastodon 用户 ProPublica@newsie.social 的嘟文", "ProPublica@newsie.social"),
    ],
)
def test_a_fediverse_handle_is_kept_whole(question, handle):
    found = values(question, ("mastodon",))

    assert handle in found and handle.split("@")[0] not in found


def test_a_scoped_package_keeps_its_scope():
    assert "@vue/compiler-sfc" in values("npm 上 @vue/compiler-sfc 这个包的新版本", ("npm",))


def test_the_words_of_a_platform_name_are_no_subject():
    found = values("Hugging Face 上 deepseek-ai 发布的模型", ("huggingface", "Huggingface"))
    assert found == ["deepseek-ai"]
    assert "Docker" not in values("Docker 镜像 nginx 的标签", ("dockerhub", "Docker Hub"))


@pytest.mark.parametrize(
    "question, path",
    [
        ("Gitee 上 dromara/hutool 的最新发行版", "/gitee/releases/dromara/hutool"),
        (
            "Which versions did dromara/Sa-Token put out on Gitee?",
            "/gitee/releases/dromara/Sa-Token",
        ),
        ("Gitee 仓库 dromara/hutool 的提交", "/gitee/commits/dromara/hutool"),
        ("GitHub 上 denoland/deno 仓库的议题", "/github/issue/denoland/deno"),
        ("Bilibili uploader 946974's favourites folder", "/bilibili/user/fav/946974"),
        ("postgres 官方镜像在 Docker Hub 上的新标签", "/dockerhub/tag/library/postgres"),
        (
            "New builds of the jenkins/jenkins image on Docker Hub",
            "/dockerhub/build/jenkins/jenkins",
        ),
    ],
)
def test_the_kind_of_feed_asked_for_chooses_among_a_platforms_routes(question, path):
    chosen, ctx = route(question)

    assert chosen is True and ctx.paths[0][0].rstrip("/").startswith(path), ctx.paths


def test_intents_are_read_in_both_languages_from_whole_words():
    assert intents_of("最新发行版") == intents_of("new releases") == {"release"}
    assert intents_of("讨论区") == intents_of("discussions") == {"discussion"}
    assert "pull" not in intents_of("pullover sweaters"), "a word's start is not the word"
    assert intents_of("") == frozenset()


def test_a_platform_the_question_names_is_not_swapped_for_another():
    named = PlatformHit("huggingface", "Huggingface", 10.0, ("name 'hugging face'",))
    other = PlatformHit("amazfitwatchfaces", "Amazfit", 9.0, ("route 'Watch faces'",))

    assert platforms_offline([named, other])[0] == ["huggingface"]
    # the search ranked another first: it is read too, but after the platform named
    assert platforms_offline([other, named])[0] == ["huggingface", "amazfitwatchfaces"]


@pytest.mark.parametrize(
    "question",
    [
        "",
        "   ",
        "\u200b\u200d\u202e GitHub \ufeff",
        "🦀" * 50 + " GitHub user",
        "".join(chr(ord(c) + 0xFEE0) if c != " " else "\u3000" for c in "Github user torvalds"),
        "repo " + "a/b@c.d " * (MAX_QUESTION_CHARS // 8),
        "用户" * (MAX_QUESTION_CHARS // 2),
        "@" * 200 + "/" * 200,
    ],
)
def test_hostile_questions_are_read_without_error(question):
    asked = question_read(question, platform_words=("github",), excluded=())

    assert all(e.value and len(e.value) <= len(question) for e in asked.entities)
    assert isinstance(intents_of(question), frozenset)


def test_filler_is_one_vocabulary_in_both_languages():
    for word in ("care", "use", "team", "my", "someone", "organization", "releases"):
        assert filler_en(word), f"{word!r} should be filler"
    for word in ("golang", "torvalds", "nginx"):
        assert not filler_en(word), f"{word!r} is a name"


def test_a_platform_name_parted_by_a_space_is_blanked_whole():
    # "B 站" is B站: its "B" is no subject to search for
    assert "B" not in values("某位 B 站 UP 主的最新视频", ("bilibili", "B站", "哔哩哔哩"))
    assert values("B 站 UP 主 946974 的投稿", ("bilibili", "B站")) == ["946974"]


def test_a_name_after_a_kind_and_an_auxiliary_is_the_subject():
    assert values("Which repositories has antirez starred on GitHub?", ("github",)) == ["antirez"]
    assert "repositories" not in values("Which repositories has anyone starred?", ("github",))


@pytest.mark.parametrize(
    "question",
    [
        "\x00\x07\x1b[31m GitHub user \x7f torvalds \r\n",
        "?!。，、…—" * 40,  # noqa: RUF001
        "GitHub 用户 torvalds 和 gvanrossum 的 activity 以及 Linux 内核",
        "x" * MAX_QUESTION_CHARS,
    ],
)
def test_control_characters_punctuation_and_mixed_scripts_are_read(question):
    asked = question_read(question, platform_words=("github", "GitHub"), excluded=())

    assert all(e.value.strip() and "\x00" not in e.value for e in asked.entities)
    if "torvalds" in question:
        assert "torvalds" in [e.value for e in asked.entities]
