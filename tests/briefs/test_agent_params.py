"""Filling route parameters from the question (the route node's offline method), against the
session's real catalog (path confinement needs the namespaces)."""

import pytest

from briefs.agent.params import description_table, params_fill
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


def fill(template, *, question="", keywords=(), parameters=None, description="", example=""):
    return params_fill(
        template=template,
        parameters=parameters or {},
        description=description,
        example=example,
        question=question,
        keywords=list(keywords),
    )


def test_an_option_the_question_names_is_chosen():
    filled = fill("/v2ex/topics/:type", question="V2EX 今天最热的主题有哪些", parameters=V2EX_TYPE)

    assert filled.path == "/v2ex/topics/hot"
    assert filled.sources == {"type": "option"}


def test_an_option_needs_most_of_its_label_in_the_question():
    # "最新" alone is half of "最新主题": not enough to name it; the example decides.
    filled = fill(
        "/v2ex/topics/:type",
        question="V2EX 最新",
        parameters=V2EX_TYPE,
        example="/v2ex/topics/hot",
    )

    assert filled.sources == {"type": "example"}


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
    assert filled.sources == {"category": "table"}
    assert description_table(description) == [("快讯", "newsflashes"), ("推荐", "information")]


def test_a_keyword_parameter_gets_the_topic_keywords():
    filled = fill("/arxiv/:query", keywords=["diffusion", "models"], example="/arxiv/ti:gan")

    assert filled.path == "/arxiv/diffusion%20models"
    assert filled.sources == {"query": "keyword"}


def test_a_required_parameter_nothing_names_comes_from_the_example():
    filled = fill("/github/starred_repos/:user", example="/github/starred_repos/DIYgod")

    assert filled.path == "/github/starred_repos/DIYgod"
    assert filled.sources == {"user": "example"}


def test_a_trailing_optional_parameter_is_left_to_its_default():
    filled = fill("/36kr/hot-list/:category?", example="/36kr/hot-list/24")

    assert filled.path == "/36kr/hot-list"
    assert filled.params == {}


def test_a_required_parameter_nothing_can_fill_refuses_the_route():
    with pytest.raises(RoutePathRejected) as refused:
        fill("/github/starred_repos/:user")

    assert refused.value.reason == "missing_parameter"


def test_a_value_breaking_the_parameter_regex_refuses_the_route():
    with pytest.raises(RoutePathRejected) as refused:
        fill("/arxiv/:query{[0-9]+}", keywords=["diffusion"])

    assert refused.value.reason == "parameter_mismatch"


@pytest.mark.parametrize("keyword", ["../../rsshub/transform", "a@b", "x\\..\\y"])
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
