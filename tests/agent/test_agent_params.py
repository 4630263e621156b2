"""Filling route parameters from the question (the route node's offline method), against the
session's real catalog (path confinement needs the namespaces)."""

from urllib.parse import unquote

import pytest

from agent.routes.entities import question_read
from agent.routes.params import example_leaks, params_fill
from agent.routes.slots import value_format
from agent.routes.tables import description_table
from agent.routes.unsaid import SubjectMissing
from fetching.paths import RoutePathRejected

pytestmark = pytest.mark.django_db

V2EX_TYPE = {
    "type": {
        "description": "主题类型",
        "options": [
            {"label": "最热主题", "value": "hot"},
            {"label": "最新主题", "value": "latest"},
        ],
    }
}


def fill(
    template,
    *,
    question="",
    keywords=None,
    parameters=None,
    description="",
    example="",
    platform=(),
    name="",
):
    return params_fill(
        template=template,
        parameters=parameters or {},
        description=description,
        example=example,
        question=question,
        keywords=list(keywords) if keywords is not None else None,
        platform_words=platform,
        route_name=name,
    )


def test_an_option_the_question_names_is_chosen():
    filled = fill("/v2ex/topics/:type", question="V2EX 今天最热的主题有哪些", parameters=V2EX_TYPE)

    assert filled.path == "/v2ex/topics/hot"
    assert filled.sources == {"type": "option"}


def test_an_option_is_named_in_the_other_language():
    # "最新" is half of the label "最新主题" but the whole of the value "latest".
    filled = fill(
        "/v2ex/topics/:type",
        question="V2EX 最新",
        parameters=V2EX_TYPE,
        example="/v2ex/topics/hot",
    )

    assert (filled.path, filled.sources) == ("/v2ex/topics/latest", {"type": "option"})


def test_a_required_setting_nothing_names_takes_the_example_value():
    # An enumeration's example value is a working choice, not somebody's subject.
    filled = fill(
        "/v2ex/topics/:type", question="V2EX", parameters=V2EX_TYPE, example="/v2ex/topics/hot"
    )

    assert (filled.path, filled.sources) == ("/v2ex/topics/hot", {"type": "example"})


@pytest.mark.parametrize(
    ("question", "value"),
    [("IT之家 7 天热榜", "7days"), ("IT之家 24 小时热榜", "24h"), ("ithome monthly", "monthly")],
)
def test_a_span_of_time_names_its_value(question, value):
    description = (
        "| 24h | 7days | monthly |\n| --- | --- | --- |\n| 24 小时阅读榜 | 7 天最热 | 月榜 |"
    )

    filled = fill(
        "/ithome/ranking/:type",
        question=question,
        parameters={"type": "类别"},
        description=description,
        example="/ithome/ranking/24h",
    )

    assert filled.path == f"/ithome/ranking/{value}"


def test_a_description_table_of_labels_over_values_is_read():
    description = "| 快讯 | 推荐 |\n| --- | --- |\n| newsflashes | information |"
    parameters = {"category": "分类，见下表"}  # noqa: RUF001

    filled = fill(
        "/36kr/:category/:subCategory?/:keyword?",
        question="36氪 推荐",
        parameters=parameters,
        description=description,
        example="/36kr/newsflashes",
    )

    assert filled.path == "/36kr/information"
    assert filled.sources == {"category": "option"}  # a table row is an option like any other
    assert description_table(description) == [("快讯", "newsflashes"), ("推荐", "information")]


def test_a_keyword_parameter_gets_the_topic_keywords():
    filled = fill("/arxiv/:query", keywords=["diffusion", "models"], example="/arxiv/ti:gan")

    assert filled.path == "/arxiv/diffusion%20models"
    assert filled.sources == {"query": "keywords"}


def test_a_keyword_parameter_gets_the_searched_topic_not_the_filler_around_it():
    filled = fill(
        "/gelonghui/keyword/:keyword",
        question="格隆汇搜索 特斯拉 的最新文章",
        platform=("gelonghui", "格隆汇"),
        example="/gelonghui/keyword/早报",
    )

    assert filled.params == {"keyword": "特斯拉"}


def test_a_subject_parameter_nothing_names_refuses_the_route_and_says_what_is_missing():
    # Before, the example's DIYgod was used: a brief about the wrong user.
    with pytest.raises(SubjectMissing) as refused:
        fill(
            "/github/starred_repos/:user",
            question="GitHub starred repositories",
            parameters={"user": "GitHub username"},
            example="/github/starred_repos/DIYgod",
            platform=("github", "GitHub"),
            name="User Starred Repositories",
        )

    slot = refused.value.slots[0]
    assert (refused.value.reason, slot.name, slot.description) == (
        "missing_subject",
        "user",
        "GitHub username",
    )
    assert "DIYgod" not in value_format(slot)


@pytest.mark.parametrize(
    ("template", "example", "question", "path"),
    [
        ("/github/activity/:user", "/github/activity/DIYgod",
         "Recent GitHub activity of torvalds", "/github/activity/torvalds"),
        ("/github/issue/:user/:repo/:state?", "/github/issue/DIYgod/RSSHub/open",
         "Issues in the django/django GitHub repository", "/github/issue/django/django"),
        ("/xueqiu/stock_comments/:id", "/xueqiu/stock_comments/SZ002626",
         "雪球上 SH600519 的股票评论", "/xueqiu/stock_comments/SH600519"),
        ("/xueqiu/stock_info/:id", "/xueqiu/stock_info/SZ000002", "雪球 00700.HK 的股票信息",
         "/xueqiu/stock_info/00700.HK"),
        ("/bilibili/video/:bvid", "/bilibili/video/BV1vA411b7ip",
         "B站 BV1xx411c7mD 的评论", "/bilibili/video/BV1xx411c7mD"),
        ("/bilibili/user/coin/:uid", "/bilibili/user/coin/2267573",
         "B站 UP 主 208259 的投币视频", "/bilibili/user/coin/208259"),
        ("/mastodon/timeline/:site", "/mastodon/timeline/pawoo.net",
         "Public timeline of mastodon.social", "/mastodon/timeline/mastodon.social"),
        ("/twitter/user/:id", "/twitter/user/DIYgod", "Tweets by @elonmusk",
         "/twitter/user/elonmusk"),
        ("/juejin/tag/:tag", "/juejin/tag/架构", "掘金 JavaScript 标签的最新文章",
         "/juejin/tag/JavaScript"),
        ("/sspai/tag/:keyword", "/sspai/tag/apple", "少数派上 效率 标签的文章",
         "/sspai/tag/效率"),
        ("/zhihu/search/:keyword", "/zhihu/search/AI", '知乎上 "large language model"',
         "/zhihu/search/large language model"),
        ("/npm/package/:name", "/npm/package/rsshub", "New versions of the npm package vite",
         "/npm/package/vite"),
        ("/bbc/sport/:sport", "/bbc/sport/formula1", "BBC Sport football news",
         "/bbc/sport/football"),
        ("/huggingface/models/:group", "/huggingface/models/deepseek-ai",
         "Hugging Face models from Qwen", "/huggingface/models/Qwen"),
        ("/ithome/tag/:name", "/ithome/tag/win11", "IT之家 iPhone 标签的最新资讯",
         "/ithome/tag/iPhone"),
    ],
)  # fmt: skip
def test_a_subject_comes_from_the_form_the_question_gives_it(template, example, question, path):
    platform = (template.split("/")[1], "GitHub", "雪球", "B站", "IT之家", "掘金", "少数派", "BBC")
    filled = fill(template, question=question, example=example, platform=platform)

    assert unquote(filled.path) == path


COIN_EXAMPLE, ACTIVITY_EXAMPLE = "/bilibili/user/coin/2267573", "/github/activity/DIYgod"


def test_a_numeric_subject_needs_a_number_and_a_pair_two_parameters():
    with pytest.raises(SubjectMissing):
        fill("/bilibili/user/coin/:uid", question="B站 UP 主 老番茄", example=COIN_EXAMPLE)
    with pytest.raises(SubjectMissing):
        fill("/github/activity/:user", question="of django/django", example=ACTIVITY_EXAMPLE)


def test_an_official_image_owner_is_the_documented_default_only_beside_a_named_image():
    template, example = "/dockerhub/tag/:owner/:image/:limits?", "/dockerhub/tag/library/mariadb"
    description = "Use `library` as the `owner` for official images"
    platform = ("dockerhub", "Docker Hub")

    filled = fill(
        template,
        question="New image tags for nginx on Docker Hub",
        description=description,
        example=example,
        platform=platform,
        name="Image New Tag",
    )
    assert filled.path == "/dockerhub/tag/library/nginx"
    with pytest.raises(SubjectMissing) as refused:
        fill(template, question="Docker Hub image tags", description=description,
             example=example, platform=platform, name="Image New Tag")  # fmt: skip
    assert [s.name for s in refused.value.slots] == ["image"]


def test_an_optional_parameter_stays_out_unless_the_question_asks_for_it():
    state = {
        "state": {"options": [{"label": "Open", "value": "open"}, {"label": "All", "value": "all"}]}
    }
    template, example = "/github/issue/:user/:repo/:state?", "/github/issue/DIYgod/RSSHub/open"

    plain = fill(template, question="Issues of django/django", parameters=state, example=example)
    asked = fill(
        template, question="Open issues of django/django", parameters=state, example=example
    )

    assert (plain.path, asked.path) == (
        "/github/issue/django/django",
        "/github/issue/django/django/open",
    )


def test_an_example_leak_is_a_subject_carrying_its_example_value():
    route = {"template": "/github/issue/:user/:repo/:state?", "parameters": {},
             "description": "", "example": "/github/issue/DIYgod/RSSHub/open"}  # fmt: skip

    assert example_leaks(**route, path="/github/issue/DIYgod/RSSHub/open") == ["user", "repo"]
    assert example_leaks(**route, path="/github/issue/django/django/open") == []


def test_a_trailing_optional_parameter_is_left_to_its_default():
    filled = fill("/36kr/hot-list/:category?", example="/36kr/hot-list/24")

    assert filled.path == "/36kr/hot-list"
    assert filled.params == {}


def test_a_required_parameter_nothing_can_fill_refuses_the_route():
    with pytest.raises(RoutePathRejected) as refused:
        fill("/github/starred_repos/:user")

    assert refused.value.reason == "missing_subject"


def test_a_value_breaking_the_parameter_regex_is_not_taken():
    with pytest.raises(RoutePathRejected) as refused:
        fill("/arxiv/:query{[0-9]+}", question='arXiv "diffusion"')

    assert refused.value.reason == "missing_subject"


@pytest.mark.parametrize("keyword", ["../../rsshub/transform", "%2e%2e", "x\\..\\y"])
def test_keywords_cannot_climb_out_of_the_route(keyword):
    with pytest.raises(RoutePathRejected):
        fill("/arxiv/:query", keywords=[keyword])


def test_a_table_of_values_over_labels_is_read_the_other_way_round():
    description = (
        "| it      | soft     | digi     |\n"
        "| ------- | -------- | -------- |\n"
        "| IT 资讯 | 软件之家 | 数码之家 |"
    )

    assert description_table(description) == [
        ("IT 资讯", "it"),
        ("软件之家", "soft"),
        ("数码之家", "digi"),
    ]
    filled = fill(
        "/ithome/:caty",
        question="IT之家 最新资讯",
        parameters={"caty": "类别"},
        description=description,
        example="/ithome/it",
    )
    assert filled.path == "/ithome/it"


def test_a_two_column_table_lists_one_pair_a_row_under_its_header():
    description = (
        "| Hub            | Hub name       |\n"
        "| -------------- | -------------- |\n"
        "|                | All Posts      |\n"
        "| tech           | Tech           |\n"
        "| transportation | Transportation |\n"
        "| tv             | TV Shows       |"
    )

    assert description_table(description) == [
        ("Tech", "tech"),
        ("Transportation", "transportation"),
        ("TV Shows", "tv"),
    ]
    filled = fill(
        "/theverge/:hub?",
        question="The Verge latest tech news",
        parameters={"hub": "Hub, see below"},
        description=description,
        example="/theverge",
    )
    assert filled.path == "/theverge/tech"


def test_labels_then_values_in_two_columns_and_linked_cells_are_read():
    description = (
        "| 分类 | ID |\n| --- | --- |\n"
        "| [最新电影](https://e.x/dy/) | [dy](https://rsshub.app/6v123/dy) |\n"
        "| 国语配音电影 | gydy |\n\n"
        "Text between tables.\n\n"
        "| 全部 | 科技 |\n| --- | --- |\n| all | tech |"
    )

    assert description_table(description) == [
        ("最新电影", "dy"),
        ("国语配音电影", "gydy"),
        ("全部", "all"),
        ("科技", "tech"),
    ]


# --- Subjects the question does not mark, and how well a value suits its parameter --------------


def entities_of(question: str, platform: tuple[str, ...]) -> list[tuple[str, str, str]]:
    asked = question_read(question, platform_words=platform, excluded=[])
    return [(e.value, e.kind, e.role) for e in asked.entities]


@pytest.mark.parametrize(
    ("question", "platform", "name"),
    [
        ("What did elonmusk post on Twitter today", ("Twitter",), "elonmusk"),
        ("Has sama been tweeting lately", ("Twitter",), "sama"),
        ("Repositories sindresorhus starred on GitHub", ("GitHub",), "sindresorhus"),
        ("Events in the golang organization on GitHub", ("GitHub",), "golang"),
    ],
)
def test_a_name_in_a_subjects_place_is_an_account(question, platform, name):
    assert (name, "marked", "account") in entities_of(question, platform)


@pytest.mark.parametrize(
    "question",
    [
        "What are people saying on Twitter",  # people in general
        "What is trending on Twitter right now",  # a kind of thing
        "What did the Rust team announce on GitHub",  # "the" is no name
        "Issues closed yesterday on GitHub",  # a past verb after no name
    ],
)
def test_no_name_is_read_into_a_question_that_gives_none(question):
    assert entities_of(question, ("Twitter", "GitHub")) == []


def test_an_id_mixing_letters_and_digits_is_a_subject_but_a_product_name_is_not():
    found = entities_of("YouTube playlist PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf", ("YouTube",))
    assert found == [("PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf", "id", "")]
    assert all(kind != "id" for _v, kind, _r in entities_of("iPhone15 reviews", ()))


def test_an_id_suits_the_parameter_whose_example_shares_its_prefix():
    question = "YouTube videos from channel UCBJycsmduvYEL83R_U4JriQ"
    channel = fill(
        "/youtube/channel/:id",
        question=question,
        example="/youtube/channel/UCDwDMPOZfxVV0x_dz0eQ8KQ",
    )
    playlist = fill(
        "/youtube/playlist/:id",
        question=question,
        example="/youtube/playlist/PLqQ1RwlxOgeLTJ1f3fNMSwhjVgaWKo_9Z",
    )

    assert channel.path == "/youtube/channel/UCBJycsmduvYEL83R_U4JriQ"
    assert (channel.fit, playlist.fit) == (1, -1)


def test_an_account_suits_a_keyword_search_less_than_a_topic():
    template, example = "/twitter/keyword/:keyword", "/twitter/keyword/RSSHub"
    account = fill(template, question="Tweets from naval", example=example, platform=("Twitter",))
    topic = fill(
        template, question="Tweets about the election", example=example, platform=("Twitter",)
    )

    assert (account.params, account.fit) == ({"keyword": "naval"}, -1)
    assert (topic.params, topic.fit) == ({"keyword": "election"}, 1)


def test_a_setting_named_parameter_whose_example_is_an_id_is_a_subject():
    # :status is a tweet's id: the example's would be some other tweet.
    with pytest.raises(SubjectMissing) as refused:
        fill(
            "/twitter/tweet/:id/status/:status/:original?",
            question="Tweets from naval",
            example="/twitter/tweet/DIYgod/status/1650844643997646852",
        )
    assert [slot.name for slot in refused.value.slots] == ["status"]


def test_a_hashtag_parameter_takes_what_the_question_tags():
    filled = fill(
        "/mastodon/tag/:site/:hashtag/:only_media?",
        question="Posts tagged rust on mastodon.social",
        example="/mastodon/tag/mastodon.social/gochisou/true",
        platform=("mastodon", "Mastodon"),
    )

    assert filled.path == "/mastodon/tag/mastodon.social/rust"


HN_PARAMETERS = {
    "section": {
        "description": "Content section, default to `index`. Common sections: `index`, "
        "`newest`, `ask`, `show`, `jobs`, `over`, `threads`, `submitted`. Any valid HN section "
        "(e.g. `best`, `front`, `active`) is also accepted"
    },
    "type": {"description": "Content format, default to `sources`. `sources` links, `comments`"},
    "value": {"description": "For `threads`/`submitted` sections, set user ID. For `over` ..."},
}
HN_DESCRIPTION = (
    "Examples:\n\n| HN100 | User threads |\n| --- | --- |\n"
    "| `/hackernews/over` | `/hackernews/threads/sources/dang` |"
)


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("Hacker News best stories", "/hackernews/best"),
        ("Ask HN threads on Hacker News", "/hackernews/ask"),  # a kind of thing loses a tie
        ("Hacker News jobs", "/hackernews/jobs"),
        # HN's `front` section is its past front pages (the "past" link); the front page
        # itself is the default `index`
        ("Hacker News front page", "/hackernews"),
    ],
)
def test_a_value_the_parameter_lists_is_named_though_a_table_lists_example_paths(question, path):
    filled = fill(
        "/hackernews/:section?/:type?/:value?",
        question=question,
        parameters=HN_PARAMETERS,
        description=HN_DESCRIPTION,
        example="/hackernews/threads/comments_list/dang",
        platform=("hackernews", "Hacker News"),
    )

    assert filled.path == path, "values listed for :section are not :value's"


def test_an_option_label_is_matched_on_word_stems():
    parameters = {
        "mode": {
            "options": [
                {"value": "day", "label": "daily rank"},
                {"value": "month", "label": "monthly rank"},
            ]
        }
    }
    filled = fill(
        "/pixiv/ranking/:mode/:date?",
        question="pixiv monthly ranking",
        parameters=parameters,
        example="/pixiv/ranking/week",
        platform=("pixiv",),
    )

    assert filled.path == "/pixiv/ranking/month"


def test_a_past_participle_after_the_auxiliary_is_a_verb_not_a_name():
    assert entities_of(
        "What issues were opened lately in astral-sh/uv on GitHub?", ("GitHub",)
    ) == [("astral-sh/uv", "pair", "")]


def test_an_optional_parameter_takes_someone_the_question_marks():
    parameters = {
        "section": {"description": "Content section: `index`, `newest`, `threads`, `submitted`"},
        "type": {"description": "Content format, default to `sources`. `comments`"},
        "value": {"description": "For `threads`/`submitted` sections, set user ID"},
    }
    template = "/hackernews/:section?/:type?/:value?"
    example = "/hackernews/threads/comments_list/dang"

    def path(question: str) -> str:
        return fill(template, question=question, parameters=parameters, example=example).path

    assert path("Hacker News stories submitted by pg") == "/hackernews/submitted/sources/pg"
    assert path("Hacker News stories submitted lately") == "/hackernews/submitted"


def test_a_handle_keeps_the_at_its_parameters_example_writes():
    def path(example: str) -> str:
        return fill(
            "/youtube/user/:username",
            question="New uploads from @mkbhd on YouTube",
            example=example,
            platform=("YouTube",),
        ).path

    assert path("/youtube/user/@JFlaMusic") == "/youtube/user/@mkbhd"
    assert path("/youtube/user/JFlaMusic") == "/youtube/user/mkbhd"


def test_a_search_marked_by_a_word_takes_the_whole_phrase_after_it():
    filled = fill(
        "/google/scholar/:query",
        question="Google Scholar results for retrieval augmented generation",
        example="/google/scholar/data+visualization",
        platform=("Google",),
        name="Scholar",
    )

    # its words joined as the example joins them (data+visualization)
    assert unquote(filled.path) == "/google/scholar/retrieval+augmented+generation"
