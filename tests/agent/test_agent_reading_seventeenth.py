"""The seventeenth pass of issue 29's reading rules. Against the real catalog snapshot where a
route is named, offline."""

import pytest

from agent.routes.documented import default_of
from agent.routes.queries import query_fill
from agent.routes.slots import route_slots
from tests.agent.test_agent_route_offline import first_path

pytestmark = pytest.mark.django_db

KEYED = "Filter parameters in `key=value&key2=value2` format. Supported keys: `category`, `userId`"


def _query(question: str, example: str = "/ex/category=news&userId=ab12", hosts=()) -> dict:
    [slot] = route_slots("/ex/:filter{.+}?", {"filter": KEYED}, "", example)
    values: dict = {}
    query_fill([slot], question, values, {}, hosts)
    return values


def test_the_keys_a_query_parameter_lists_are_no_values_to_choose():
    [slot] = route_slots("/ex/:filter{.+}?", {"filter": KEYED}, "", "/ex/category=news")

    assert slot.choices == []
    assert not slot.subject  # a setting: no one's name fills it


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("posts with userId 9f2e-77aa-41c0 please", "userId=9f2e-77aa-41c0"),
        ("posts where category=rumors", "category=rumors"),
        ("category Comebacks, userId 51x7", "category=Comebacks&userId=51x7"),
    ],
)
def test_a_pair_the_question_writes_out_is_the_query(question, query):
    assert _query(question) == {"filter": query}


def test_a_key_followed_by_a_plain_word_writes_no_pair():
    assert _query("sorted by category as usual") == {}


def test_two_words_the_example_writes_as_one_choose_its_pair():
    assert _query("only the music show ones", "/ex/category=musicshow&gender=female") == {
        "filter": "category=musicshow"
    }


def test_the_query_of_a_link_to_the_platforms_site_is_the_query():
    link = "watch https://www.example.com/search?q=lake&sorting=views for me"

    assert _query(link, hosts=("example.com",)) == {"filter": "q=lake&sorting=views"}
    assert _query(link, hosts=("elsewhere.org",)) == {}


def test_a_search_page_with_a_query_reads_the_search_route_with_it():
    question = "feed of https://wallhaven.cc/search?q=lighthouse&sorting=views"

    assert first_path(question) == "/wallhaven/search/q=lighthouse&sorting=views"


def test_a_page_with_a_query_fills_the_query_parameter_its_route_leaves_open():
    assert first_path("https://kpopping.com/kpics?gender=female pics feed") == (
        "/kpopping/kpics/gender=female"
    )


@pytest.mark.parametrize("text", ["Filter, empty by default", "筛选条件\uff0c默认为空"])
def test_a_default_said_to_be_empty_is_no_default(text):
    assert default_of("filter", text, "") is None
