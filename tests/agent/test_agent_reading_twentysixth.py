"""The twenty-sixth pass of issue 29's reading rules. Against the real catalog snapshot where
a route is named, offline."""

from urllib.parse import unquote

import pytest

from agent.routes.amounts import amounts_fill
from agent.routes.entities import question_read
from agent.routes.enums import option_named
from agent.routes.forms import forms_read
from agent.routes.marked import marked_after
from agent.routes.slots import Slot
from agent.routes.whose import askers_own
from catalog.search_terms import entities_split
from fetching.radar import page_addresses
from tests.agent.test_agent_route_offline import first_path, route

pytestmark = pytest.mark.django_db


def _slot(name: str, description: str, example: str | None = None) -> Slot:
    return Slot(
        name=name,
        regex="",
        optional=True,
        description=description,
        choices=[],
        example=example,
        default=None,
        subject=False,
    )


def _values(question: str, *, platform: str, excluded: tuple[str, ...] = ()) -> set[str]:
    asked = question_read(question, platform_words=[platform], excluded=list(excluded))
    return {e.value for e in asked.entities}


def test_full_width_punctuation_ends_a_pages_query():
    question = "V2EX 的「创意」节点\uff08https://www.v2ex.com/?tab=creative\uff09能订阅吗"
    (address,) = page_addresses(question)

    assert address.query == "tab=creative"


@pytest.mark.parametrize(
    "question",
    [
        "the posts a certain Zhihu user writes",
        "what some twitter user tweets these days",
    ],
)
def test_a_verb_after_some_unnamed_user_names_no_one(question):
    assert not {"writes", "tweets"} & _values(question, platform="zhihu")


@pytest.mark.parametrize(
    "question",
    [
        "repos of a github user named sindresorhus",
        "a user called sindresorhus on github, his repos",
        "a github user sindresorhus, his repos",
    ],
)
def test_a_name_after_named_or_called_or_apposed_is_still_read(question):
    assert "sindresorhus" in _values(question, platform="github")


def test_a_word_for_the_feed_before_a_numbered_id_keys_no_value():
    _chosen, ctx = route("twitter: is there a feed for the global trends?")

    assert [path for path, _route in ctx.paths][:1] == ["/twitter/trends"]


def test_a_span_of_hours_hyphened_is_no_name():
    assert "24-hour" not in _values("huxiu's 24-hour news flashes", platform="huxiu")


def test_what_an_adverb_leads_before_a_kind_is_no_name():
    values = _values("a feed for recently active projects on gitlab", platform="gitlab")

    assert "active" not in values


def test_a_marker_ending_a_host_marks_nothing():
    assert marked_after("projects on gitlab.gnome.org/explore", ["org"], set()) == []
    assert marked_after("models of the org deepseek-ai", ["org"], set()) == ["deepseek-ai"]


def test_a_chinese_word_between_the_askers_clause_and_a_kind_is_the_askers_own():
    question = "我在码云上维护的那个开源仓库"

    assert askers_own("开源", question)
    assert not askers_own("开源", "开源中国上的那个仓库")


def test_a_chinese_label_said_by_its_concept_reads_the_listed_value():
    assert first_path("IT之家的安卓之家频道最近有啥") == "/ithome/android"


def test_a_pages_query_key_its_parameter_names_fills_it():
    question = "feed of https://news.ycombinator.com/threads?id=tptacek please"

    assert first_path(question) == "/hackernews/threads/sources/tptacek"


def test_a_page_in_parentheses_keeps_its_query_value_whole():
    question = "everything dang submitted (news.ycombinator.com/submitted?id=dang)"

    assert first_path(question) == "/hackernews/submitted/sources/dang"


@pytest.mark.parametrize("written", ["Twitter/X", "X/Twitter"])
def test_a_platform_slashed_with_its_one_letter_name_is_named_not_a_pair(written):
    _plain, values = entities_split(f"{written} trending topics", {"twitter"})

    assert values == []
    assert first_path(f"trending topics on {written}") == "/twitter/trends"


def test_a_google_scholar_page_with_more_keys_is_still_read():
    question = "https://scholar.google.com/citations?user=Ab1cD2eFAAAAJ&hl=de&oi=ao"

    assert first_path(question) == "/google/citations/Ab1cD2eFAAAAJ"


def test_a_pages_channel_and_a_setting_its_sibling_lists_read_the_sibling():
    question = "豆瓣频道 https://www.douban.com/channel/30170001/ 里的电视剧"

    assert first_path(question) == "/douban/channel/30170001/subject/1"


@pytest.mark.parametrize(
    ("question", "amount"),
    [
        ("only papers with at least 25 upvotes", "25"),
        ("papers with 40 votes or more", "40"),
    ],
)
def test_a_least_vote_count_fills_a_parameter_filtering_by_votes(question, amount):
    slot = _slot("voteFliter", "Filter papers by vote count.")
    values, sources = {}, {}

    amounts_fill([slot], question, values, sources)

    assert values == {"voteFliter": amount}


def test_values_joined_by_commas_as_the_description_says():
    question = "github user torvalds, only fork and release events, not the pushes"

    assert first_path(question) == "/github/user_event/torvalds/fork,release"


def test_a_radar_rule_whose_target_takes_the_pages_query_key_reads_it():
    assert first_path("https://music.163.com/#/artist/album?id=12138") == "/163/music/artist/12138"


def test_a_default_host_counts_as_the_parameters_form():
    question = "new releases of the gnome/gtk project on gitlab.gnome.org"

    assert first_path(question) == "/gitlab/release/gnome/gtk/gitlab.gnome.org"


def test_a_feed_file_documented_as_its_last_segment_is_read():
    question = "https://rss.nytimes.com/services/xml/rss/nyt/Science.xml but full text"

    assert first_path(question) == "/nytimes/rss/Science"


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("华尔街见闻 当周最热文章", "/wallstreetcn/hot/week"),
        ("mastodon.social 的本站时间线", "/mastodon/timeline/mastodon.social"),
        ("mastodon.social 的跨站时间线", "/mastodon/remote/mastodon.social"),
        ("the #streetphotography tag on insta", "/instagram/2/tags/streetphotography"),
    ],
)
def test_words_of_time_timelines_and_names_said_otherwise(question, path):
    assert first_path(question) == path


def test_an_id_keyed_with_what_it_is_for_is_keyed():
    found = forms_read("the WOEID for Paris is 615702 I believe")[1]

    assert [(f.value, f.label) for f in found] == [("615702", "woeid")]


def test_an_order_by_the_latest_reply_is_by_reply_time():
    choices = [("发布时间", "created"), ("回复时间", "commented"), ("默认排序", "default")]

    assert option_named("sorted by latest reply", choices, loose=False) == "commented"


def test_a_hashtag_before_the_word_tag_fills_a_parameter_taking_a_hashtag():
    assert first_path("the #nightphotography tag on instagram") == (
        "/instagram/2/tags/nightphotography"
    )


def test_an_interjection_after_a_marker_is_no_name():
    assert "lol" not in _values("follow #cats on the app lol", platform="instagram")


@pytest.mark.parametrize(
    ("question", "path"),
    [
        ("BBC science news in full text", "/bbc/science"),
        ("the bbc news health section please", "/bbc/health"),
        ("BBC News", "/bbc"),
        ("bbc sport golf news", "/bbc/sport/golf"),
    ],
)
def test_a_section_said_reads_the_section_a_description_shows_in_an_address(question, path):
    assert first_path(question) == path


def test_a_kind_of_film_is_tagged_with_its_genre_where_the_settings_before_are_said():
    question = "豆瓣电影分类 按评分最高排 7分以上的恐怖片"

    assert first_path(question) == "/douban/movie/classification/S/7/恐怖"
    assert first_path("豆瓣电影分类 恐怖片") == "/douban/movie/classification"


@pytest.mark.parametrize(
    "question",
    [
        "how can I follow a public telegram channel in my reader?",
        "I'd like to subscribe to a telegram channel via RSS",
    ],
)
def test_one_of_a_kind_to_follow_is_asked_for(question):
    chosen, ctx = route(question)

    assert chosen is False and ctx.paths == []
    assert [n["parameter"] for n in ctx.needs] == ["username"]


def test_a_kind_to_follow_called_by_its_name_is_read():
    assert first_path("follow a telegram channel called durov") == "/telegram/channel/durov"


def test_a_route_taking_a_keyword_serves_a_keyword_asked_for():
    assert first_path("a Google Alerts feed for the keyword Vercel") == "/google/alerts/Vercel"


def test_a_latin_value_glued_to_a_chinese_word_meets_its_label():
    assert first_path("IT之家 ipad之家 频道的订阅") == "/ithome/ipad"


def test_what_someone_does_names_them():
    assert first_path("track what gaearon stars on github") == "/github/starred_repos/gaearon"


def test_a_researcher_the_asker_follows_is_someone_unnamed():
    chosen, ctx = route("new citations of a researcher I follow on Google Scholar")

    assert chosen is False and [n["parameter"] for n in ctx.needs] == ["id"]


@pytest.mark.parametrize(
    "question",
    [
        "news.ycombinator.com/submitted?id=../../etc/passwd",
        "news.ycombinator.com/submitted?id=%3Cscript%3Ealert(1)%3C/script%3E",
        "https://music.163.com/#/artist/album?id=..%2F..%2Fadmin",
        "https://music.163.com/#/artist/album?id=%00%0A",
    ],
)
def test_a_hostile_value_in_a_pages_query_never_reaches_a_path(question):
    _chosen, ctx = route(question)

    for path, _route in ctx.paths:
        assert ".." not in unquote(path) and "<" not in unquote(path), path
        assert "\x00" not in unquote(path) and "\n" not in unquote(path), path
