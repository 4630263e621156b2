"""Scheduled watch runs go through the briefs' admission like every other way in: with the
owner's daily quota spent, the runs stop at it, each refused watch says why on its page, and
the slot is spent (no run for it later)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
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


# --- The owner is told, once a day ---------------------------------------------------------------


def mailed_due(owner, n: int, *, notify_email: bool = True) -> list[Watch]:
    watches = all_due(owner, n)
    Watch.objects.filter(owner=owner).update(notify_email=notify_email)
    return watches


def dispatch_at(owner, when, capture) -> None:
    """A dispatch at ``when`` with the owner's watches all due, its after-commit work run."""
    Watch.objects.filter(owner=owner).update(next_run_at=when - timedelta(minutes=1))
    with capture(execute=True):
        watches_dispatch(now=when, seconds=30)


def test_the_owner_is_emailed_once_a_day_about_refused_runs(
    reader, settings, django_capture_on_commit_callbacks
):
    settings.API_BRIEFS_PER_DAY = 5
    mailed_due(reader, 20)
    now = timezone.now()
    dispatch_at(reader, now, django_capture_on_commit_callbacks)
    (message,) = mail.outbox
    assert message.to == ["reader@example.org"]
    assert message.subject == "Scheduled runs of 15 of your watches did not start"
    assert message.body.count("Not started: your quota of briefs a day was spent.") == 15
    skipped = Watch.objects.filter(owner=reader, skip_reason="briefs_per_day")
    assert all(f"/watches/{w.pk}/" in message.body for w in skipped)
    for hours in range(1, 24):  # every hourly slot of the day is refused: no second email
        dispatch_at(reader, now + timedelta(hours=hours), django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1, [m.subject for m in mail.outbox]
    dispatch_at(reader, now + timedelta(hours=24, minutes=1), django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 2, "the next day's refusals were not told"


def test_only_watches_that_notify_by_email_are_emailed_about(
    reader, owner, settings, django_capture_on_commit_callbacks
):
    settings.API_BRIEFS_PER_DAY = 0
    mailed_due(reader, 2, notify_email=False)
    dispatch_at(reader, timezone.now(), django_capture_on_commit_callbacks)
    assert Watch.objects.filter(owner=reader, skipped_at__isnull=False).count() == 2
    assert mail.outbox == [], "an email about watches that do not notify by email"


def test_a_deactivated_owner_is_not_told(reader, settings):
    from watches.skips import watch_skips_tell

    settings.API_BRIEFS_PER_DAY = 0
    [watch] = mailed_due(reader, 1)
    now = timezone.now()
    Watch.objects.filter(pk=watch.pk).update(skipped_at=now, skip_reason="briefs_per_day")
    reader.is_active = False
    reader.save(update_fields=["is_active"])
    assert watch_skips_tell(owner_id=reader.pk, watch_ids=[watch.pk], now=now) is False
    assert mail.outbox == []


def test_a_notice_that_could_not_be_sent_is_sent_at_the_next_refusal(
    reader, settings, django_capture_on_commit_callbacks
):
    settings.API_BRIEFS_PER_DAY = 0
    mailed_due(reader, 1)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    now = timezone.now()
    dispatch_at(reader, now, django_capture_on_commit_callbacks)
    assert Watch.objects.get(owner=reader).skip_told_at is None, "a failed send counted as told"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    dispatch_at(reader, now + timedelta(hours=1), django_capture_on_commit_callbacks)
    assert [m.subject for m in mail.outbox] == ["A scheduled run of your watch did not start"]


def test_the_notice_is_in_the_language_of_the_questions(
    reader, settings, django_capture_on_commit_callbacks
):
    settings.API_BRIEFS_PER_DAY = 0
    [watch] = mailed_due(reader, 1)
    Watch.objects.filter(pk=watch.pk).update(question="阿尔法通讯快讯")
    dispatch_at(reader, timezone.now(), django_capture_on_commit_callbacks)
    (message,) = mail.outbox
    assert "阿尔法通讯快讯" in message.body
    assert message.subject != "A scheduled run of your watch did not start", "not translated"
