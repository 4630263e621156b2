"""Briefs that ask about sources another brief fetched a moment ago (``fetching.flight``).

A second brief within the window makes no request and its coverage says how old the fetch is;
one after the window fetches; a brief created over the API with ``refresh`` fetches anyway.
Time is moved by setting the stored end of the fetch back, never by sleeping.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from briefs.models import Brief, BriefStatus
from briefs.tasks import run_brief
from briefs.tokens.service import token_issue
from fetching.models import PathFetch
from tests.agent.conftest import brief_run, feed, fetched, steps_of
from tests.api.conftest import ApiClient

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world", "offline")]

QUESTION = "latest Alpha Wire flash news"  # "latest" accepts the window like any question
PATH = "/alpha/flash"


@pytest.fixture
def alpha(stub_rsshub):
    stub_rsshub.route(PATH, feed("Chip news", "Phone news", "Tablet news"))
    return stub_rsshub


def fetched_ago(seconds: float) -> None:
    PathFetch.objects.filter(path=PATH).update(
        answered_at=timezone.now() - timedelta(seconds=seconds)
    )


def coverage_row(brief: Brief) -> dict:
    [row] = [r for r in brief.coverage["succeeded"] if r["path"] == PATH]
    return row


def test_a_second_brief_within_the_window_makes_no_request(run_owner, alpha):
    first = brief_run(run_owner, QUESTION)
    fetched_ago(40)
    second = brief_run(run_owner, QUESTION)

    assert fetched(alpha) == [PATH], "the second brief asked RSSHub again"
    assert (first.status, second.status) == (BriefStatus.SUCCEEDED, BriefStatus.SUCCEEDED)
    assert "fetch_age_s" not in coverage_row(first)
    age = coverage_row(second)["fetch_age_s"]
    assert 40 <= age <= 45
    source = PATH.strip("/").split("/")[0]
    assert f"`{PATH}`: {source} answered with 3 items. (from a fetch {age} s ago)" in second.body
    assert [c["title"] for c in second.citations] == [c["title"] for c in first.citations]
    assert steps_of(second, "fetch_result")[0]["fetch_age_s"] == age


def test_a_brief_after_the_window_fetches(run_owner, alpha):
    brief_run(run_owner, QUESTION)
    # The stand-in's feed says <ttl>5</ttl>, as RSSHub's do: its window is five minutes.
    fetched_ago(5 * 60 + 1)
    later = brief_run(run_owner, QUESTION)

    assert fetched(alpha) == [PATH, PATH]
    assert "fetch_age_s" not in coverage_row(later)
    assert "from a fetch" not in later.body


def test_a_brief_created_with_refresh_over_the_api_fetches(run_owner, alpha):
    brief_run(run_owner, QUESTION)
    secret = token_issue(user=run_owner, name="flight test").secret
    response = ApiClient(secret).post("/api/v1/briefs", {"question": QUESTION, "refresh": True})
    assert response.status_code == 202, response.content
    brief_id = response.json()["id"]
    run_brief(brief_id)
    refreshed = Brief.objects.get(pk=brief_id)

    assert refreshed.refresh is True
    assert fetched(alpha) == [PATH, PATH]
    assert "fetch_age_s" not in coverage_row(refreshed)
    detail = ApiClient(secret).get(f"/api/v1/briefs/{brief_id}").json()
    assert detail["refresh"] is True
