"""Django's own admin change pages as staff see them: every date and time input of a split
date-time field has a <label for> (templates/admin/widgets/split_datetime.html, rendered
through FORM_RENDERER = TemplatesSetting), with Django's own words in both languages, and
the pages carry the script that names the filter boxes' tooltip icons."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django_q.models import Schedule

pytestmark = pytest.mark.django_db


def unlabelled_inputs(page: str) -> list[str]:
    labelled = set(re.findall(r'<label[^>]*\sfor="([^"]+)"', page))
    fields = re.findall(r"<(?:input|select|textarea)\b[^>]*>", page)
    missing = []
    for tag in fields:
        kind = re.search(r'type="([^"]+)"', tag)
        if kind and kind.group(1) in {"hidden", "submit", "button"}:
            continue
        ident = re.search(r'\sid="([^"]+)"', tag)
        if "aria-label=" in tag or (ident and ident.group(1) in labelled):
            continue
        missing.append(tag)
    return missing


def user_change_url(user) -> str:
    return reverse("admin:auth_user_change", args=[user.pk])


def schedule_change_url() -> str:
    schedule = Schedule.objects.create(name="nightly", func="math.floor", args="1")
    return reverse("admin:django_q_schedule_change", args=[schedule.pk])


@pytest.mark.parametrize(
    ("language", "date", "time"),
    [("en", "Date:", "Time:"), ("zh-hans", "日期\uff1a", "时间\uff1a")],
)
@pytest.mark.parametrize("which", ["user", "schedule"])
def test_every_split_datetime_input_has_a_label(staff, staff_client, which, language, date, time):
    url = user_change_url(staff) if which == "user" else schedule_change_url()
    page = staff_client.get(url, headers={"Accept-Language": language}).content.decode()
    field = "last_login" if which == "user" else "next_run"
    for part, words in ((0, date), (1, time)):
        label = re.search(rf'<label for="id_{field}_{part}"[^>]*>([^<]*)</label>', page)
        assert label, f"id_{field}_{part} has no label"
        assert label.group(1).strip() == words
    assert not unlabelled_inputs(page), unlabelled_inputs(page)
    assert not re.search(r"<[^>]+\sstyle=", page), "the CSP allows no style attribute"
    assert "<script>" not in page and "<style" not in page


def test_the_user_page_carries_the_filter_tooltip_script(staff, staff_client):
    page = staff_client.get(user_change_url(staff)).content.decode()
    select_filter = page.index("admin/js/SelectFilter2.js")
    assert page.index('src="/static/staff/admin_fixes.js"') > select_filter


@pytest.mark.parametrize("url", ["/admin/accounts/invitation/add/", "/admin/accounts/profile/"])
def test_the_accounts_admin_pages_name_their_fields(staff, staff_client, url):
    page = staff_client.get(url).content.decode()
    assert not unlabelled_inputs(page), unlabelled_inputs(page)


def test_the_other_forms_still_render_with_the_templates_renderer(staff_client):
    """TemplatesSetting finds Django's own widget templates through "django.forms"."""
    page = staff_client.get(reverse("admin:auth_user_add")).content.decode()
    assert 'name="username"' in page and 'type="password"' in page
    assert get_user_model().objects.count() == 1
