"""Small things on the dashboard: the error pages in the app's layout, the favicon, a follow-up
of someone else's brief, offline mode explained."""

import pytest
from django.core.cache import cache
from django.http import HttpRequest
from django.test import Client
from django.urls import path, reverse

from briefs.markdown import brief_html
from briefs.models import BriefStatus
from briefs.templatetags.dashboard import path_breaks
from rsshub_agent.urls import urlpatterns as project_urls
from tests.briefs.test_views import finished_brief, make_brief

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


def boom(request: HttpRequest):
    raise RuntimeError("a view broke")


# This module doubles as a URL conf for the 500 test: the project's pages plus one that fails.
urlpatterns = [path("boom/", boom), *project_urls]


@pytest.fixture(autouse=True)
def rsshub_nowhere(settings):
    settings.RSSHUB_URL = "http://127.0.0.1:9"  # nothing listens
    cache.clear()


def styled(body: str) -> bool:
    return "dashboard/dashboard.css" in body and 'id="error-page"' in body


# --- error pages ------------------------------------------------------------------------------


def test_a_missing_page_is_styled_and_translated(client, owner):
    client.force_login(owner)
    english = client.get("/no/such/page/")
    chinese = client.get("/no/such/page/", **ZH)
    assert english.status_code == chinese.status_code == 404
    assert styled(english.content.decode()) and "Page not found" in english.content.decode()
    assert styled(chinese.content.decode()) and "找不到页面" in chinese.content.decode()


def test_another_users_brief_is_the_styled_404(client, owner, other_user):
    brief = make_brief(other_user, "a private question")
    client.force_login(owner)
    response = client.get(reverse("brief-detail", args=[brief.pk]))
    assert response.status_code == 404
    body = response.content.decode()
    assert styled(body) and "a private question" not in body


def test_a_refused_page_is_styled_and_translated(client, owner):
    client.force_login(owner)  # not staff
    english = client.get(reverse("route-health"))
    chinese = client.get(reverse("route-health"), **ZH)
    assert english.status_code == chinese.status_code == 403
    assert styled(english.content.decode()) and "Not allowed" in english.content.decode()
    assert styled(chinese.content.decode()) and "无权访问" in chinese.content.decode()


@pytest.mark.urls(__name__)
@pytest.mark.parametrize(("headers", "text"), [({}, "Something went wrong"), (ZH, "出错了")])
def test_a_failed_page_is_styled_and_translated(owner, headers, text):
    client = Client(raise_request_exception=False)
    client.force_login(owner)
    response = client.get("/boom/", **headers)
    body = response.content.decode()
    assert response.status_code == 500
    assert styled(body) and text in body
    assert "a view broke" not in body and "RuntimeError" not in body
    assert owner.username not in body, "the 500 page renders without the request's user"


# --- favicon ----------------------------------------------------------------------------------


def test_the_favicon_is_found(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("dashboard/favicon.svg")
    assert b'rel="icon"' in client.get(reverse("login")).content


# --- a follow-up of someone else's brief ------------------------------------------------------


@pytest.mark.parametrize("value", ["other", "abc", "9" * 30, "0"])
def test_a_follow_up_that_is_not_yours_shows_the_home_page_with_a_message(
    client, owner, other_user, value
):
    other = make_brief(other_user, "someone else's secret question")
    client.force_login(owner)
    follow_up = str(other.pk) if value == "other" else value
    response = client.get(reverse("home"), {"follow_up": follow_up})
    body = response.content.decode()
    assert response.status_code == 200
    assert "That brief cannot be followed up" in body
    assert 'id="ask-form"' in body
    assert "someone else&#x27;s secret question" not in body and "secret question" not in body


def test_the_follow_up_message_is_translated(client, owner, other_user):
    other = make_brief(other_user, "theirs")
    client.force_login(owner)
    body = client.get(reverse("home"), {"follow_up": other.pk}, **ZH).content.decode()
    assert "无法追问该简报" in body


def test_a_follow_up_of_your_own_brief_is_preselected(client, owner):
    mine = make_brief(owner, "my earlier question", status=BriefStatus.SUCCEEDED)
    client.force_login(owner)
    body = client.get(reverse("home"), {"follow_up": mine.pk}).content.decode()
    assert f'<option value="{mine.pk}" selected translate="no">' in body
    assert "cannot be followed up" not in body


# --- offline mode explained -------------------------------------------------------------------


def test_an_offline_brief_explains_offline_mode(client, owner):
    brief = finished_brief(owner)
    client.force_login(owner)
    english = client.get(brief.get_absolute_url()).content.decode()
    chinese = client.get(brief.get_absolute_url(), **ZH).content.decode()
    assert 'id="offline-explained"' in english
    assert "no language model was used" in english
    assert "未使用语言模型" in chinese


def test_a_model_brief_does_not_claim_offline_mode(client, owner):
    brief = finished_brief(owner, mode="router-x / writer-y")
    client.force_login(owner)
    body = client.get(brief.get_absolute_url()).content.decode()
    assert 'id="offline-explained"' not in body and "router-x / writer-y" in body


# --- paths wrap only at a slash -----------------------------------------------------------------


def test_coverage_paths_break_only_after_a_slash(client, owner):
    brief = finished_brief(owner)
    client.force_login(owner)
    body = client.get(brief.get_absolute_url()).content.decode()
    assert '<code class="path">/<wbr>test/<wbr>error</code>' in body
    assert "<code>/test/error</code>" not in body


def test_a_path_in_the_brief_text_breaks_only_after_a_slash():
    html = brief_html("Read `/36kr/hot-list/<b>` and `some code`.", [])
    assert '<code class="path">/<wbr>36kr/<wbr>hot-list/<wbr>&lt;b&gt;</code>' in html
    assert "<code>some code</code>" in html


def test_the_path_filter_escapes_each_segment():
    assert str(path_breaks('/a/<script>"x"')) == (
        '<code class="path">/<wbr>a/<wbr>&lt;script&gt;&quot;x&quot;</code>'
    )
