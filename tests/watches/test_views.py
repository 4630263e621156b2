"""Dashboard pages of watches: create, edit the schedule, pause, run now, delete; the history
with new items per run; "Watch this question" on every brief; the unread count in the nav;
another user's watch is a 404 on every page."""

from __future__ import annotations

import re
from datetime import time

import pytest
from django.test import Client
from django.urls import reverse

from briefs.models import Brief
from tests.brief_examples import finished_brief
from tests.watches.conftest import run_finished, watch_make
from watches.models import Watch, WatchRun
from watches.notify import watch_run_settle

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def quiet_rsshub(settings):
    settings.RSSHUB_URL = "http://127.0.0.1:9"  # the home page's probe: refused at once


FORM = {
    "question": "new nginx tags",
    "schedule": "weekly",
    "time_of_day": "09:30",
    "weekday": "3",
    "timezone": "Europe/Berlin",
    "notify_only_new": "on",
}


def test_a_watch_is_created_from_the_form(owner_client, owner):
    response = owner_client.post(reverse("watch-list"), FORM)
    watch = Watch.objects.get(owner=owner)
    assert response.status_code == 302
    assert response["Location"] == reverse("watch-detail", args=[watch.pk])
    assert (watch.schedule, watch.time_of_day, watch.weekday) == ("weekly", time(9, 30), 3)
    assert (watch.timezone, watch.notify_only_new, watch.notify_email) == (
        "Europe/Berlin", True, False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"question": ""}, "question"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"time_of_day": "25:61"}, "time_of_day"),
        ({"schedule": "secondly"}, "schedule"),
        ({"notify_email": "on"}, "__all__"),  # the account has no email address
    ],
)
def test_a_bad_form_is_shown_again_with_its_error(owner_client, owner, change, field):
    owner.email = ""
    owner.save()
    response = owner_client.post(reverse("watch-list"), {**FORM, **change})
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert field in errors or (field == "__all__" and "notify_email" in errors), errors
    assert not Watch.objects.exists()


def test_the_form_is_filled_from_a_brief_and_the_browsers_zone(owner_client, owner):
    brief = finished_brief(owner, question="Kirin 9050 news")
    page = owner_client.get(reverse("brief-detail", args=[brief.pk])).content.decode()
    link = re.search(r'href="([^"]+)" id="watch-link"', page).group(1)
    owner_client.cookies["tz"] = "Asia/Shanghai"
    form = owner_client.get(link.replace("&amp;", "&")).context["form"]
    assert form.initial["question"] == "Kirin 9050 news"
    assert form.initial["timezone"] == "Asia/Shanghai"


@pytest.mark.parametrize("value", ["", "abc", "-1", "9" * 30])
def test_a_brief_that_is_not_the_users_fills_in_nothing(owner_client, other_user, value):
    theirs = finished_brief(other_user, question="their private question")
    for brief in (value, str(theirs.pk)):
        response = owner_client.get(reverse("watch-list"), {"brief": brief})
        assert response.status_code == 200
        assert response.context["form"].initial["question"] == ""
        assert "their private question" not in response.content.decode()


def test_the_schedule_is_edited_and_moves_the_next_run(owner_client, owner):
    watch = watch_make(owner)
    before = watch.next_run_at
    response = owner_client.post(
        reverse("watch-detail", args=[watch.pk]),
        {**FORM, "schedule": "hourly", "minute": "45", "weekday": ""},
    )
    assert response.status_code == 302
    watch.refresh_from_db()
    assert (watch.schedule, watch.weekday) == ("hourly", None)
    assert watch.next_run_at != before and watch.next_run_at.minute == 45


def test_pause_resume_run_now_and_delete(owner_client, owner):
    watch = watch_make(owner, offline=True)
    owner_client.post(reverse("watch-active", args=[watch.pk]), {"active": "0"})
    assert Watch.objects.get(pk=watch.pk).active is False
    owner_client.post(reverse("watch-active", args=[watch.pk]), {"active": "1"})
    assert Watch.objects.get(pk=watch.pk).active is True
    response = owner_client.post(reverse("watch-run", args=[watch.pk]))
    brief = Brief.objects.get(watch=watch)
    assert response["Location"] == reverse("watch-detail", args=[watch.pk]) + "#runs"
    assert owner_client.get(reverse("watch-delete", args=[watch.pk])).status_code == 200
    owner_client.post(reverse("watch-delete", args=[watch.pk]))
    assert not Watch.objects.filter(pk=watch.pk).exists()
    assert Brief.objects.filter(pk=brief.pk).exists()


def test_the_history_shows_new_items_per_run(owner_client, owner):
    watch = watch_make(owner)
    runs = [run_finished(watch, new=n, repeated=4 - n) for n in (4, 0, 2)]
    page = owner_client.get(reverse("watch-detail", args=[watch.pk])).content.decode()
    cells = re.findall(r'<td class="num new-items">(\d+)</td>', page)
    assert cells == ["2", "0", "4"]  # newest first
    for run in runs:
        assert reverse("watch-run-open", args=[run.pk]) in page


def test_the_nav_counts_unread_runs_until_they_are_seen(owner_client, owner):
    watch = watch_make(owner)
    for new in (2, 0, 1):
        watch_run_settle(run_finished(watch, new=new).brief_id)
    home = owner_client.get(reverse("brief-list")).content.decode()
    assert re.search(r'id="watches-unread"[^>]*>2<', home)  # nothing new is not unread
    opened = WatchRun.objects.filter(watch=watch, read_at__isnull=True).first()
    response = owner_client.get(reverse("watch-run-open", args=[opened.pk]))
    assert response["Location"] == reverse("brief-detail", args=[opened.brief_id])
    assert re.search(r'id="watches-unread"[^>]*>1<', owner_client.get("/briefs/").content.decode())
    owner_client.get(reverse("watch-detail", args=[watch.pk]))  # seeing the watch reads it
    assert 'id="watches-unread"' not in owner_client.get("/briefs/").content.decode()


def test_a_brief_of_a_watch_links_back_to_it(owner_client, owner):
    run = run_finished(watch_make(owner))
    page = owner_client.get(reverse("brief-detail", args=[run.brief_id])).content.decode()
    assert reverse("watch-detail", args=[run.watch_id]) in page


@pytest.mark.parametrize(
    ("name", "method"),
    [
        ("watch-detail", "get"),
        ("watch-detail", "post"),
        ("watch-run", "post"),
        ("watch-active", "post"),
        ("watch-delete", "get"),
        ("watch-delete", "post"),
        ("watch-feed-rotate", "post"),
    ],
)
def test_another_users_watch_is_a_404_on_every_page(other_client, owner, name, method):
    watch = watch_make(owner)
    response = getattr(other_client, method)(
        reverse(name, args=[watch.pk]), {**FORM, "active": "0"}
    )
    assert response.status_code == 404
    after = Watch.objects.get(pk=watch.pk)
    assert (after.active, after.question, after.feed_digest, after.unsubscribe_nonce) == (
        True, watch.question, watch.feed_digest, watch.unsubscribe_nonce,
    )  # fmt: skip
    assert not Brief.objects.exists()


def test_another_users_run_is_a_404(other_client, owner):
    run = run_finished(watch_make(owner))
    assert other_client.get(reverse("watch-run-open", args=[run.pk])).status_code == 404
    assert WatchRun.objects.get(pk=run.pk).read_at is None


def test_the_list_shows_only_the_users_watches(owner_client, owner, other_user):
    watch_make(owner, question="mine")
    watch_make(other_user, question="theirs")
    page = owner_client.get(reverse("watch-list")).content.decode()
    assert "mine" in page and "theirs" not in page


def test_pages_need_sign_in(owner):
    watch = watch_make(owner)
    for url in (reverse("watch-list"), reverse("watch-detail", args=[watch.pk])):
        assert Client().get(url).status_code == 302


def test_forms_need_their_csrf_token(owner):
    watch = watch_make(owner)
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(reverse("watch-active", args=[watch.pk]), {"active": "0"}).status_code == 403
    assert client.post(reverse("watch-list"), FORM).status_code == 403


def test_the_watches_page_speaks_chinese(owner_client, owner):
    watch_make(owner, schedule="weekly", weekday=1)
    page = owner_client.get(reverse("watch-list"), headers={"Accept-Language": "zh-hans"})
    text = page.content.decode()
    assert "新建关注" in text and "每星期一 08:00（Asia/Shanghai）" in text  # noqa: RUF001


# --- Admin ---------------------------------------------------------------------------------------


def test_staff_filter_watches_by_schedule_active_and_failing(staff, owner):
    daily = watch_make(owner, question="daily one")
    hourly = watch_make(owner, question="hourly one", schedule="hourly")
    Watch.objects.filter(pk=hourly.pk).update(failing=True, active=False)
    run_finished(daily)
    client = Client()
    client.force_login(staff)
    url = reverse("admin:watches_watch_changelist")
    page = client.get(
        url, {"schedule__exact": "hourly", "active__exact": "0", "failing__exact": "1"}
    )
    assert page.status_code == 200
    assert list(page.context["cl"].result_list) == [hourly]
    page = client.get(url, {"schedule__exact": "daily", "failing__exact": "0"})
    assert list(page.context["cl"].result_list) == [daily]
    detail = client.get(reverse("admin:watches_watch_change", args=[daily.pk]))
    assert detail.status_code == 200
    (runs,) = detail.context["inline_admin_formsets"]
    assert [form.instance.brief_id for form in runs.formset.forms] == [daily.runs.get().brief_id]
