"""Short names made of a Chinese name's words' first characters (catalog.abbreviations), and
their use as platform names in the search: 北林 names 北京林业大学, 中新网 中国新闻网, 发改委 the
Development and Reform Commission; a short name two platforms would make names neither, and one
found inside a longer word (华南理工 holds 南理, 上交所 上交) names nobody."""

import pytest

from catalog.abbreviations import platform_short_names, short_names
from catalog.search import platforms_named
from tests.agent.test_agent_route_offline import first_path


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("北京林业大学", {"北林", "北林大"}),
        ("西安电子科技大学", {"西电", "西电大", "西电科大"}),
        ("中国新闻网", {"中新网", "中新"}),
        ("经济观察网", {"经观网", "经观"}),  # a body's one-character kind left out too
        # the state's prefix and 和 left out; the name without the prefix is one too
        ("中华人民共和国国家发展和改革委员会", {"发改委", "发展和改革委员会"}),
        ("北京航空航天大学", {"北航", "北航大", "北航航大"}),
    ],
)
def test_a_name_gives_its_words_first_characters(name, expected):
    assert short_names(name) == expected


@pytest.mark.parametrize(
    "name", ["人民日报", "Hacker News", "哈尔滨工业大学\uff08深圳\uff09", "B站 Live"]
)
def test_a_short_or_not_wholly_chinese_name_gives_none(name):
    assert short_names(name) == set()


def test_a_short_name_two_platforms_would_make_names_neither():
    names = [(0, ["哈尔滨工业大学"]), (1, ["哈尔滨工程大学"]), (2, ["北京林业大学", "北林"])]

    shorts = platform_short_names(names)

    assert 0 not in shorts and 1 not in shorts, "哈工大 is both 哈尔滨工业大学's and 工程大学's"
    assert shorts[2] == ["北林大"], "北林 is the platform's own name already"


@pytest.mark.django_db
def test_a_short_name_names_its_platform_where_a_word_starts():
    assert "bjfu" in dict(platforms_named("北林教务处的考试信息"))
    assert "njust" not in dict(platforms_named("华南理工教务处的考试通知")), "南理 inside 华南理工"
    assert "sjtu" not in dict(platforms_named("上交所最新公告")), "上交 inside 上交所"
    assert "sjtu" in dict(platforms_named("上交大的新闻"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "namespace"),
    [
        ("北林研究生院的培养动态", "bjfu"),
        ("西电计算机学院的通知", "xidian"),
        ("发改委的新闻动态", "gov/ndrc"),
        ("中新网的最新新闻", "chinanews"),
        ("经观的快讯", "eeo"),
    ],
)
def test_a_question_by_a_short_name_reads_its_platform(question, namespace):
    path = first_path(question)

    assert path == f"/{namespace}" or path.startswith(f"/{namespace}/"), path


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Jones Lang LaSalle", {"JLL"}),
        ("World Health Organization of the Future", {"WHOF"}),  # joining words left out
        ("The Washington Post", set()),  # two words once "The" is left out: no initials
        ("Politecnico di Milano", set()),  # not every word capitalised
        ("Josh W Comeau", set()),  # an initial is no word: jwc is 教务处 too
    ],
)
def test_an_english_name_of_three_capitalised_words_gives_its_initials(name, expected):
    assert short_names(name) == expected


@pytest.mark.django_db
def test_an_english_name_s_initials_name_its_platform():
    assert "joneslanglasalle" in dict(platforms_named("JLL research reports"))
