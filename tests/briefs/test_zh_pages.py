"""In Chinese, no page a person reaches and no email the service sends shows English of the
project's catalog (``tests/untranslated.py``): the briefs of every outcome, run through the agent
offline against a stand-in RSSHub, with their steps; the lists, tokens, webhooks, watches, feeds
and share pages with the messages their forms flash; route health for staff; the error pages;
sign-in and password pages. And the catalogs themselves have no empty or fuzzy translation."""

from __future__ import annotations

import json
import re

import pytest
from django.apps import apps as django_apps
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import translation

from agent.routes.slots import Slot
from agent.routes.unsaid import SubjectMissing
from agent.summary.draft import coverage_markdown
from briefs.coverage import Attempted
from briefs.forms import NeedsAnswerForm
from briefs.models import Brief, BriefStatus
from briefs.reasons import reason_translate
from briefs.services import step_append
from briefs.step_lines import step_page_line
from briefs.templatetags.dashboard import circuit_reason, window_name
from tests.agent.conftest import brief_run, delta_platform_create, feed
from tests.untranslated import (
    CATALOGS,
    ROOT,
    catalog_problems,
    po_entries,
    untranslated_in_html,
    untranslated_in_text,
)
from tests.watches.conftest import reader, run_finished, watch_make, watch_settings  # noqa: F401
from watches.emails import failing_email, run_email

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
CJK_RE = re.compile(r"[\u4e00-\u9fff]")
PROJECT_APPS = (
    "accounts",
    "agent",
    "briefs",
    "catalog",
    "fetching",
    "housekeeping",
    "sharing",
    "watches",
)
WIRE = ("Chip prices fall", "Port strike ends", "Rain in the north", "Markets open higher")


@pytest.fixture(autouse=True)
def language_kept():
    """A Chinese request (the 500 page's above all) leaves its language active in this thread:
    the next module's tests start in the language this one started in."""
    language = translation.get_language()
    yield
    translation.activate(language)


# --- the check itself -------------------------------------------------------------------------


def test_the_catalogs_have_no_empty_or_fuzzy_translation():
    problems = [line for path in CATALOGS if path.exists() for line in catalog_problems(path)]
    assert not problems, "\n".join(problems)


def test_the_check_finds_catalog_english_and_nothing_else():
    html = (
        '<html lang="zh-hans"><title>简报</title><p>Copy link</p><span>running</span>'
        '<button aria-label="Copy as markdown">复制</button>'
        '<p translate="no">Copy link</p><code>Copy link</code>'
        '<section lang="en"><p>Copy link</p></section><p>复制链接 running late</p></html>'
    )
    found = untranslated_in_html(html)
    assert found == [
        "'Copy link' in 'Copy link'",
        "'running' in 'running'",
        "'Copy as markdown' in 'Copy as markdown'",
    ], found


def test_every_word_the_script_writes_is_in_the_javascript_catalog(client):
    script = (ROOT / "static" / "dashboard" / "dashboard.js").read_text()
    words = set(re.findall(r'gettext\("([^"]+)"\)', script))
    assert {"live", "reconnecting", "Copied"} <= words, "the script asks the catalog"
    chinese = {e.msgid: e.msgstrs[0] for e in po_entries(CATALOGS[1])}
    assert words <= set(chinese), f"no translation for {sorted(words - set(chinese))}"
    served = client.get(reverse("javascript-catalog"), **ZH)
    assert served.status_code == 200
    body = served.content.decode()
    missing = [w for w in words if json.dumps(chinese[w]) not in body]
    assert not missing, f"/jsi18n/ in Chinese lacks {missing}"


# --- the pages --------------------------------------------------------------------------------


def findings_of(client: Client, pages: dict[str, str]) -> list[str]:
    problems = []
    for name, url in pages.items():
        response = client.get(url, **ZH)
        assert response.status_code in (200, 403, 404), (name, response.status_code)
        problems += [f"{name} {url}: {f}" for f in untranslated_in_html(response.content.decode())]
    return problems


def flashed(client: Client, url: str, data: dict) -> list[str]:
    """The page a form's POST leads to, with the message it flashes."""
    response = client.post(url, data, follow=True, **ZH)
    return [f"POST {url}: {f}" for f in untranslated_in_html(response.content.decode())]


def briefs_of_every_outcome(owner, stub_rsshub, settings) -> dict[str, Brief]:
    stub_rsshub.route("/alpha/flash", feed(*WIRE))
    delta_platform_create()
    briefs = {
        "answered": brief_run(owner, "Alpha Wire flash news"),
        "answered-zh": brief_run(owner, "阿尔法快讯 的消息"),
        "partial": brief_run(owner, "Alpha Wire and Beta Daily flash news"),
        "off_topic": brief_run(owner, "Alpha Wire flash news about Zephyrcorp"),
        "needs_input": brief_run(owner, "Delta Code repo issues"),
    }
    settings.AGENT_ROUTER_BUDGET = 30
    stub_rsshub.route("/alpha/flash", feed())
    briefs["no_data"] = brief_run(owner, "Beta Daily opinion")
    settings.AGENT_ROUTER_BUDGET = 1
    briefs["budget_spent"] = brief_run(owner, "Alpha Wire archive")
    return briefs


def unfinished_briefs(owner) -> dict[str, Brief]:
    queued = Brief.objects.create(owner=owner, question="Alpha Wire stories")
    running = Brief.objects.create(owner=owner, question="Beta Daily", status=BriefStatus.RUNNING)
    step_append(brief_id=running.pk, kind="brief_queued", payload={"offline": True})
    failed = Brief.objects.create(
        owner=owner, question="Gamma", status=BriefStatus.FAILED, error="worker lost"
    )
    cancelled = Brief.objects.create(owner=owner, question="Delta", status=BriefStatus.CANCELLED)
    return {"queued": queued, "running": running, "failed": failed, "cancelled": cancelled}


def owner_pages(briefs: dict[str, Brief], watch_id: int) -> dict[str, str]:
    pages = {f"brief-{name}": brief.get_absolute_url() for name, brief in briefs.items()}
    brief = briefs["answered"]
    return pages | {
        "home": reverse("home"),
        "home-follow-up": f"{reverse('home')}?follow_up={brief.pk}",
        "briefs": reverse("brief-list"),
        "briefs-search": f"{reverse('brief-list')}?q=nothing-matches-this",
        "briefs-invalid": f"{reverse('brief-list')}?since=2026-03-01&until=2026-01-01",
        "brief-fragment": reverse("brief-fragment", args=[brief.pk]),
        "brief-delete": reverse("brief-delete", args=[brief.pk]),
        "tokens": reverse("tokens"),
        "webhooks": reverse("webhooks"),
        "feeds": reverse("feeds"),
        "watches": reverse("watch-list"),
        "watch": reverse("watch-detail", args=[watch_id]),
        "watch-delete": reverse("watch-delete", args=[watch_id]),
        "password-change": reverse("password_change"),
        "password-change-done": reverse("password_change_done"),
        "404": "/no/such/page/",
        "403": reverse("route-health"),
    }


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("world", "offline")
def test_no_page_shows_catalog_english_in_chinese(run_owner, stub_rsshub, settings):
    briefs = briefs_of_every_outcome(run_owner, stub_rsshub, settings)
    briefs |= unfinished_briefs(run_owner)
    watch = watch_make(run_owner)
    client = Client()
    client.force_login(run_owner)
    problems = findings_of(client, owner_pages(briefs, watch.pk))
    share = client.post(reverse("brief-share", args=[briefs["answered"].pk]), **ZH)
    problems += flashed(client, reverse("tokens"), {"name": "bot", "lifetime_days": 30})
    problems += flashed(client, reverse("tokens"), {"name": "", "lifetime_days": 7})
    problems += flashed(client, reverse("webhooks"), {"url": "ftp://x", "description": "x"})
    problems += flashed(client, reverse("brief-list"), {})
    problems += flashed(client, reverse("home"), {"question": ""})
    problems += flashed(client, reverse("watch-run", args=[watch.pk]), {})
    problems += flashed(client, reverse("brief-rerun", args=[briefs["failed"].pk]), {})
    problems += flashed(client, reverse("brief-cancel", args=[briefs["queued"].pk]), {})
    problems += flashed(client, reverse("feed-rotate"), {})

    staff = get_user_model().objects.create_user("sam", password="sam-pass-1234", is_staff=True)
    client.force_login(staff)
    problems += findings_of(
        client,
        {
            "route-health": reverse("route-health"),
            "route-health-nothing": f"{reverse('route-health')}?q=no-such-route-anywhere",
        },
    )
    anonymous = Client()
    shared = share.get("Location", "") if share.status_code in (301, 302) else ""
    problems += findings_of(
        anonymous,
        {"login": reverse("login")} | ({"shared": shared} if shared.startswith("/s/") else {}),
    )
    problems += flashed(anonymous, reverse("login"), {"username": "x", "password": "wrong"})
    assert not problems, "\n".join(problems)


@pytest.mark.urls("tests.briefs.test_views_small")
@pytest.mark.django_db
def test_the_failed_page_shows_no_catalog_english_in_chinese(owner):
    client = Client(raise_request_exception=False)
    client.force_login(owner)
    response = client.get("/boom/", **ZH)
    assert response.status_code == 500
    assert not untranslated_in_html(response.content.decode())


# --- the emails -------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("watch_settings")
def test_no_email_shows_catalog_english_in_chinese(reader):  # noqa: F811 (the fixture)
    watch = watch_make(reader, question="阿尔法快讯 的消息", notify_email=True)
    run = run_finished(watch, body="芯片降价 [1]。")
    Brief.objects.filter(pk=run.brief_id).update(language="zh")
    run.brief.refresh_from_db()
    problems = []
    for name, message in (
        ("run", run_email(run)),
        ("recovered", run_email(run, recovered=True)),
        ("failing", failing_email(run)),
    ):
        (html, _kind), *_ = message.alternatives
        problems += [f"{name} subject: {f}" for f in untranslated_in_text(message.subject)]
        problems += [f"{name} text: {f}" for f in untranslated_in_text(message.body)]
        problems += [f"{name} html: {f}" for f in untranslated_in_html(html)]
    assert mail.outbox == []
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "label", ["latest", "today", "yesterday", "this_week", "this_month", "last_24h"]
)
def test_every_window_a_question_can_name_reads_in_chinese(label):
    with translation.override("zh-hans"):
        shown = window_name(label)
    assert shown != label and not re.search(r"[A-Za-z]", shown), f"{label!r} shows as {shown!r}"


def test_a_window_label_the_page_does_not_know_is_shown_as_stored():
    assert window_name("since_monday") == "since_monday"


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        ("success", "成功"),
        ("reset by staff", "由管理员重置"),
        ("outage repair: 12-01 00:00 to 01:00", "故障修复\uff1a12-01 00:00 to 01:00"),
        ("no such class: its words", "no such class: its words"),  # not ours: as stored
        ("", ""),
        (None, ""),
    ],
)
def test_a_circuit_change_reason_reads_in_chinese(stored, shown):
    with translation.override("zh-hans"):
        assert circuit_reason(stored) == shown


def test_a_circuit_change_names_its_outcome_class_and_keeps_rsshubs_words():
    with translation.override("zh-hans"):
        shown = circuit_reason("timeout: read timed out after 20 s")
    assert shown.endswith(": read timed out after 20 s") and not shown.startswith("timeout")


# --- the words the agent stores, read in Chinese ----------------------------------------------


def test_the_query_step_names_its_window_and_method_in_chinese():
    payload = {"query": "q", "keywords": ["k"], "window": {"label": "today"}, "method": "rules"}
    with translation.override("zh-hans"):
        line = str(step_page_line("query_rewritten", payload))
    assert "时间范围：今天（规则）" in line, line  # noqa: RUF001


def test_a_missing_subject_reads_in_chinese():
    slot = Slot("user", "", False, "the user", [], None, None, subject=True)
    stored = str(SubjectMissing([slot]))
    assert stored == "missing_subject: the question gives no value for :user", "stored in English"
    with translation.override("zh-hans"):
        shown = reason_translate(stored)
    assert shown == "缺少主体：问题没有给出 :user 的值", shown  # noqa: RUF001


def test_the_needs_question_names_the_parameter_in_chinese():
    with translation.override("zh-hans"):
        form = NeedsAnswerForm(needs=[{"source": "GitHub", "parameter": "user"}])
    assert str(form.fields["value_0"].label) == "哪个 GitHub 用户？"  # noqa: RUF001


def test_coverage_counts_take_full_width_parentheses_and_known_messages_read_in_chinese():
    message = "RSSHub cannot reach the internet right now"  # the agent's own reason
    attempted = [Attempted("/alpha/flash", "no_internet", 0, message=message)] * 2
    with translation.override("zh-hans"):
        text = coverage_markdown(attempted)
    assert "（2 次尝试）" in text and "(2" not in text, text  # noqa: RUF001
    assert "详情：RSSHub 目前无法访问互联网" in text, text  # noqa: RUF001


def test_every_app_the_admin_lists_has_a_chinese_name():
    with translation.override("zh-hans"):
        english = [
            c.verbose_name
            for c in django_apps.get_app_configs()
            if c.name.split(".")[0] in PROJECT_APPS and not CJK_RE.search(str(c.verbose_name))
        ]
    assert english == [], english
