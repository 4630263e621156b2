"""The outcome in the API and the webhook event: ``outcome``, ``reason`` and ``needs`` on a brief,
null until a run succeeds; the list's ``outcome`` filter."""

import json
import uuid

import pytest

from briefs.models import BriefOutcome, BriefStatus
from briefs.webhooks import brief_finished_body
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db

BRIEFS = "/api/v1/briefs"
NEED = {
    "parameter": "repo",
    "description": "Repository, as owner/name",
    "format": "owner/name",
    "source": "GitHub",
    "route": "/github/issue/:user/:repo",
}
ASKED = {k: NEED[k] for k in ("parameter", "description", "format")}


def test_a_succeeded_brief_has_its_outcome_and_reason(api, owner, make_brief):
    brief = make_brief(
        owner, status=BriefStatus.SUCCEEDED, outcome="no_data", outcome_reason="unreachable"
    )

    body = api.get(f"{BRIEFS}/{brief.pk}").json()

    assert (body["outcome"], body["reason"], body["needs"]) == ("no_data", "unreachable", [])
    [listed] = api.get(BRIEFS).json()["results"]
    assert (listed["outcome"], listed["reason"]) == ("no_data", "unreachable")


@pytest.mark.parametrize("status", [BriefStatus.QUEUED, BriefStatus.RUNNING, BriefStatus.FAILED])
def test_an_unfinished_or_failed_brief_has_a_null_outcome(api, owner, make_brief, status):
    brief = make_brief(owner, status=status)

    body = api.get(f"{BRIEFS}/{brief.pk}").json()

    assert (body["outcome"], body["reason"], body["needs"]) == (None, None, [])


def test_a_brief_that_needs_input_lists_what_to_give(api, owner, make_brief):
    brief = make_brief(
        owner, status=BriefStatus.SUCCEEDED, outcome=BriefOutcome.NEEDS_INPUT, needs=[NEED]
    )

    body = api.get(f"{BRIEFS}/{brief.pk}").json()

    assert (body["outcome"], body["reason"]) == ("needs_input", None)
    assert body["needs"] == [ASKED]


def test_the_list_filters_by_outcome(api, owner, other_user, make_brief):
    answered = make_brief(owner, "a", status=BriefStatus.SUCCEEDED, outcome="answered")
    off_topic = make_brief(owner, "b", status=BriefStatus.SUCCEEDED, outcome="off_topic")
    make_brief(owner, "c")
    make_brief(other_user, "d", status=BriefStatus.SUCCEEDED, outcome="off_topic")

    def ids(**params):
        return [b["id"] for b in api.get(BRIEFS, params).json()["results"]]

    assert ids(outcome="off_topic") == [off_topic.pk]
    assert ids(outcome="answered", status="succeeded") == [answered.pk]
    assert len(ids()) == 3


@pytest.mark.parametrize("value", ["succeeded", "ANSWERED", "no data", ""])
def test_an_unknown_outcome_filter_is_refused_naming_it(api, value):
    response = api.get(BRIEFS, {"outcome": value})

    assert response.status_code == 400
    assert "outcome" in error_of(response)["extra"]["fields"]


def test_the_webhook_event_carries_the_outcome(owner, make_brief):
    brief = make_brief(
        owner, status=BriefStatus.SUCCEEDED, outcome=BriefOutcome.NEEDS_INPUT, needs=[NEED]
    )

    event = json.loads(brief_finished_body(brief, uuid.uuid4()))

    assert event["brief"]["status"] == "succeeded"
    assert (event["brief"]["outcome"], event["brief"]["reason"]) == ("needs_input", None)
    assert event["brief"]["needs"] == [ASKED]


def test_the_webhook_event_of_a_failed_run_has_no_outcome(owner, make_brief):
    brief = make_brief(owner, status=BriefStatus.FAILED, error="the worker died")

    event = json.loads(brief_finished_body(brief, uuid.uuid4()))

    assert (event["brief"]["outcome"], event["brief"]["reason"]) == (None, None)
