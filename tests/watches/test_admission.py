"""Scheduled watch runs go through the briefs' admission like every other way in: with the
owner's daily quota spent, the runs stop at it, each refused watch says why on its page, and
the slot is spent (no run for it later)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from briefs.models import Brief, BriefQuotaDay
from briefs.quotas import quota_day
from tests.watches.conftest import watch_make
from watches.dispatch import watches_dispatch
from watches.models import Watch

pytestmark = pytest.mark.django_db


def all_due(owner, n: int) -> list[Watch]:
    watches = [
        watch_make(owner, question=f"Alpha Wire news {i}", schedule="hourly", time="00:00")
        for i in range(n)
    ]
    Watch.objects.filter(owner=owner).update(next_run_at=timezone.now() - timedelta(minutes=1))
    return watches


def test_twenty_hourly_watches_stop_at_the_daily_quota(owner, settings):
    settings.API_BRIEFS_PER_DAY = 5
    all_due(owner, 20)
    watches_dispatch(seconds=30)
    assert Brief.objects.filter(owner=owner).count() == 5, "runs went past the daily quota"
    assert BriefQuotaDay.objects.get(user=owner, day=quota_day()).count == 5
    skipped = Watch.objects.filter(owner=owner, skip_reason="briefs_per_day")
    assert skipped.count() == 15
    assert watches_dispatch(seconds=30)["claimed"] == 0, "a skipped slot ran later"


def test_the_watch_page_says_why_its_run_did_not_start(client, owner, settings):
    settings.API_BRIEFS_PER_DAY = 0
    [watch] = all_due(owner, 1)
    watches_dispatch(seconds=30)
    client.force_login(owner)
    page = client.get(reverse("watch-detail", args=[watch.pk])).content.decode()
    assert 'id="watch-skipped"' in page
    assert "your quota of briefs a day was spent" in page


def test_the_note_goes_once_a_later_run_starts(client, owner, settings):
    settings.API_BRIEFS_PER_DAY = 0
    [watch] = all_due(owner, 1)
    watches_dispatch(seconds=30)
    settings.API_BRIEFS_PER_DAY = 10
    Watch.objects.filter(pk=watch.pk).update(next_run_at=timezone.now() - timedelta(seconds=1))
    watches_dispatch(seconds=30)
    client.force_login(owner)
    page = client.get(reverse("watch-detail", args=[watch.pk])).content.decode()
    assert 'id="watch-skipped"' not in page
    assert Brief.objects.filter(watch=watch).count() == 1
