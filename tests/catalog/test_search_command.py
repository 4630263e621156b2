"""``manage.py search_routes``: the readable table, the JSON list, and refusals."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

ZHIHU_HOT = "/zhihu/hot/:category?"


@pytest.fixture(autouse=True)
def recheck_every_search(settings):
    """An index built from another test's rolled-back changes must not answer here."""
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 0


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("search_routes", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_it_prints_platforms_then_routes_with_scores():
    lines = run("知乎热榜上现在大家在讨论什么", "--limit", "3").splitlines()
    platforms, routes = lines.index("Platforms"), lines.index("Routes")
    assert platforms < routes
    rank, score, namespace = lines[platforms + 2].split()[:3]
    assert (rank, namespace) == ("1", "zhihu") and float(score) > 0
    rank, score, path = lines[routes + 2].split()[:3]
    assert (rank, path) == ("1", ZHIHU_HOT) and float(score) > 0
    assert len(lines) - routes - 2 == 3, "--limit 3 prints three routes"


@pytest.mark.django_db
def test_it_prints_routes_as_json():
    routes = json.loads(run("知乎热榜", "--json", "--limit", "4"))
    assert len(routes) == 4
    assert routes[0]["namespace"] == "zhihu" and routes[0]["route"] == ZHIHU_HOT
    assert {"namespace", "route", "score", "name", "example", "platform_score"} <= set(routes[0])
    scores = [r["score"] for r in routes]
    assert scores == sorted(scores, reverse=True) and all(isinstance(s, float) for s in scores)


@pytest.mark.django_db
def test_it_says_when_nothing_matches():
    assert "No platform or route matches" in run("?!?")
    assert json.loads(run("?!?", "--json")) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["   "], "the question is empty"),
        (["x" * 2001], "at most 2000"),
        (["知乎\x07热榜"], "control character"),
        (["知乎", "--limit", "0"], "--limit must be between 1 and 100"),
        (["知乎", "--limit", "1000"], "--limit must be between 1 and 100"),
        (["知乎", "--platforms", "-1"], "--platforms must be between 1 and 100"),
    ],
)
def test_it_refuses_bad_input_with_a_clear_error(args, complaint):
    with pytest.raises(CommandError, match=complaint):
        run(*args)
