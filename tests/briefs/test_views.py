"""Dashboard pages: asking, reading and keeping briefs; isolation between users,
CSRF on every form, hostile text escaped, times in the user's zone, English and Chinese."""

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from briefs.models import Brief, BriefStatus, RunStep
from briefs.steps import step_append
from tests.brief_examples import ITEM_URL, finished_brief, make_brief
from tests.httpserver import Reply, ScriptedServer

pytestmark = pytest.mark.django_db

TZ_MIDDLEWARE = "briefs.middleware.TimezoneMiddleware"

# A question in the list: marked as the reader wrote it (translate="no").
LISTED_QUESTION_RE = re.compile(
    r'<a href="/briefs/\d+/" id="brief-q-\d+" translate="no">([^<]+)</a>'
)


@pytest.fixture(autouse=True)
def dashboard_settings(settings):
    """The settings lines the dashboard asks for (until they are in settings.py)."""
    if TZ_MIDDLEWARE not in settings.MIDDLEWARE:
        middleware = list(settings.MIDDLEWARE)
        middleware.insert(middleware.index(django_settings.MIDDLEWARE[-1]), TZ_MIDDLEWARE)
        settings.MIDDLEWARE = middleware
    settings.RSSHUB_URL = "http://127.0.0.1:9"  # nothing listens: RSSHub "does not answer"
    cache.clear()


def add_steps(brief: Brief, count: int = 3) -> list[RunStep]:
    kinds = [
        ("run_started", {"attempt": 1, "mode": "offline", "budget": 8, "fetch_retry": 2}),
        ("step_started", {"step": 1, "budget": 8, "node": "platform"}),
        (
            "choice",
            {"node": "platform", "chosen": ["test"], "reason": "top score", "method": "offline"},
        ),
        (
            "fetch_result",
            {
                "path": "/test/1",
                "outcome": "ok",
                "transient": False,
                "http_status": 200,
                "items_new": 5,
                "items_seen": 0,
                "latency_ms": 40,
                "message": "",
            },
        ),
    ]
    return [
        step_append(brief_id=brief.pk, kind=kind, payload=payload)
        for kind, payload in kinds[:count]
    ]


class Tags(HTMLParser):
    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def find(self, tag: str, **attrs) -> list[dict]:
        return [
            a
            for t, a in self.tags
            if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


def page(response) -> str:
    return response.content.decode()


# --- sign-in and navigation -------------------------------------------------------------------

PAGES = ["home", "brief-list", "route-health"]


@pytest.mark.parametrize("name", PAGES)
def test_it_requires_login(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_requires_login_for_a_brief(client, owner):
    brief = make_brief(owner)
    for url in (brief.get_absolute_url(), reverse("brief-markdown", args=[brief.pk])):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login"))


def test_it_signs_in_with_csrf_and_out(owner):
    client = Client(enforce_csrf_checks=True)
    login = client.get(reverse("login"))
    assert login.status_code == 200
    token = client.cookies["csrftoken"].value
    refused = client.post(reverse("login"), {"username": "alice", "password": "alice-pass-1234"})
    assert refused.status_code == 403, "a login POST without the CSRF token must be refused"
    response = client.post(
        reverse("login"),
        {"username": "alice", "password": "alice-pass-1234", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302
    home = client.get(reverse("home"))
    assert home.status_code == 200
    token = client.cookies["csrftoken"].value
    out = client.post(reverse("logout"), {"csrfmiddlewaretoken": token})
    assert out.status_code == 302
    assert client.get(reverse("home")).status_code == 302


def test_a_wrong_password_is_refused(client, owner):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "didn" in page(response)


def test_staff_see_the_admin_link_and_others_do_not(owner_client, staff_client):
    assert 'id="admin-link"' not in page(owner_client.get(reverse("home")))
    assert reverse("route-health") not in page(owner_client.get(reverse("home")))
    staff_home = page(staff_client.get(reverse("home")))
    assert Tags(staff_home).find("a", id="admin-link")[0]["href"] == reverse("admin:index")
    assert reverse("route-health") in staff_home


def test_it_changes_the_password(owner_client, owner):
    form = owner_client.get(reverse("password_change"))
    assert form.status_code == 200
    response = owner_client.post(
        reverse("password_change"),
        {
            "old_password": "alice-pass-1234",
            "new_password1": "a-new-long-pass-9876",
            "new_password2": "a-new-long-pass-9876",
        },
    )
    assert response.status_code == 302
    assert owner_client.get(response["Location"]).status_code == 200
    owner.refresh_from_db()
    assert owner.check_password("a-new-long-pass-9876")


# --- home -------------------------------------------------------------------------------------


def test_home_says_offline_and_that_rsshub_is_down(owner_client):
    body = page(owner_client.get(reverse("home")))
    assert "Offline mode" in body
    assert "RSSHub does not answer" in body


def test_home_names_the_configured_models_never_the_key(owner_client, settings):
    settings.OPENAI_API_KEY = "sk-SECRET-never-shown"
    settings.OPENAI_ROUTER_MODEL, settings.OPENAI_WRITER_MODEL = "router-x", "writer-y"
    body = page(owner_client.get(reverse("home")))
    assert "router-x / writer-y" in body
    assert "sk-SECRET" not in body
    assert 'name="offline"' in body, "with a model, the asker may still choose offline"


def test_home_checks_rsshub_with_the_key_and_never_shows_it(owner_client, settings):
    settings.RSSHUB_ACCESS_KEY = "rsshub-SECRET-key"
    with ScriptedServer() as rsshub:
        rsshub.route("/healthz", Reply(200, {"Content-Type": "text/plain"}, b"ok"))
        settings.RSSHUB_URL = url = rsshub.url
        first = page(owner_client.get(reverse("home")))
        second = page(owner_client.get(reverse("home")))
        assert len(rsshub.requests_to("/healthz")) == 1, "the answer is cached"
        assert rsshub.requests_to("/healthz")[0].query == {"key": ["rsshub-SECRET-key"]}
    assert "RSSHub answers." in first and "RSSHub answers." in second
    assert "rsshub-SECRET" not in first
    assert url not in first


def test_home_lists_recent_briefs_with_status_and_age(owner_client, owner, other_user):
    make_brief(owner, "my running question", status=BriefStatus.RUNNING)
    make_brief(other_user, "someone else's question")
    body = page(owner_client.get(reverse("home")))
    assert "my running question" in body
    assert "someone else" not in body
    assert 'data-status="running"' in body
    assert "ago" in body


def test_asking_creates_a_brief_and_opens_it(
    owner_client, owner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        response = owner_client.post(reverse("home"), {"question": "  what is new  "})
    brief = Brief.objects.get(owner=owner)
    assert response.status_code == 302
    assert response["Location"] == brief.get_absolute_url()
    assert brief.question == "what is new"
    assert brief.status == BriefStatus.QUEUED
    assert len(callbacks) == 2, "the first step's doorbell and the hand-off, both on commit"


def test_the_page_a_question_opens_shows_it_queued_with_its_first_step(
    owner_client, django_capture_on_commit_callbacks
):
    # The hand-off is captured, not run: no worker ever sees this brief.
    with django_capture_on_commit_callbacks():
        response = owner_client.post(reverse("home"), {"question": "what is new"}, follow=True)
    body = page(response)
    assert 'data-status="queued"' in body
    timeline = re.search(r'<ol class="timeline" id="timeline">(.*?)</ol>', body, re.S).group(1)
    assert re.findall(r'data-seq="(\d+)" data-kind="(\w+)"', timeline) == [("1", "brief_queued")]
    assert "Queued for a worker" in timeline
    assert 'data-after="1"' in body, "the live stream starts after the step already shown"


def test_asking_nothing_is_an_error(owner_client):
    response = owner_client.post(reverse("home"), {"question": "   "})
    assert response.status_code == 400
    error = re.search(r'<div class="field-error">(.*?)</div>', page(response), re.S)
    assert error, "the question field shows an error of its own"
    assert re.search(r"empty|required", error.group(1)), error.group(1)
    assert not Brief.objects.exists()


def test_a_follow_up_is_threaded(owner_client, owner):
    first = finished_brief(owner)
    response = owner_client.post(
        reverse("home"), {"question": "and tomorrow?", "follow_up_of": str(first.pk)}
    )
    assert response.status_code == 302
    assert Brief.objects.get(question="and tomorrow?").follow_up_of == first


def test_a_follow_up_of_another_users_brief_is_refused(owner_client, other_user):
    theirs = finished_brief(other_user)
    response = owner_client.post(
        reverse("home"), {"question": "sneaky", "follow_up_of": str(theirs.pk)}
    )
    assert response.status_code == 400
    assert not Brief.objects.filter(question="sneaky").exists()


def test_the_follow_up_form_is_prefilled(owner_client, owner):
    brief = finished_brief(owner, question="the original question")
    body = page(owner_client.get(reverse("home"), {"follow_up": brief.pk}))
    selected = Tags(body).find("option", value=str(brief.pk))
    assert selected and "selected" in selected[0]


# --- the brief page ---------------------------------------------------------------------------


def test_a_running_brief_shows_its_steps_and_the_live_hooks(owner_client, owner):
    brief = make_brief(owner, status=BriefStatus.RUNNING, started_at=timezone.now())
    add_steps(brief, 3)
    body = page(owner_client.get(brief.get_absolute_url()))
    tags = Tags(body)
    live = tags.find("section", id="live")[0]
    assert live["data-ws"] == f"/ws/briefs/{brief.pk}/"
    assert live["data-after"] == "3", "the socket resumes after the last server-rendered step"
    assert [a["data-seq"] for a in tags.find("li") if "data-seq" in a] == ["1", "2", "3"]
    assert "Step 1 of 8" in body
    assert "Chose <code>test</code> for platform (offline): top score" in body
    assert tags.find("button", id="cancel-button")
    assert 'name="csrfmiddlewaretoken"' in body
    assert not tags.find("button", id="rerun-button"), "a running brief has nothing to rerun"


def test_a_queued_brief_shows_its_queue_position(owner_client, owner, other_user):
    make_brief(other_user, "first in line")
    make_brief(owner, "second in line")
    mine = make_brief(owner, "third in line")
    body = page(owner_client.get(mine.get_absolute_url()))
    assert re.search(r'id="queue-position">3<', body)


def test_a_finished_brief_is_rendered_with_citations_and_coverage(owner_client, owner):
    brief = finished_brief(owner)
    add_steps(brief, 4)
    body = page(owner_client.get(brief.get_absolute_url()))
    tags = Tags(body)
    assert not tags.find("section", id="live"), "a finished brief needs no socket"
    cite = tags.find("a", data_n="1")
    assert cite and all(a["href"] == ITEM_URL for a in cite), "[1] and its source link the item"
    assert "Title one · RSSHub Test" in cite[0]["title"]
    assert tags.find("li", id="cite-1")
    assert "As of" in body
    assert '<code class="path">/<wbr>test/<wbr>error</code>' in body
    assert "upstream error" in body and "Error test" in body
    assert "321" in body, "usage shows the node's prompt tokens"
    assert "Offline fallbacks" in body
    for button in ("rerun-button", "copy-button"):
        assert tags.find("button", id=button), button
    assert tags.find("a", id="follow-up-link")[0]["href"] == "#follow-up"
    assert tags.find("a", id="delete-link")
    assert 'id="brief-markdown" type="application/json"' in body


def test_a_failed_brief_says_why(owner_client, owner):
    brief = make_brief(owner, status=BriefStatus.FAILED, error="internal error: KeyError")
    body = page(owner_client.get(brief.get_absolute_url()))
    assert "This brief failed" in body
    assert "internal error: KeyError" in body


def test_a_cancelled_brief_says_why(owner_client, owner):
    brief = make_brief(owner, status=BriefStatus.CANCELLED, error="Cancelled by its owner.")
    body = page(owner_client.get(brief.get_absolute_url()))
    assert "This brief was cancelled" in body and "Cancelled by its owner." in body


HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def test_hostile_text_is_escaped_everywhere_on_the_page(owner_client, owner):
    brief = finished_brief(
        owner,
        question=f"q {HOSTILE}",
        query=f"query {HOSTILE}",
        body=f"# Brief\n\n{HOSTILE}\n\n[x](javascript:alert(1)) ![i](https://evil.example/i.png)"
        f"\n\n<iframe src=https://evil.example></iframe><form action=/x><button>go</button></form>"
        f" [1]",
        citations=[
            {
                "n": 1,
                "title": f"title {HOSTILE}",
                "link": ITEM_URL,
                "path": "/test/1",
                "source": f"source {HOSTILE}",
                "published_at": None,
            },
            {
                "n": 2,
                "title": "bad link",
                "link": "javascript:alert(1)",
                "path": "/test/2",
                "source": "s",
                "published_at": None,
            },
        ],
        error=HOSTILE,
    )
    Brief.objects.filter(pk=brief.pk).update(follow_up_of=None)
    step_append(
        brief_id=brief.pk,
        kind="choice",
        payload={"node": "route", "chosen": [HOSTILE], "reason": HOSTILE, "method": "model"},
    )
    body = page(owner_client.get(brief.get_absolute_url()))
    tags = Tags(body)
    scripts = [a for t, a in tags.tags if t == "script"]
    assert all(a.get("src") or a.get("type") == "application/json" for a in scripts), (
        "the only scripts are the dashboard's file and the JSON data block"
    )
    assert not [a for t, a in tags.tags if t in ("img", "iframe")]
    assert not [a for t, a in tags.tags if any(k.startswith("on") for k in a)]
    forms = sorted(a["action"] for t, a in tags.tags if t == "form")
    follow_ups = [f for f in forms if f == f"/briefs/{brief.pk}/follow-up/"]
    assert 1 <= len(follow_ups) <= 4, "the follow-up box and its suggested questions"
    forms = [f for f in forms if f not in follow_ups]
    assert forms == sorted(
        [
            "/accounts/logout/",
            "/i18n/setlang/",
            f"/briefs/{brief.pk}/rerun/",
            f"/briefs/{brief.pk}/share/",
            f"/briefs/{brief.pk}/translate/",
        ]
    )
    hrefs = [a.get("href", "") for t, a in tags.tags if t == "a"]
    assert not [h for h in hrefs if h.lower().startswith(("javascript:", "data:"))]
    assert not [h for h in hrefs if "evil.example" in h]
    assert "&lt;script&gt;" in body


def test_the_markdown_download_is_plain_text(owner_client, owner):
    brief = finished_brief(owner)
    response = owner_client.get(reverse("brief-markdown", args=[brief.pk]))
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    text = response.content.decode()
    assert "- Title one [1]" in text
    assert f"[1] Title one — RSSHub Test — 2026-11-01T08:30:00+00:00 — {ITEM_URL}" in text


# --- actions ----------------------------------------------------------------------------------


def test_cancel_stops_a_queued_brief(owner_client, owner):
    brief = make_brief(owner)
    response = owner_client.post(reverse("brief-cancel", args=[brief.pk]))
    assert response.status_code == 302 and response["Location"] == brief.get_absolute_url()
    brief.refresh_from_db()
    assert brief.status == BriefStatus.CANCELLED
    assert brief.steps.get().kind == "run_cancelled"


def test_cancel_asks_a_running_brief_to_stop(owner_client, owner):
    brief = make_brief(owner, status=BriefStatus.RUNNING)
    owner_client.post(reverse("brief-cancel", args=[brief.pk]))
    brief.refresh_from_db()
    assert brief.cancel_requested and brief.status == BriefStatus.RUNNING


def test_rerun_makes_a_new_brief(owner_client, owner):
    brief = finished_brief(owner, question="once more")
    response = owner_client.post(reverse("brief-rerun", args=[brief.pk]))
    new = Brief.objects.exclude(pk=brief.pk).get()
    assert response["Location"] == new.get_absolute_url()
    assert new.question == "once more" and new.status == BriefStatus.QUEUED


def test_delete_asks_first_then_deletes(owner_client, owner):
    brief = finished_brief(owner)
    confirm = owner_client.get(reverse("brief-delete", args=[brief.pk]))
    assert confirm.status_code == 200 and 'id="confirm-delete"' in page(confirm)
    assert Brief.objects.filter(pk=brief.pk).exists()
    response = owner_client.post(reverse("brief-delete", args=[brief.pk]))
    assert response["Location"] == reverse("brief-list")
    assert not Brief.objects.filter(pk=brief.pk).exists()


@pytest.mark.parametrize("action", ["brief-cancel", "brief-rerun"])
def test_actions_refuse_get(owner_client, owner, action):
    brief = finished_brief(owner)
    assert owner_client.get(reverse(action, args=[brief.pk])).status_code == 405


# --- isolation --------------------------------------------------------------------------------


def test_another_users_brief_is_a_404_on_every_page_and_action(other_client, owner):
    brief = make_brief(owner, status=BriefStatus.RUNNING)
    for method, name in [
        ("get", "brief-detail"),
        ("get", "brief-fragment"),
        ("get", "brief-markdown"),
        ("get", "brief-delete"),
        ("post", "brief-delete"),
        ("post", "brief-cancel"),
        ("post", "brief-rerun"),
        ("post", "brief-follow-up"),
    ]:
        response = getattr(other_client, method)(reverse(name, args=[brief.pk]))
        assert response.status_code == 404, f"{method} {name}"
    brief.refresh_from_db()
    assert brief.status == BriefStatus.RUNNING and not brief.cancel_requested
    assert Brief.objects.count() == 1, "nothing was rerun or deleted"


CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def test_the_fragment_is_the_briefs_article_alone_as_on_its_page(owner_client, owner):
    brief = finished_brief(owner)
    add_steps(brief, 3)

    fragment = page(owner_client.get(reverse("brief-fragment", args=[brief.pk])))
    full = page(owner_client.get(brief.get_absolute_url()))

    article = re.search(r'<article class="brief" id="brief".*</article>', full, re.S).group(0)
    assert CSRF_RE.sub("", fragment.strip()) == CSRF_RE.sub("", article), "nothing around it"
    tags = Tags(fragment)
    assert [a["data-seq"] for a in tags.find("li") if "data-seq" in a] == ["1", "2", "3"]
    assert tags.find("a", **{"class": "source-link"}), "its citations are links to the items"


def test_a_live_page_names_the_fragment_it_swaps_in(owner_client, owner):
    brief = make_brief(owner, status=BriefStatus.RUNNING)
    [live] = Tags(page(owner_client.get(brief.get_absolute_url()))).find("section", id="live")
    assert live["data-fragment"] == reverse("brief-fragment", args=[brief.pk])


def test_a_missing_brief_is_a_404(owner_client):
    assert owner_client.get(reverse("brief-detail", args=[999999])).status_code == 404
    assert owner_client.get("/briefs/99999999999999999999999/").status_code == 404


# --- CSRF -------------------------------------------------------------------------------------


def test_every_form_needs_its_csrf_token(owner, staff):
    brief = finished_brief(owner)
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    posts = [
        (reverse("home"), {"question": "q"}),
        (reverse("brief-cancel", args=[brief.pk]), {}),
        (reverse("brief-rerun", args=[brief.pk]), {}),
        (reverse("brief-delete", args=[brief.pk]), {}),
        (reverse("password_change"), {}),
        (reverse("set_language"), {"language": "zh-hans"}),
        (reverse("logout"), {}),
    ]
    for url, data in posts:
        assert client.post(url, data).status_code == 403, url
    assert Brief.objects.count() == 1


def test_every_page_form_carries_a_csrf_token(owner_client, owner):
    brief = make_brief(owner, status=BriefStatus.RUNNING)
    done = finished_brief(owner)
    for url in (
        reverse("home"),
        brief.get_absolute_url(),
        done.get_absolute_url(),
        reverse("brief-delete", args=[done.pk]),
        reverse("password_change"),
    ):
        tags = Tags(page(owner_client.get(url)))
        posts = [a for t, a in tags.tags if t == "form" and a.get("method") == "post"]
        tokens = tags.find("input", name="csrfmiddlewaretoken")
        assert posts and len(tokens) == len(posts), url


def test_a_form_with_its_token_is_accepted(owner):
    brief = make_brief(owner)
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    client.get(brief.get_absolute_url())
    token = client.cookies["csrftoken"].value
    response = client.post(reverse("brief-cancel", args=[brief.pk]), {"csrfmiddlewaretoken": token})
    assert response.status_code == 302


# --- the list of briefs -----------------------------------------------------------------------


def test_the_list_searches_question_query_and_body(owner_client, owner, other_user):
    finished_brief(owner, question="about cats", body="felines", query="cat news")
    finished_brief(owner, question="about dogs", body="canines [1]", query="dog news")
    finished_brief(other_user, question="about cats too")
    for text, expected in [
        ("cats", ["about cats"]),
        ("CANINES", ["about dogs"]),
        ("dog news", ["about dogs"]),
        ("", ["about dogs", "about cats"]),
    ]:
        body = page(owner_client.get(reverse("brief-list"), {"q": text}))
        found = LISTED_QUESTION_RE.findall(body)
        assert found == expected, text


def test_the_list_filters_by_status_and_dates(owner_client, owner):
    finished_brief(owner, question="old", created_at=datetime(2026, 1, 10, 12, tzinfo=UTC))
    finished_brief(owner, question="new", created_at=datetime(2026, 3, 10, 12, tzinfo=UTC))
    make_brief(owner, "failed one", status=BriefStatus.FAILED)

    def questions(**params):
        body = page(owner_client.get(reverse("brief-list"), params))
        return LISTED_QUESTION_RE.findall(body)

    assert questions(status="failed") == ["failed one"]
    assert questions(since="2026-01-01", until="2026-01-31") == ["old"]
    assert questions(since="2026-03-10", until="2026-03-10") == ["new"]
    assert set(questions(since="2026-02-01")) == {"new", "failed one"}
    assert "The end date is before" in page(
        owner_client.get(reverse("brief-list"), {"since": "2026-03-01", "until": "2026-01-01"})
    )


def test_the_list_is_paginated_in_constant_queries(owner_client, owner, django_assert_num_queries):
    def count_queries(n: int) -> int:
        Brief.objects.all().delete()
        for i in range(n):
            finished_brief(owner, question=f"question {i}")
        # session, user, count, page, unread watch runs (the navigation)
        with django_assert_num_queries(5) as captured:
            response = owner_client.get(reverse("brief-list"), {"status": "succeeded"})
        assert response.status_code == 200
        return len(captured)

    assert count_queries(3) == count_queries(45)
    body = page(owner_client.get(reverse("brief-list"), {"page": 3, "status": "succeeded"}))
    assert "Page 3 of 3" in body
    assert "status=succeeded&amp;page=2" in body, "pager links keep the filters"


# --- time zones and languages -----------------------------------------------------------------


def test_times_are_shown_in_the_browsers_zone(owner_client, owner):
    brief = finished_brief(owner, created_at=datetime(2026, 5, 1, 23, 30, tzinfo=UTC))
    owner_client.cookies["tz"] = "Asia/Shanghai"
    body = page(owner_client.get(brief.get_absolute_url()))
    assert 'datetime="2026-05-02T07:30:00+08:00"' in body
    owner_client.cookies["tz"] = "Not/AZone'><script>"
    body = page(owner_client.get(brief.get_absolute_url()))
    assert 'datetime="2026-05-01T23:30:00+00:00"' in body, "a bad cookie falls back to UTC"


@pytest.fixture
def chinese():
    """The compiled catalog: ``compilemessages`` (Debian's gettext) runs in scripts/test."""
    from pathlib import Path

    from django.core.management import call_command
    from django.utils.translation import trans_real

    po = Path(django_settings.BASE_DIR) / "locale/zh_Hans/LC_MESSAGES/django.po"
    mo = po.with_suffix(".mo")
    if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
        call_command("compilemessages", locale=["zh_Hans"], verbosity=0)
        trans_real._translations = {}
        trans_real._default = None


def test_the_language_switch_shows_chinese(owner_client, owner, chinese):
    finished_brief(owner)
    response = owner_client.post(
        reverse("set_language"), {"language": "zh-hans", "next": reverse("home")}
    )
    assert response.status_code == 302
    body = page(owner_client.get(reverse("home")))
    assert '<html lang="zh-hans">' in body
    assert "你想知道什么" in body
    assert "离线模式" in body
    owner_client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert "What do you want to know?" in page(owner_client.get(reverse("home")))


def test_steps_are_translated(owner_client, owner, chinese):
    brief = make_brief(owner, status=BriefStatus.RUNNING)
    add_steps(brief, 2)
    owner_client.post(reverse("set_language"), {"language": "zh-hans"})
    body = page(owner_client.get(brief.get_absolute_url()))
    assert "第 1 步\uff0c共 8 步" in body, "the step line in Chinese"
