"""The outcome in the dashboard: its badge on the brief page, the home page and the list (never
the green of success for a brief without an answer), the list's outcome filter, and the input a
``needs_input`` brief shows, whose answer starts a follow-up that carries the value."""

import re

import pytest
from django.urls import reverse

from briefs.models import Brief, BriefOutcome, BriefStatus
from tests.briefs.test_views import Tags, finished_brief, make_brief, page

pytestmark = pytest.mark.django_db

NEED = {
    "parameter": "repo",
    "description": "Repository, as owner/name",
    "format": "owner/name",
    "source": "GitHub",
    "route": "/github/issue/:user/:repo",
}


@pytest.fixture(autouse=True)
def unreachable_rsshub(settings):
    settings.RSSHUB_URL = "http://127.0.0.1:9"  # nothing listens: the home page's probe fails


def asking_brief(owner, **fields) -> Brief:
    values = {
        "outcome": BriefOutcome.NEEDS_INPUT,
        "needs": [NEED],
        "body": "As of now, the question does not say what to look up.",
        "citations": [],
        "coverage": {},
        **fields,
    }
    return finished_brief(owner, question="Open issues on GitHub", **values)


def badges(html: str) -> list[dict]:
    """The status or outcome badges of briefs (coverage rows have badges of their own)."""
    spans = Tags(html).find("span")
    return [a for a in spans if "badge" in (a.get("class") or "").split() and "data-status" in a]


def test_a_brief_without_data_never_wears_the_success_badge(owner_client, owner):
    brief = finished_brief(owner, outcome=BriefOutcome.NO_DATA, outcome_reason="unreachable")

    for url in (brief.get_absolute_url(), reverse("brief-list"), reverse("home")):
        shown = badges(page(owner_client.get(url)))
        assert [(b["data-outcome"], b["class"]) for b in shown] == [
            ("no_data", "badge tone-bad")
        ], url
    assert "no data · can&#x27;t query" in page(owner_client.get(brief.get_absolute_url()))


@pytest.mark.parametrize(
    ("outcome", "tone"),
    [
        ("answered", "ok"),
        ("partial", "warn"),
        ("no_data", "bad"),
        ("off_topic", "topic"),
        ("needs_input", "ask"),
    ],
)
def test_each_outcome_has_a_badge_of_its_own_colour(owner_client, owner, outcome, tone):
    brief = finished_brief(owner, outcome=outcome)

    [badge] = badges(page(owner_client.get(brief.get_absolute_url())))
    assert (badge["data-outcome"], badge["class"]) == (outcome, f"badge tone-{tone}")


def test_a_run_that_has_not_finished_shows_its_status(owner_client, owner):
    brief = make_brief(owner, status=BriefStatus.RUNNING)

    [badge] = badges(page(owner_client.get(brief.get_absolute_url())))
    assert (badge["data-status"], badge["class"], badge.get("data-outcome")) == (
        "running",
        "badge tone-live",
        None,
    )


def test_the_list_filters_by_outcome(owner_client, owner):
    finished_brief(owner, question="answered one", outcome="answered")
    finished_brief(owner, question="empty one", outcome="no_data", outcome_reason="empty")
    make_brief(owner, "queued one")

    def questions(**params):
        body = page(owner_client.get(reverse("brief-list"), params))
        listed = r'<a href="/briefs/\d+/" id="brief-q-\d+" translate="no">([^<]+)</a>'
        return re.findall(listed, body)

    assert questions(outcome="no_data") == ["empty one"]
    assert questions(outcome="answered") == ["answered one"]
    assert len(questions()) == 3
    assert (
        "Select a valid choice"
        in page(owner_client.get(reverse("brief-list"), {"outcome": "succeeded"}))
        or len(questions(outcome="succeeded")) == 3
    )


def test_a_brief_that_needs_input_shows_an_input_for_the_missing_value(owner_client, owner):
    brief = asking_brief(owner)

    html = page(owner_client.get(brief.get_absolute_url()))

    [form] = Tags(html).find("form", id="needs-form")
    assert form["action"] == reverse("brief-answer", args=[brief.pk])
    [field] = Tags(html).find("input", name="value_0")
    assert field["placeholder"] == "owner/name"
    assert "Which GitHub repo?" in html
    assert "Repository, as owner/name" in html


def test_an_answer_to_a_brief_that_needs_input_starts_a_follow_up(owner_client, owner):
    brief = asking_brief(owner)

    response = owner_client.post(
        reverse("brief-answer", args=[brief.pk]), {"value_0": "django/django"}
    )

    follow_up = Brief.objects.exclude(pk=brief.pk).get()
    assert response.status_code == 302 and response["Location"] == follow_up.get_absolute_url()
    assert follow_up.follow_up_of_id == brief.pk
    assert follow_up.question == 'Open issues on GitHub "django/django"'
    assert follow_up.status == BriefStatus.QUEUED


@pytest.mark.parametrize("value", ["", "   ", "x" * 201])
def test_an_empty_or_overlong_answer_is_refused_and_starts_nothing(owner_client, owner, value):
    brief = asking_brief(owner)

    response = owner_client.post(
        reverse("brief-answer", args=[brief.pk]), {"value_0": value}, follow=True
    )

    assert Brief.objects.count() == 1
    assert "Give a value for each question asked." in page(response)


def test_only_a_brief_that_needs_input_takes_an_answer(owner_client, owner):
    brief = finished_brief(owner, outcome=BriefOutcome.ANSWERED)

    response = owner_client.post(
        reverse("brief-answer", args=[brief.pk]), {"value_0": "x"}, follow=True
    )

    assert Brief.objects.count() == 1
    assert "Give a value for each question asked." in page(response)
    assert not Tags(page(owner_client.get(brief.get_absolute_url()))).find("form", id="needs-form")


def test_another_users_brief_takes_no_answer(client, other_user, owner):
    brief = asking_brief(owner)
    client.force_login(other_user)

    response = client.post(reverse("brief-answer", args=[brief.pk]), {"value_0": "django/django"})

    assert response.status_code == 404
    assert Brief.objects.count() == 1


def test_the_answer_form_refuses_get(owner_client, owner):
    brief = asking_brief(owner)
    assert owner_client.get(reverse("brief-answer", args=[brief.pk])).status_code == 405
