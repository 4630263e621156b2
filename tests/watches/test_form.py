"""The watch form: only the chosen schedule's fields count (the others are dropped before
validation, whatever was sent in them), one hint per field, the offline box follows the server's
mode, and "Run now" stays on the watch page, showing the run live and then finished."""

from __future__ import annotations

import re
from datetime import time

import pytest
from django.urls import reverse

from briefs.models import Brief, BriefStatus
from tests.watches.conftest import run_finished, watch_make
from watches.models import Watch

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def quiet_rsshub(settings):
    settings.RSSHUB_URL = "http://127.0.0.1:9"


BASE = {"question": "new nginx tags", "timezone": "Europe/Berlin", "notify_only_new": "on"}


def made(client, **fields) -> tuple[int, Watch | None]:
    response = client.post(reverse("watch-list"), {**BASE, **fields})
    return response.status_code, Watch.objects.order_by("-pk").first()


def test_each_schedule_field_is_marked_with_the_schedules_it_counts_for(owner_client):
    page = owner_client.get(reverse("watch-list")).content.decode()
    marks = dict(re.findall(r'data-schedules="([a-z ]+)" id="(\w+)-field"', page))
    assert {v: k for k, v in marks.items()} == {
        "time_of_day": "daily weekly",
        "minute": "hourly",
        "weekday": "weekly",
    }
    assert "data-schedule-form" in page
    assert "<script>" not in page and "style=" not in page  # the page's CSP allows neither


def test_the_hints_are_sentences_of_their_own(owner_client):
    page = owner_client.get(reverse("watch-list")).content.decode()
    hints = re.findall(r'<p class="help" id="(\w+)-help">([^<]*)</p>', page)
    assert [name for name, _ in hints] == ["time_of_day", "minute", "weekday"]
    assert all(text.endswith(".") and text.count(".") == 1 for _, text in hints), hints
    assert "every hour. Weekly" not in page


def test_a_daily_watch_shows_no_weekday_chosen(owner_client, owner):
    watch = watch_make(owner, schedule="daily")
    page = owner_client.get(reverse("watch-detail", args=[watch.pk])).content.decode()
    weekday = re.search(r'<select name="weekday".*?</select>', page, re.S).group(0)
    assert 'value="" selected' in weekday
    assert "selected" not in weekday.replace('value="" selected', "")


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # what a schedule does not use is ignored, however hostile
        ({"schedule": "daily", "time_of_day": "07:15", "weekday": "9", "minute": "x"},
         ("daily", time(7, 15), None)),
        ({"schedule": "daily", "time_of_day": "07:15", "weekday": "<script>"},
         ("daily", time(7, 15), None)),
        ({"schedule": "hourly", "minute": "45", "time_of_day": "99:99", "weekday": "3"},
         ("hourly", time(0, 45), None)),
        ({"schedule": "weekly", "time_of_day": "09:30", "weekday": "7", "minute": "-5"},
         ("weekly", time(9, 30), 7)),
    ],
)  # fmt: skip
def test_the_fields_a_schedule_does_not_use_are_ignored(owner_client, fields, expected):
    status, watch = made(owner_client, **fields)
    assert status == 302
    assert (watch.schedule, watch.time_of_day, watch.weekday) == expected


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"schedule": "hourly"}, "minute"),
        ({"schedule": "hourly", "minute": "60"}, "minute"),
        ({"schedule": "hourly", "minute": "-1"}, "minute"),
        ({"schedule": "hourly", "minute": "1e3"}, "minute"),
        ({"schedule": "hourly", "minute": "9" * 40}, "minute"),
        ({"schedule": "daily"}, "time_of_day"),
        ({"schedule": "daily", "time_of_day": "24:00"}, "time_of_day"),
        ({"schedule": "weekly", "time_of_day": "09:30"}, "weekday"),
        ({"schedule": "weekly", "time_of_day": "09:30", "weekday": "0"}, "weekday"),
        ({"schedule": "weekly", "time_of_day": "09:30", "weekday": "8"}, "weekday"),
        # a repeated field: its last value counts (Django's QueryDict), so this is hourly
        ({"schedule": ["daily", "hourly"], "time_of_day": "09:30"}, "minute"),
        ({"time_of_day": "09:30"}, "schedule"),
        ({"schedule": "daily\x00", "time_of_day": "09:30"}, "schedule"),
    ],
)
def test_a_missing_or_bad_value_of_a_field_that_counts_is_an_error(owner_client, fields, field):
    response = owner_client.post(reverse("watch-list"), {**BASE, **fields})
    assert response.status_code == 400
    assert field in response.context["form"].errors, response.context["form"].errors
    assert not Watch.objects.exists()


def test_offline_is_checked_when_no_model_is_configured(owner_client, settings):
    settings.OPENAI_API_KEY, settings.OPENAI_ENDPOINTS = "", []
    form = owner_client.get(reverse("watch-list")).context["form"]
    assert form.initial["offline"] is True
    page = owner_client.get(reverse("watch-list")).content.decode()
    assert re.search(r'<input type="checkbox" name="offline"[^>]*checked', page)


def test_offline_is_unchecked_when_a_model_is_configured(owner_client, settings):
    settings.OPENAI_ENDPOINTS = []
    settings.OPENAI_API_KEY = "sk-test-not-used"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    page = owner_client.get(reverse("watch-list")).content.decode()
    assert re.search(r'<input type="checkbox" name="offline"(?![^>]*checked)[^>]*>', page)


def test_run_now_stays_on_the_watch_and_shows_the_run_live(owner_client, owner):
    watch = watch_make(owner, offline=True)
    response = owner_client.post(reverse("watch-run", args=[watch.pk]))
    assert response["Location"] == reverse("watch-detail", args=[watch.pk]) + "#runs"
    brief = Brief.objects.get(watch=watch)
    page = owner_client.get(response["Location"]).content.decode()
    live = re.search(r'<section class="card live" id="live"[^>]*>', page).group(0)
    assert f'data-ws="/ws/briefs/{brief.pk}/"' in live
    fragment = reverse("watch-runs-fragment", args=[watch.pk])
    assert f'data-fragment="{fragment}?run={brief.watch_run.pk}"' in live
    assert 'id="timeline"' in page and 'id="brief"' in page


def test_the_finished_run_is_swapped_in_with_its_new_items(owner_client, owner):
    watch = watch_make(owner)
    run = run_finished(watch, new=3)
    url = reverse("watch-runs-fragment", args=[watch.pk])
    shown = owner_client.get(url, {"run": run.pk}).content.decode()
    assert 'id="current-run"' in shown and 'id="live"' not in shown
    assert "3 new items" in shown and 'id="run-table"' in shown
    assert "<html" not in shown  # the runs alone, to swap in
    plain = owner_client.get(url).content.decode()  # no run named: only the history
    assert 'id="current-run"' not in plain


@pytest.mark.parametrize("value", ["", "abc", "-1", "9" * 40, "1 OR 1=1"])
def test_the_fragment_ignores_a_run_it_cannot_read(owner_client, owner, value):
    watch = watch_make(owner)
    run_finished(watch)
    response = owner_client.get(reverse("watch-runs-fragment", args=[watch.pk]), {"run": value})
    assert response.status_code == 200
    assert 'id="current-run"' not in response.content.decode()


def test_another_users_runs_fragment_is_a_404(other_client, owner):
    watch = watch_make(owner)
    url = reverse("watch-runs-fragment", args=[watch.pk])
    assert other_client.get(url).status_code == 404


def test_a_run_that_is_still_queued_is_shown_live_after_a_reload(owner_client, owner):
    watch = watch_make(owner, offline=True)
    owner_client.post(reverse("watch-run", args=[watch.pk]))
    assert Brief.objects.get(watch=watch).status == BriefStatus.QUEUED
    page = owner_client.get(reverse("watch-detail", args=[watch.pk])).content.decode()
    assert 'id="live"' in page and 'id="queue-line"' in page
