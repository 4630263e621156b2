"""A platform's long name written with one slip still names it, weaker than written right."""

import pytest

from catalog.search_slips import _one_slip
from tests.agent.test_agent_route_offline import first_path

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("a", "b", "slip"),
    [
        ("tianjinmuseum", "tianjinmusuem", True),  # two letters swapped
        ("hackernews", "hackernwes", True),
        ("hackernews", "hackrnews", True),  # one left out
        ("hackernews", "hackernewss", True),  # one doubled
        ("hackernews", "hackerneus", True),  # one mistyped
        ("hackernews", "hakcernwes", False),  # two slips
        ("hackernews", "hackernewsletter", False),
    ],
)
def test_one_slip_is_one_letter_out_added_mistyped_or_two_swapped(a, b, slip):
    assert _one_slip(a, b) is slip


def test_a_long_name_written_with_a_slip_names_its_platform():
    assert first_path("tianjin musuem news pls") == "/tjbwg/news"


def test_a_name_written_right_is_not_read_as_another_with_a_slip():
    assert first_path("tianjin museum news pls") == "/tjbwg/news"
    assert first_path("Hacker News front page") == "/hackernews"
