"""The brief list: rows that say what each brief found (snippet, sources, outcome, time) with
their actions, an empty list that offers questions that work, filters that make no sense list
nothing; the follow-up picker names each question once, with its date."""

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from briefs import selectors
from briefs.examples import EXAMPLE_QUESTIONS
from briefs.markdown import body_snippet, text_cut
from briefs.models import Brief, BriefOutcome, BriefStatus
from tests.agent.test_agent_route_offline import route
from tests.brief_examples import finished_brief, make_brief
from tests.briefs.test_views import Tags, chinese, page  # noqa: F401 -- a fixture

pytestmark = pytest.mark.django_db


def rows(body: str) -> dict[int, dict]:
    """Each row of the list: its id, and the actions and text it carries."""
    tags = Tags(body)
    found = {}
    for attrs in tags.find("tr"):
        if "data-brief" in attrs:
            found[int(attrs["data-brief"])] = attrs
    return found


def row_html(body: str, brief_id: int) -> str:
    start = body.index(f'id="brief-row-{brief_id}"')
    return body[start : body.index("</tr>", start)]


def actions(html: str) -> list[str]:
    return [a["data-action"] for t, a in Tags(html).tags if "data-action" in a]


# --- rows -------------------------------------------------------------------------------------


def test_a_row_shows_snippet_sources_outcome_time_and_actions(owner_client, owner):
    brief = finished_brief(
        owner,
        outcome=BriefOutcome.ANSWERED,
        created_at=datetime(2026, 5, 1, 9, 30, tzinfo=UTC),
        body="As of now: 2 items.\n\n- **First story** · Wire [1]\n- Second *story* [2]\n",
        citations=[{"n": 1}, {"n": 2}],
    )
    html = row_html(page(owner_client.get(reverse("brief-list"))), brief.pk)
    assert '<p class="snippet">As of now: 2 items.</p>' in html
    assert '<span class="source-count" title="2 sources">2</span>' in html
    assert 'data-outcome="answered"' in html
    assert 'datetime="2026-05-01T09:30:00+00:00"' in html
    assert actions(html) == ["open", "rerun", "follow-up", "delete"]
    assert f'href="/?follow_up={brief.pk}#ask"' in html
    assert f'action="/briefs/{brief.pk}/rerun/"' in html and "csrfmiddlewaretoken" in html


def test_a_running_brief_can_be_opened_or_deleted_only(owner_client, owner):
    brief = make_brief(owner, "still running", status=BriefStatus.RUNNING)
    html = row_html(page(owner_client.get(reverse("brief-list"))), brief.pk)
    assert actions(html) == ["open", "delete"]
    assert "snippet" not in html
    assert 'class="source-count" title="0 sources">0<' in html


@pytest.mark.parametrize("citations", [{"n": 1}, "three", 7, True])
def test_citations_that_are_not_a_list_count_as_no_source(owner_client, owner, citations):
    Brief.objects.filter(pk=finished_brief(owner).pk).update(citations=citations)
    [brief] = selectors.briefs_listed(selectors.briefs_of(owner))
    assert brief.source_count == 0


def test_hostile_text_in_a_row_is_escaped(owner_client, owner):
    finished_brief(
        owner,
        question="<script>alert(1)</script>",
        body="- <img src=x onerror=alert(2)> [1]\n- [click](javascript:alert(3))",
    )
    body = page(owner_client.get(reverse("brief-list")))
    assert "<script>alert" not in body and "<img src=x" not in body
    assert 'href="javascript:' not in body
    assert "&lt;img src=x onerror=alert(2)&gt;" in body, "the snippet, as text"


def test_another_users_briefs_are_not_listed(owner_client, other_user):
    finished_brief(other_user, question="their secret question")
    body = page(owner_client.get(reverse("brief-list")))
    assert "their secret question" not in body
    assert not rows(body)


def test_the_list_reads_in_constant_queries(owner_client, owner, django_assert_num_queries):
    for n in range(25):
        finished_brief(owner, question=f"question {n}", citations=[{"n": 1}] * (n % 4))
    # session, user, count, page with snippets and counts, unread watch runs (the navigation)
    with django_assert_num_queries(5):
        body = page(owner_client.get(reverse("brief-list")))
    assert len(rows(body)) == 20


# --- actions ----------------------------------------------------------------------------------


def test_delete_from_the_list_asks_first_without_script(owner_client, owner):
    brief = finished_brief(owner, question="keep me for now")
    response = owner_client.post(
        reverse("brief-delete", args=[brief.pk]), {"ask_first": "1", "next": "/briefs/?q=keep"}
    )
    assert response.status_code == 200
    assert Brief.objects.filter(pk=brief.pk).exists(), "nothing is deleted before confirming"
    confirm = Tags(page(response))
    assert confirm.find("input", name="next", value="/briefs/?q=keep")
    assert confirm.find("a", id="keep-brief", href="/briefs/?q=keep")


def test_a_confirmed_delete_goes_back_to_the_list_it_came_from(owner_client, owner):
    brief = finished_brief(owner)
    response = owner_client.post(
        reverse("brief-delete", args=[brief.pk]), {"next": "/briefs/?q=cats&page=2"}
    )
    assert (response.status_code, response["Location"]) == (302, "/briefs/?q=cats&page=2")
    assert not Brief.objects.filter(pk=brief.pk).exists()


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", "briefs/"]
)
def test_delete_never_sends_to_another_site(owner_client, owner, target):
    brief = finished_brief(owner)
    response = owner_client.post(reverse("brief-delete", args=[brief.pk]), {"next": target})
    assert (response.status_code, response["Location"]) == (302, reverse("brief-list"))


def test_list_actions_refuse_another_users_brief(client, owner, other_user):
    theirs = finished_brief(other_user)
    client.force_login(owner)
    for name in ("brief-rerun", "brief-delete"):
        response = client.post(reverse(name, args=[theirs.pk]), {"next": "/briefs/"})
        assert response.status_code == 404, name
    assert Brief.objects.filter(owner=other_user).count() == 1


def test_list_actions_need_the_csrf_token(owner):
    brief = finished_brief(owner)
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    for name in ("brief-rerun", "brief-delete"):
        assert client.post(reverse(name, args=[brief.pk])).status_code == 403, name
    assert Brief.objects.filter(owner=owner).count() == 1


# --- empty and filtered -------------------------------------------------------------------------


def test_an_empty_list_offers_questions_that_ask_themselves(owner_client, owner):
    body = page(owner_client.get(reverse("brief-list")))
    assert 'id="no-briefs"' in body
    buttons = [a for t, a in Tags(body).tags if t == "button" and a.get("class") == "example"]
    assert len(buttons) == len(EXAMPLE_QUESTIONS)
    for question in EXAMPLE_QUESTIONS:
        assert Tags(body).find("input", name="question", value=str(question))
    response = owner_client.post(reverse("home"), {"question": str(EXAMPLE_QUESTIONS[0])})
    brief = Brief.objects.get(owner=owner)
    assert response["Location"] == brief.get_absolute_url()
    assert brief.question == str(EXAMPLE_QUESTIONS[0])


def test_the_home_page_offers_the_examples_until_the_first_brief(owner_client, owner):
    assert 'id="examples"' in page(owner_client.get(reverse("home")))
    finished_brief(owner)
    assert 'id="examples"' not in page(owner_client.get(reverse("home")))


def test_a_filter_without_match_says_so_and_offers_no_examples(owner_client, owner):
    finished_brief(owner, question="about cats")
    body = page(owner_client.get(reverse("brief-list"), {"q": "dogs"}))
    assert 'id="no-match"' in body and 'id="examples"' not in body
    assert not rows(body)


@pytest.mark.parametrize(
    "params",
    [
        {"since": "2026-03-01", "until": "2026-01-01"},
        {"since": "2026-13-45"},
        {"status": "<script>"},
        {"q": "x" * 201},
    ],
    ids=["end-before-start", "no-such-date", "no-such-status", "too-long"],
)
def test_filters_that_make_no_sense_list_nothing_with_the_error(owner_client, owner, params):
    finished_brief(owner, question="listed otherwise", created_at=datetime(2026, 2, 1, tzinfo=UTC))
    response = owner_client.get(reverse("brief-list"), params)
    body = page(response)
    assert response.status_code == 200
    assert 'id="filter-error"' in body
    assert not rows(body), "an invalid filter listed briefs"
    assert 'id="examples"' not in body and "<script>" not in body


def test_the_end_date_error_is_translated(owner_client, owner, chinese):  # noqa: F811
    body = page(
        owner_client.get(
            reverse("brief-list"),
            {"since": "2026-03-01", "until": "2026-01-01"},
            HTTP_ACCEPT_LANGUAGE="zh-hans",
        )
    )
    assert "结束日期早于开始日期" in body


# --- the follow-up picker -----------------------------------------------------------------------


def follow_up_options(client, **params) -> list[tuple[str, str, bool]]:
    body = page(client.get(reverse("home"), params))
    start = body.index('name="follow_up_of"')
    select = body[start : body.index("</select>", start)]
    options = []
    for part in select.split("<option")[2:]:  # the first is "a new question"
        value = part.split('value="', 1)[1].split('"', 1)[0]
        label = part.split(">", 1)[1].split("</option", 1)[0]
        options.append((value, label, " selected" in part.split(">", 1)[0]))
    return options


def test_the_picker_names_each_question_once_with_its_date(owner_client, owner):
    day = datetime(2026, 4, 1, 8, 0, tzinfo=UTC)
    finished_brief(owner, question="What is new?", created_at=day)
    newest = finished_brief(owner, question="what is NEW?", created_at=day + timedelta(days=2))
    other = finished_brief(owner, question="Something else", created_at=day + timedelta(days=1))
    options = follow_up_options(owner_client)
    assert [v for v, _, _ in options] == [str(newest.pk), str(other.pk)]
    assert options[0][1] == "what is NEW? · 04/03/2026 8 a.m. UTC"
    assert options[1][1] == "Something else · 04/02/2026 8 a.m. UTC"


def test_the_picker_shows_dates_in_the_browsers_zone(owner_client, owner):
    finished_brief(owner, question="late", created_at=datetime(2026, 4, 1, 23, 0, tzinfo=UTC))
    owner_client.cookies["tz"] = "Asia/Shanghai"
    [(_, label, _)] = follow_up_options(owner_client)
    assert label == "late · 04/02/2026 7 a.m. CST", "the zone is named"


def test_the_brief_to_follow_up_stands_for_its_question(owner_client, owner):
    older = finished_brief(owner, question="same", created_at=datetime(2026, 1, 1, tzinfo=UTC))
    newer = finished_brief(owner, question="same", created_at=datetime(2026, 2, 1, tzinfo=UTC))
    options = follow_up_options(owner_client, follow_up=older.pk)
    assert [(v, s) for v, _, s in options] == [(str(older.pk), True)]
    assert str(newer.pk) not in [v for v, _, _ in options]


def test_the_picker_keeps_to_a_bounded_number_of_questions(owner, django_assert_num_queries):
    for n in range(selectors.FOLLOW_UP_CHOICES + 5):
        make_brief(owner, f"question {n % (selectors.FOLLOW_UP_CHOICES + 2)}")
    with django_assert_num_queries(1):
        choices = selectors.follow_up_choices(owner=owner)
    assert len(choices) == selectors.FOLLOW_UP_CHOICES
    assert len({c.question for c in choices}) == selectors.FOLLOW_UP_CHOICES


# --- snippets ---------------------------------------------------------------------------------


def test_a_snippet_is_the_first_sentence_without_markup():
    body = "Lead line [1]. Then more.\n\n## Wire\n\n- **One** [1]\\\n  why it matters\n- Two [2]"
    assert body_snippet(body) == "Lead line."


def test_a_snippet_is_never_a_heading_and_a_label_keeps_its_sentence():
    assert body_snippet("# Title\n\nFirst `code` [3]. Second.") == "First code."
    body = "**Not found.** As of 10:00, nothing. More.\n\n## Coverage\n\n- `/a`: error text"
    assert body_snippet(body) == "Not found. As of 10:00, nothing."


def test_a_snippet_of_a_brief_that_read_nothing_is_no_error_message():
    body = (
        "**Can't query.** As of 10:00 UTC, RSSHub itself did not answer, so no source was "
        "fetched; the sources did not fail. Ask again once RSSHub is back.\n\n## Coverage\n\n"
        "- `/test/error`: RSSHub could not get test.\n  - Details: ECONNREFUSED 127.0.0.1:1200"
    )
    snippet = body_snippet(body)
    assert snippet.startswith("Can't query. As of 10:00 UTC, RSSHub itself did not answer")
    assert "ECONNREFUSED" not in snippet and "Details" not in snippet


def test_a_chinese_snippet_ends_at_the_first_full_stop():
    text = "截至 10:00，共 2 条内容。最新的在 9:00。"  # noqa: RUF001
    assert body_snippet(text) == text[: text.index("。") + 1]


def test_a_snippet_without_a_paragraph_is_its_first_entry():
    assert body_snippet("## Wire\n\n- **One** thing. Two.\n- Other") == "One thing."


def test_a_long_snippet_ends_after_a_whole_word():
    text = "word " * 100
    cut = text_cut(text, 30)
    assert cut == "word word word word word word…"
    assert len(text_cut("长" * 300, 50)) == 50


# --- the examples work offline ----------------------------------------------------------------

EXAMPLE_ROUTES = ["/hackernews", "/v2ex/topics/latest", "/zhihu/hot", "/36kr/newsflashes"]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_example_question_finds_its_route_offline(language, chinese):  # noqa: F811
    assert len(EXAMPLE_QUESTIONS) == len(EXAMPLE_ROUTES)
    with translation.override(language):
        questions = [str(q) for q in EXAMPLE_QUESTIONS]
    if language != "en":
        assert questions != [str(q) for q in EXAMPLE_QUESTIONS], "translated"
    for question, expected in zip(questions, EXAMPLE_ROUTES, strict=True):
        chosen, ctx = route(question)
        assert chosen and ctx.paths[0][0] == expected, (question, ctx.paths[:2], ctx.needs)
