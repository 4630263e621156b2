"""The nineteenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.documented import default_of
from agent.routes.listed import inline_values
from agent.routes.params import params_fill
from agent.routes.unsaid import SubjectMissing
from catalog.abbreviations import initial_runs, said_initials
from fetching.radar import radar_hits
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


def _fill(template: str, parameters: dict, question: str, description: str = "") -> str:
    return params_fill(
        template=template,
        parameters=parameters,
        description=description,
        example="",
        question=question,
    ).path


@pytest.mark.parametrize(
    ("text", "initials"),
    [
        ("Northwest Normal University", {"nnu", "nwnu"}),  # a compass word gives both letters
        ("Northeastern University", {"neu"}),
        ("Xi'an University of Finance and Economics", {"xaufe", "xufe", "xauface", "xuface"}),
    ],
)
def test_a_compass_word_and_an_apostrophe_part_a_names_initials(text, initials):
    assert said_initials(text) == initials


def test_a_names_first_words_run_together_are_spelled_too():
    [(run, spellings)] = initial_runs("Latest news from Sin Chew Daily, the Malaysian paper")

    assert run.group(0) == "Sin Chew Daily"
    assert {"sinchew-", "sinchewdaily-"} <= spellings  # a hyphen marks words run together
    assert "sinchew-" not in said_initials("Sin Chew Daily")


@pytest.mark.parametrize(
    ("question", "path"),
    [
        # Beijing names 北京市人民政府 too, but only as a word of the university's name
        ("Beijing Wuzi University notices - any way to get them in my reader?", "/bwu/news"),
        ("Latest news from Sin Chew Daily (星洲日报), the Malaysian paper", "/sinchew/latest"),
    ],
)
def test_a_name_whose_initials_or_words_spell_a_sites_address_names_that_site(question, path):
    assert first_path(question) == path


def test_a_platform_named_by_a_whole_name_keeps_it():
    # "App Store" names Apple's platform whole: no other platform spelled appstore
    assert first_path("App Store 应用 id1232780281 的更新").startswith("/apple/apps/update/")


def test_a_name_of_no_initials_addresses_nothing():
    _chosen, ctx = route("Can you pull The Block's policy section for me?")

    assert "hupu" not in ctx.platforms  # an empty spelling matches no site's address


def test_a_platform_named_as_a_plain_word_does_not_come_first():
    assert first_path("Enshan wireless forum (恩山) board id 72 — new threads as RSS?") == (
        "/right/forum/72"
    )


def test_a_platform_chosen_first_is_no_subject_of_the_next():
    _chosen, ctx = route("njuferret's github.io blog updates")

    assert [path for path, _route in ctx.paths][:1] == ["/njuferret/blog"]
    assert not any(path == "/github/feed/njuferret" for path, _route in ctx.paths)


@pytest.mark.parametrize(
    "question",
    [
        "CAAC 公众留言 feed, but only for the one category I care about",
        "I want its papers, but only for my own field, not everything",
    ],
)
def test_a_category_the_asker_has_in_mind_unnamed_is_asked_for(question):
    parameters = {"category": "Category of papers, can be found in URL, all by default"}
    with pytest.raises(SubjectMissing) as missing:
        _fill("/caac/cjwt/:category?", parameters, question)

    assert [slot.name for slot in missing.value.slots] == ["category"]


def test_a_keyword_the_asker_cares_about_is_asked_for():
    _chosen, ctx = route("Can you track a scoop.sh app search for me? By a keyword I care about")

    assert ctx.paths == [] and [need["parameter"] for need in ctx.needs] == ["query"]


def test_my_is_no_language_code_said():
    assert first_path("Malaysiakini columns, English please") == "/malaysiakini/en/columns"
    _chosen, ctx = route("I read Malaysiakini — set me up with their news feed in my language")
    assert not any("/my/" in path for path, _route in ctx.paths)
    assert [need["parameter"] for need in ctx.needs] == ["lang"]


def test_a_page_rule_naming_its_one_value_otherwise_fills_the_routes_one_parameter():
    hits = radar_hits("gigs at https://www.showstart.com/venue/1243 , notify me")

    assert [hit.path for hit in hits] == ["/showstart/site/1243"]


def test_a_page_rule_naming_no_value_takes_it_where_the_route_ends_as_the_page():
    hits = radar_hits("ccst.jlu.edu.cn/xwzx/zsjy.htm 这个页面能订阅吗")

    assert [hit.path for hit in hits] == ["/jlu/ccst/xwzx/zsjy"]


def test_a_quoted_label_said_to_correspond_to_a_value_labels_it():
    text = "排行榜类型\uff0c“点击榜”对应`click`\uff0c“跟贴榜”对应`follow`\uff0c默认为“点击榜”"

    assert ("跟贴榜", "follow") in inline_values(text)
    assert default_of("type", text, "") == "点击榜"  # the quote is no default


def test_numbers_glued_to_their_labels_list_values():
    assert inline_values("排行榜类型\uff0c0所有时间(默认)\uff0c1最近一周") == [
        ("0", "0"),
        ("1", "1"),
        ("所有时间", "0"),
        ("最近一周", "1"),
    ]


def test_a_chinese_ranking_reads_the_labels_said():
    assert first_path("网易新闻科技频道的跟贴榜\uff0c按本周统计的那个") == (
        "/163/news/rank/tech/follow/week"
    )
    assert first_path("网易云音乐用户 1417963432 最近一周的听歌排行") == (
        "/163/music/user/playrecords/1417963432/1"
    )
