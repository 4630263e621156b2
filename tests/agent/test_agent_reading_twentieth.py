"""The twentieth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from catalog.search_terms import question_terms
from fetching.radar import radar_hits
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("any feed for https://publish.obsidian.md/help ?", "/obsidian/publish/help"),
        ("m4 军事频道 mil.m4.cn/china 能订阅吗", "/m4/mil/china"),
    ],
)
def test_a_root_rule_whose_target_section_the_host_names_takes_the_page_below(question, path):
    assert [hit.path for hit in radar_hits(question)] == [path]


def test_a_root_rule_takes_no_page_two_segments_below():
    assert radar_hits("https://publish.obsidian.md/help/start") == []


def test_a_title_written_after_a_pages_number_is_no_part_of_its_address():
    hits = radar_hits("香港01 https://www.hk01.com/zone/5/國際 有冇得訂閱")

    assert [hit.path for hit in hits] == ["/hk01/zone/5"]


def test_a_section_word_after_a_number_is_not_dropped_as_a_title():
    assert radar_hits("https://www.hk01.com/zone/5/news") == []


def test_a_setting_named_after_one_a_page_leaves_open_takes_that_ones_default_between():
    question = "TapTap reviews in 日本語 please https://www.taptap.io/app/82354"

    assert first_path(question) == "/taptap/intl/review/82354/helpful/ja_JP"


def test_a_requests_wording_names_no_feed_of_likes():
    assert "like" not in question_terms("I'd like the WHO speeches in French")
    assert "like" in question_terms("the likes of alice on Cara")
    assert first_path("We'd love the WHO speeches, in French") == "/who/speeches/fr"


def test_hours_shortened_name_a_span_of_hours():
    assert first_path("chouti top list of the last 168 hrs") == "/chouti/top/168"


def test_an_example_writing_its_template_shows_no_value():
    assert first_path("Plurk News in Chinese, please") == "/plurk/news/zh"


def test_the_askers_advisor_is_someone_unnamed():
    _chosen, ctx = route("papers by my PhD supervisor on INSPIRE-HEP, as a feed")

    assert ctx.paths == [] and [need["parameter"] for need in ctx.needs] == ["id"]
