"""The sixth pass of issue 29's reading rules, one behaviour each: a kind of subject that the
asker's own clause or possessive says which ("the channel I follow", "our project's repository",
"我关注的频道") is someone unnamed, so the run asks instead of reading a feed of no one; a
question that only passes by the asker ("what should I read") is not. Against the real catalog
snapshot, offline."""

from urllib.parse import unquote

import pytest

from agent.question import keywords_of
from agent.routes.entities import question_read
from agent.summary.subject import subject_of, topic_of
from agent.unnamed import subject_unnamed
from catalog.search import platforms_named
from tests.agent.test_agent_route_offline import route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "question",
    [
        "Posts from a Telegram channel I follow",
        "New videos from a YouTube channel I like",
        "Steam news for the game I play",
        "Open discussions in our project's GitHub repository",
        "The Telegram channel my friend runs",
        "Latest uploads of my favourite YouTube channel",
        "我关注的频道的最新消息",
        "朋友运营的 Telegram 频道",
        "我常玩的游戏有什么新闻",
    ],
)
def test_a_kind_of_subject_the_asker_says_which_is_unnamed(question):
    assert subject_unnamed(question)


@pytest.mark.parametrize(
    "question",
    [
        "What should I read on Hacker News today",
        "GitHub trending repos this week",
        "torvalds/linux commits I missed",
        "What is the top game on Steam you recommend",
        "Which project should I watch",
        "帮我看看微博热搜的用户",
        "给我看看 36氪的快讯",
    ],
)
def test_a_question_that_only_passes_by_the_asker_names_someone(question):
    assert not subject_unnamed(question)


@pytest.mark.parametrize(
    "question",
    [
        "Posts from a Telegram channel I follow",
        "Steam news for the game I play",
        "Open issues in our project's GitHub repository",
        "朋友运营的 Telegram 频道",
    ],
)
def test_a_question_meaning_an_unnamed_subject_asks_instead_of_reading_a_feed_of_no_one(question):
    chosen, ctx = route(question)

    assert ctx.paths == [], f"{question!r} read {ctx.paths}, a feed of no one in particular"
    assert chosen is False and ctx.needs, f"{question!r} should ask which one is meant"


def test_a_head_question_still_reads_its_feed():
    _chosen, ctx = route("What's trending on bilibili right now?")

    assert [path for path, _ in ctx.paths][:1] == ["/bilibili/hot-search"]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("The English blog of Hugging Face", "/huggingface/blog"),
        ("Hugging Face 的中文博客", "/huggingface/blog-zh"),
    ],
)
def test_the_language_asked_for_chooses_among_a_sites_feeds_per_language(question, path):
    """/huggingface/blog is named 英文博客 and /huggingface/blog-zh 中文博客: "English" and 中文
    are read across languages, as any other kind of feed."""
    _chosen, ctx = route(question)

    assert [p for p, _ in ctx.paths][:1] == [path]


def test_a_platform_named_by_a_common_word_does_not_stand_in_for_one_named_plainly():
    """ "I follow" says the reader called Follow's name too, more weakly than Pixiv's: the run
    is about Pixiv, whose routes all wait for staff, so it ends needing setup there."""
    _chosen, ctx = route("New works from a Pixiv artist I follow")

    assert ctx.platforms == ["pixiv"]
    assert ctx.paths == []
    assert [s["route"].split("/")[1] for s in ctx.setup_needed] == ["pixiv"]


CONTEXT = {"36kr", "36氪", "快讯", "newsflashes", "producthunt", "product", "hunt", "today"}


@pytest.mark.parametrize(
    "question",
    [
        "What launched on Product Hunt today?",
        "today's Product Hunt",
        "any new 36kr newsflashes announced?",
        "36kr newsflashes published lately",
        "36氪快讯最新的几条",
        "36氪这两天的快讯怎么样",
    ],
)
def test_how_a_question_is_put_is_no_topic(question):
    """A verb's past form, a possessive time word, a count of items and a span of time say what
    happened or how many, not what the items are about: such a question is never off topic."""
    topics = topic_of(question, CONTEXT)
    assert subject_of(keywords_of(question), CONTEXT, topics=topics).terms == ()


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("36kr newsflashes about Red Hat", ("Red", "Hat")),
        ("36kr newsflashes on speed cameras", ("speed", "cameras")),
        ("36氪关于小米汽车的几条快讯", ("小米", "汽车")),
    ],
)
def test_a_topic_beside_such_words_stays(question, terms):
    topics = topic_of(question, CONTEXT)
    assert subject_of(keywords_of(question), CONTEXT, topics=topics).terms == terms


def test_a_span_of_time_after_a_name_marker_names_no_one():
    asked = question_read("UP 主这两天的投稿", platform_words=("bilibili",), excluded=())
    assert "这两天" not in [e.value for e in asked.entities]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("tokio-rs/tokio 的贡献者都有谁", "/github/contributors/tokio-rs/tokio"),
        ("BV1GJ411x7h7 评论区最新的评论", "/bilibili/video/reply/BV1GJ411x7h7"),
        ("码云上 openharmony/docs 这个仓库最近都提交了些什么", "/gitee/commits/openharmony/docs"),
    ],
)
def test_a_value_whose_form_is_one_platforms_is_read_there_when_no_platform_is_named(
    question, path
):
    """An owner/repo pair is a GitHub repository unless another forge is named (码云 is
    Gitee); a BV id is a bilibili video. The search's candidates for the other words (贡献者,
    评论区) are any site's."""
    _chosen, ctx = route(question)

    assert [p for p, _ in ctx.paths][:1] == [path]


@pytest.mark.parametrize("question", ["AI/ML news on Hacker News", "TCP/IP 的最新消息"])
def test_two_short_words_with_a_slash_are_no_repository(question):
    _chosen, ctx = route(question)

    assert "github" not in ctx.platforms


def test_a_platform_named_by_a_common_word_of_the_feed_asked_for_is_not_read_too():
    """ "daily papers" is Hugging Face's feed; the platforms named Papers and Daily are named
    only by its common words, more weakly: the topic (diffusion models) is looked for in Hugging
    Face's papers, not searched for on another site."""
    _chosen, ctx = route("Hugging Face daily papers about diffusion models")

    assert ctx.platforms == ["huggingface"]
    assert [p for p, _ in ctx.paths][:1] == ["/huggingface/daily-papers"]


@pytest.mark.parametrize(
    "question", ["Anything on V2EX lately about Cursor?", "V2EX 上关于 Cursor 的讨论"]
)
def test_a_platform_named_after_about_is_the_topic_not_the_place(question):
    strengths = dict(platforms_named(question))

    assert strengths["cursor"] < strengths["v2ex"] / 2, strengths


@pytest.mark.parametrize(
    "question", ["What's @pfrazee.com been posting on Bluesky?", "Bluesky 上 @jay.bsky.team 的帖子"]
)
def test_an_at_handle_that_is_a_domain_is_a_profile_not_a_search(question):
    """Bluesky handles are domains: the profile route (its example a domain, bsky.app) takes
    the @handle as the account it is, not the keyword search as something to look for."""
    _chosen, ctx = route(question)

    first = ctx.paths[0][0] if ctx.paths else None
    assert first is not None and first.startswith("/bsky/profile/"), ctx.paths


def test_of_routes_the_search_scores_alike_the_one_whose_name_asks_least_is_read():
    """ "ChatGPT - Release Notes" and "ChatGPT Atlas - Release Notes" say the question's words
    alike; the second also asks for Atlas, which the question does not name."""
    _chosen, ctx = route("ChatGPT release notes, anything new this week?")

    assert [p for p, _ in ctx.paths][:1] == ["/openai/chatgpt/release-notes"]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "new versions of org.springframework.boot:spring-boot on Maven Central",
            "/maven/central/org.springframework.boot/spring-boot",
        ),
        ("Maven 上 com.google.guava:guava 的新版本", "/maven/central/com.google.guava/guava"),
    ],
)
def test_a_maven_coordinate_fills_a_group_and_an_artifact(question, path):
    _chosen, ctx = route(question)

    assert [p for p, _ in ctx.paths][:1] == [path]


def test_a_time_of_day_is_no_coordinate():
    asked = question_read("news at 12:30 on example.com", platform_words=(), excluded=())
    assert not [e for e in asked.entities if e.kind == "pair"]


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "did the uBlock Origin Firefox add-on (ublock-origin) get an update?",
            "/firefox/addons/ublock-origin",
        ),
        (
            "new versions of the Iris shaders mod on Modrinth (slug: iris)",
            "/modrinth/project/iris/versions",
        ),
        ("Baldur's Gate 3 (app 1086940): any Steam news?", "/steam/news/1086940"),
    ],
)
def test_a_value_in_parentheses_after_what_it_names_is_taken_whole(question, path):
    _chosen, ctx = route(question)

    assert [p for p, _ in ctx.paths][:1] == [path]


@pytest.mark.parametrize(
    "question", ["Hacker News front page (see above)", "GitHub trending (2024)"]
)
def test_words_or_a_year_in_parentheses_name_no_value(question):
    asked = question_read(question, platform_words=(), excluded=())
    assert not [e for e in asked.entities if e.kind == "quoted"], asked.entities


@pytest.mark.parametrize(
    "question", ["Twitter 用户 elonmusk 最新推文", "latest posts by @sama on X"]
)
def test_a_named_user_whose_plain_feed_waits_for_staff_needs_setup_not_another_value(question):
    """The readable route about tweets reads one tweet and asks for its id; the user's own
    timeline waits for staff. Asking the reader for a tweet id answers nothing they asked."""
    _chosen, ctx = route(question)

    assert ctx.needs == [], ctx.needs
    assert [s["route"] for s in ctx.setup_needed] == ["/twitter/user/:id/:routeParams?"]


def test_a_lone_letter_beside_chinese_is_no_name():
    asked = question_read("那个雪球大V的最新动态", platform_words=("xueqiu", "雪球"), excluded=())
    assert "V" not in [e.value for e in asked.entities]


def test_a_parameters_name_as_a_past_form_marks_its_value():
    _chosen, ctx = route("closed issues labelled bug in microsoft/vscode")

    assert [p for p, _ in ctx.paths][:1] == ["/github/issue/microsoft/vscode/closed/bug"]


def test_a_preposition_and_a_word_of_relation_are_no_topic():
    context = {"jin10", "金十", "快讯"}
    question = "金十快讯里跟原油有关的"
    topics = topic_of(question, context)
    assert subject_of(keywords_of(question), context, topics=topics).terms == ("原油",)


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("Steam news for Baldur's Gate 3 (app id 1086940)", "/steam/news/1086940"),
        (
            "Updates to the Chrome extension cjpalhdlnbpafiamejdnhcphjbkeiagm (uBlock Origin)",
            "/google/chrome/extension/cjpalhdlnbpafiamejdnhcphjbkeiagm",
        ),
        ("36氪搜索比亚迪相关文章", "/36kr/search/articles/比亚迪"),
    ],
)
def test_ids_keyed_in_parentheses_letter_runs_and_values_spanning_segments(question, path):
    """ "(app id 1086940)" keys its number; a run of letters longer than any word is an id; a
    listed value that spans path segments (36氪's 搜索文章, ``search/articles/ 关键词``) fills
    the parameters after its own, its placeholder with the topic the question marks."""
    _chosen, ctx = route(question)

    assert [unquote(p) for p, _ in ctx.paths][:1] == [path]


def test_a_short_key_before_a_number_in_parentheses_keys_it():
    question = "NGA 大漩涡\uff08fid -7\uff09的最新帖子"  # full-width parentheses
    asked = question_read(question, platform_words=("nga",), excluded=())
    assert ("number", "-7") in [(e.kind, e.value) for e in asked.entities]


def test_a_name_before_a_kind_of_account_is_read_past_a_word_of_how_it_is_put():
    _chosen, ctx = route("New tags of the official postgres image on Docker Hub")

    assert [p for p, _ in ctx.paths][:1] == ["/dockerhub/tag/library/postgres"]
