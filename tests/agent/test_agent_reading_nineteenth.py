"""The nineteenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

from urllib.parse import unquote

import pytest

from agent.routes.documented import default_of
from agent.routes.listed import inline_values
from agent.routes.params import params_fill
from agent.routes.unsaid import SubjectMissing
from agent.unnamed import subject_unnamed
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


@pytest.mark.parametrize(
    ("question", "path"),
    [
        (
            "Show me the active projects on the GNOME GitLab instance (gitlab.gnome.org)",
            "/gitlab/explore/active/gitlab.gnome.org",
        ),
        ("GitLab explore active projects", "/gitlab/explore"),  # active: the default
    ],
)
def test_a_host_said_fills_an_instance_parameter_whose_default_is_a_host(question, path):
    assert first_path(question) == path


def test_what_places_are_is_no_place():
    assert first_path("Wellcee 唯心所寓现在支持哪些城市\uff1f") == "/wellcee/support-city"
    assert first_path("Wellcee 北京的租房信息") == "/wellcee/rent/北京"


def test_a_quoted_name_after_the_kind_searched_is_what_to_search_for():
    assert first_path("秀動網可以搜尋場地「育音堂」嗎") == "/showstart/search/site/育音堂"


def test_listed_values_said_together_are_joined_where_the_example_joins_them():
    assert first_path("FashionNetwork news about luxury watches and jewellery, France edition") == (
        "/fashionnetwork/news/18,19/all/fr"  # and the gap before France at `all`, its default
    )


def test_a_default_written_as_a_value_fills_a_gap_though_no_list_holds_it():
    assert first_path("fashion network - perfume sector news from the UK site") == (
        "/fashionnetwork/news/21/all/uk"
    )


def test_labels_listed_then_their_values_in_order_pair_up():
    assert inline_values("片单类型剧集/电影\uff0ctv或movie\uff0c默认为tv") == [
        ("tv", "tv"),
        ("movie", "movie"),
        ("剧集", "tv"),
        ("电影", "movie"),
    ]
    assert (
        first_path("豆瓣每月推荐片单\uff0c我只要电影的\uff0c不要剧集")
        == "/douban/recommended/movie"
    )


def test_a_page_named_for_its_number_gives_the_number_the_example_writes():
    hits = radar_hits("恩山论坛 https://www.right.com.cn/forum/forum-31-1.html 这个板块")

    assert [hit.path for hit in hits] == ["/right/forum/31"]


def test_a_value_said_to_be_a_label_after_fill_in_labels_it():
    assert inline_values("默认不填为起点中文网\uff0c填 mm 为起点女生网") == [
        ("mm", "mm"),
        ("起点女生网", "mm"),
    ]


def test_the_askers_own_county_is_someone_unnamed():
    assert subject_unnamed("德阳我们区县的政府公开信息\uff0c想订阅一下")
    assert not subject_unnamed("我们想看绵竹市的政府公开信息")


def test_an_optional_subject_the_asker_has_in_mind_is_asked_for():
    parameters = {"year": "年份", "major": "专业", "school": "学校"}
    with pytest.raises(SubjectMissing) as missing:
        _fill("/1point3acres/offer/:year?/:major?/:school?", parameters, "the school I applied to")

    assert [slot.name for slot in missing.value.slots] == ["school"]


def test_the_platforms_own_place_is_none_of_its_parameters():
    def fill(platform_words: tuple[str, ...]) -> str:
        path = params_fill(
            template="/gov/sichuan/deyang/govpublicinfo/:county",
            parameters={"county": "区县名"},
            description="",
            example="",
            question="德阳旌阳区的政府公开信息",
            platform_words=platform_words,
        ).path
        return unquote(path)

    assert fill(("德阳市人民政府",)) == "/gov/sichuan/deyang/govpublicinfo/旌阳区"
    assert fill(()) == "/gov/sichuan/deyang/govpublicinfo/德阳"


def test_a_page_below_its_sites_section_matches_a_route_mirroring_the_rest():
    hits = radar_hits("想追蹤呢個豆瓣話題 https://www.douban.com/gallery/topic/48823/")

    assert [hit.path for hit in hits] == ["/douban/topic/48823"]


def test_the_default_host_said_is_no_other_instance():
    assert first_path("new releases of inkscape/inkscape over on gitlab.com") == (
        "/gitlab/release/inkscape/inkscape"
    )
