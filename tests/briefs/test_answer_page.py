"""The answer page: a needs_input brief reads as a question (the input first, its refused routes
one neutral line, usage and the run log counting different things by different names, hints
as sentences); cancel tells the truth before and after the end; the follow-up box and the
suggested questions continue the thread, in place for the page's script."""

import pytest
from django.urls import reverse
from django.utils import translation

from briefs.models import Brief, BriefOutcome, BriefStatus, UsageLimits
from briefs.steps import step_append
from tests.brief_examples import finished_brief, make_brief
from tests.briefs.test_views import Tags, page

pytestmark = pytest.mark.django_db

NEED = {
    "parameter": "repo",
    "description": "repository name",
    "format": "owner/name",
    "source": "GitHub",
    "route": "/github/issue/:user/:repo",
}
MISSING = "missing_subject: the question gives no value for :repo"
JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture(autouse=True)
def unreachable_rsshub(settings):
    settings.RSSHUB_URL = "http://127.0.0.1:9"  # nothing listens


def asking_brief(owner, refusals: int = 7) -> Brief:
    brief = finished_brief(
        owner,
        question="Open issues on GitHub",
        outcome=BriefOutcome.NEEDS_INPUT,
        needs=[NEED],
        body="As of now, the question does not say what to look up, so nothing was fetched.",
        citations=[],
        coverage={},
        usage={"llm_calls": 0, "steps": 2, "budget": 8, "nodes": {}},
    )
    step_append(brief_id=brief.pk, kind="step_started", payload={"step": 1, "budget": 8})
    step_append(brief_id=brief.pk, kind="step_started", payload={"step": 2, "budget": 8})
    for n in range(refusals):
        payload = {"node": "route", "value": f"/github/r{n}/:user/:repo", "reason": MISSING}
        step_append(brief_id=brief.pk, kind="choice_rejected", payload=payload)
    step_append(brief_id=brief.pk, kind="brief_ready", payload={"outcome": "needs_input"})
    return brief


def step_tones(html: str) -> list[str]:
    return [a["class"] for a in Tags(html).find("li") if "step" in a.get("class", "").split()]


# --- needs_input reads as a question --------------------------------------------------------


def test_a_brief_that_needs_input_leads_with_the_input(owner_client, owner):
    html = page(owner_client.get(asking_brief(owner).get_absolute_url()))

    assert html.index('id="needs-form"') < html.index('id="brief-body"')
    assert "One thing is missing to answer this" in html
    two = asking_brief(owner, refusals=0)
    Brief.objects.filter(pk=two.pk).update(needs=[{**NEED, "parameter": "user"}, NEED])
    assert "2 things are missing to answer this" in page(owner_client.get(two.get_absolute_url()))
    [hint] = [a for a in Tags(html).find("p") if a.get("id") == "id_value_0_help"]
    assert "Repository name. Give it as <code>owner/name</code>." in html
    assert " · format" not in html and hint


def test_its_refused_routes_fold_into_one_neutral_line(owner_client, owner):
    html = page(owner_client.get(asking_brief(owner).get_absolute_url()))

    assert "7 routes need a value the question does not give: repo" in html
    [fold] = Tags(html).find("li", data_folded="7")
    assert fold["class"] == "step tone-ask step-fold"
    assert not any("tone-bad" in tone for tone in step_tones(html)), step_tones(html)


def test_a_lone_refusal_is_a_step_of_its_own_and_still_not_red(owner_client, owner):
    html = page(owner_client.get(asking_brief(owner, refusals=1).get_absolute_url()))

    assert not Tags(html).find("li", data_folded="1")
    assert "step tone-ask" in step_tones(html)


def test_a_running_brief_is_not_folded_its_refusals_arrive_one_by_one(owner_client, owner):
    brief = make_brief(owner, status=BriefStatus.RUNNING)
    for n in range(3):
        payload = {"node": "route", "value": f"/r{n}/:repo", "reason": MISSING}
        step_append(brief_id=brief.pk, kind="choice_rejected", payload=payload)

    html = page(owner_client.get(brief.get_absolute_url()))

    assert step_tones(html) == ["step tone-ask"] * 3


def test_the_folded_line_reads_in_chinese(owner_client, owner):
    brief = asking_brief(owner)
    owner_client.cookies["django_language"] = "zh-hans"

    html = page(owner_client.get(brief.get_absolute_url()))

    assert "7 条路由需要问题中没有给出的值：仓库" in html  # noqa: RUF001
    assert "回答这个问题还缺 1 项信息" in html


def test_usage_and_the_run_log_name_what_they_count(owner_client, owner):
    html = page(owner_client.get(asking_brief(owner).get_absolute_url()))

    assert "0 model calls · 2 of 8 budget steps" in html
    assert '<h2>Run log</h2> <span class="muted">entries: <span id="step-count">10</span>' in html
    assert html.count('data-kind="step_started"') == 2, "one timeline row per budget step"


# --- cancel tells the truth ------------------------------------------------------------------


def test_cancelling_a_running_brief_says_so_on_its_page_until_it_ends(owner_client, owner):
    brief = make_brief(owner, status=BriefStatus.RUNNING)

    response = owner_client.post(reverse("brief-cancel", args=[brief.pk]), follow=True)

    brief.refresh_from_db()
    assert brief.cancel_requested and brief.status == BriefStatus.RUNNING
    assert page(response).count("Cancel requested: the run will stop at its next step.") == 1
    Brief.objects.filter(pk=brief.pk).update(status=BriefStatus.SUCCEEDED)
    final = page(owner_client.get(brief.get_absolute_url()))
    assert "Cancel requested" not in final and 'id="cancel-notice"' not in final
    assert "The cancel came too late: the brief had already finished." in final


def test_a_cancel_after_the_end_says_the_brief_had_finished(owner_client, owner):
    brief = finished_brief(owner, outcome=BriefOutcome.NO_DATA)

    response = owner_client.post(reverse("brief-cancel", args=[brief.pk]), follow=True)

    brief.refresh_from_db()
    assert (brief.status, brief.cancel_requested) == (BriefStatus.SUCCEEDED, False)
    html = page(response)
    assert "The brief had already finished: there was nothing to cancel." in html
    assert "Cancel requested" not in html and "cancel came too late" not in html


def test_a_late_cancel_reads_in_chinese(owner_client, owner):
    brief = finished_brief(owner)
    owner_client.cookies["django_language"] = "zh-hans"

    response = owner_client.post(reverse("brief-cancel", args=[brief.pk]), follow=True)

    assert "简报已经完成，没有可取消的运行。" in page(response)  # noqa: RUF001


def test_cancelling_a_queued_brief_ends_it_and_says_so(owner_client, owner):
    brief = make_brief(owner)

    response = owner_client.post(reverse("brief-cancel", args=[brief.pk]), follow=True)

    brief.refresh_from_db()
    assert brief.status == BriefStatus.CANCELLED
    assert "The brief is cancelled." in page(response)


# --- the follow-up box and the suggested questions -----------------------------------------


def test_the_follow_up_box_and_suggestions_sit_under_the_brief(owner_client, owner):
    brief = finished_brief(owner, question="What is new on RSSHub test?")

    html = page(owner_client.get(brief.get_absolute_url()))

    assert html.index('id="brief-body"') < html.index('id="follow-up-form"')
    assert html.index('id="follow-up-form"') < html.index('id="suggestions"')
    follow_up_url = reverse("brief-follow-up", args=[brief.pk])
    forms = Tags(html).find("form", action=follow_up_url)
    assert len(forms) == 4, "the box and three suggestions"
    questions = [a["value"] for a in Tags(html).find("input", name="question")]
    assert questions == [
        "Tell me more about “Title one”",
        "What else is new on RSSHub Test?",
        "What did RSSHub Test publish this week?",
    ]


def test_a_follow_up_without_script_opens_its_page(owner_client, owner):
    brief = finished_brief(owner)

    response = owner_client.post(
        reverse("brief-follow-up", args=[brief.pk]), {"question": "And yesterday?"}
    )

    follow_up = Brief.objects.get(follow_up_of=brief)
    assert response.status_code == 302 and response["Location"] == follow_up.get_absolute_url()
    assert (follow_up.question, follow_up.status, follow_up.offline) == (
        "And yesterday?",
        BriefStatus.QUEUED,
        brief.offline,
    )


def test_a_follow_up_in_place_answers_where_its_live_article_is(owner_client, owner):
    brief = finished_brief(owner)

    response = owner_client.post(
        reverse("brief-follow-up", args=[brief.pk]), {"question": "And yesterday?"}, **JSON
    )

    follow_up = Brief.objects.get(follow_up_of=brief)
    assert response.status_code == 201
    assert response.json() == {
        "id": follow_up.pk,
        "url": follow_up.get_absolute_url(),
        "fragment": reverse("brief-fragment", args=[follow_up.pk]),
    }
    fragment = page(owner_client.get(response.json()["fragment"]))
    assert 'id="live"' in fragment and f'data-ws="/ws/briefs/{follow_up.pk}/"' in fragment


@pytest.mark.parametrize("question", ["", "   ", "x" * 2001])
def test_an_empty_or_overlong_follow_up_starts_nothing(owner_client, owner, question):
    brief = finished_brief(owner)

    response = owner_client.post(
        reverse("brief-follow-up", args=[brief.pk]), {"question": question}, **JSON
    )

    assert response.status_code == 400 and response.json()["message"]
    assert Brief.objects.count() == 1


def test_another_users_brief_takes_no_follow_up(other_client, owner):
    brief = finished_brief(owner)

    response = other_client.post(
        reverse("brief-follow-up", args=[brief.pk]), {"question": "mine now?"}, **JSON
    )

    assert response.status_code == 404 and Brief.objects.count() == 1


def test_a_follow_up_refused_by_the_quota_says_why(owner_client, owner):
    UsageLimits.objects.create(user=owner, briefs_per_day=0)
    brief = finished_brief(owner)

    response = owner_client.post(
        reverse("brief-follow-up", args=[brief.pk]), {"question": "one more"}, **JSON
    )

    assert response.status_code == 429 and response.json()["message"]
    assert Brief.objects.count() == 1


def test_suggestions_are_in_the_briefs_language_and_never_its_question(owner_client, owner):
    with translation.override("zh-hans"):
        brief = finished_brief(owner, question="RSSHub Test 上有什么新内容？", language="zh-hans")  # noqa: RUF001

    html = page(owner_client.get(brief.get_absolute_url()))

    questions = [a["value"] for a in Tags(html).find("input", name="question")]
    assert questions[0] == "详细说说“Title one”"
    assert "RSSHub Test 上还有什么新内容？" in questions  # noqa: RUF001
    assert brief.question not in questions
    assert Tags(html).find("ul", id="suggestions")[0]["lang"] == "zh-Hans"
