"""What's new: the new items across a person's watches, newest first, each with its watch and
citation; only runs that found something new; never another person's; seeing the page reads
them. The digest email: chosen per person, sent once per period by the hourly task through the
email backend (locmem here), with the same items."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from briefs.models import BriefStatus
from tests.watches.conftest import run_finished, watch_make
from watches.models import WatchDigest, WatchRun
from watches.news import digest_choose, digests_send_due, news_items
from watches.notify import watch_run_settle

pytestmark = pytest.mark.django_db


def cite(n: int, title: str, when: str) -> dict:
    return {
        "n": n,
        "title": title,
        "link": f"https://news.example.com/{n}-{title.replace(' ', '-')}",
        "source": "Alpha Wire",
        "path": "/alpha/flash",
        "published_at": when,
    }


@pytest.fixture
def two_watches(owner):
    chips = watch_make(owner, "chips news")
    ships = watch_make(owner, "ships news")
    run_finished(
        chips,
        new=2,
        citations=[
            cite(1, "Chip old", "2026-11-01T06:00:00+00:00"),
            cite(2, "Chip newest", "2026-11-03T06:00:00+00:00"),
        ],
    )
    run_finished(ships, new=1, citations=[cite(1, "Ship middle", "2026-11-02T06:00:00+00:00")])
    run_finished(ships, new=0, citations=[cite(1, "Ship repeated", "2026-11-04T06:00:00+00:00")])
    run_finished(
        chips, status=BriefStatus.FAILED, citations=[cite(1, "Failed", "2026-11-05T06:00:00+00:00")]
    )
    return chips, ships  # fmt: skip


def test_the_new_items_are_listed_newest_first_with_their_watch(owner_client, two_watches):
    chips, ships = two_watches
    page = owner_client.get(reverse("watch-news")).content.decode()
    titles = re.findall(r'class="source-link">([^<]+)</a>', page)
    assert titles == ["Chip newest", "Ship middle", "Chip old"]
    items = re.findall(r'<li class="news-item.*?</li>', page, re.S)
    assert reverse("watch-detail", args=[chips.pk]) in items[0]
    assert reverse("watch-detail", args=[ships.pk]) in items[1]
    chip_run = WatchRun.objects.filter(watch=chips, brief__status=BriefStatus.SUCCEEDED).get()
    assert f"{reverse('watch-run-open', args=[chip_run.pk])}#cite-2" in items[0]
    assert "Ship repeated" not in page and "Failed" not in page


def test_another_persons_news_is_not_shown(other_client, two_watches):
    page = other_client.get(reverse("watch-news")).content.decode()
    assert 'id="no-news"' in page and "Chip" not in page


def test_the_page_reads_in_a_fixed_number_of_queries(owner_client, owner, two_watches):
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert owner_client.get(reverse("watch-news")).status_code == 200
        return len(queries)

    few = count()
    for n in range(5):
        run_finished(watch_make(owner, f"more news {n}"), new=1)
    assert count() == few


def test_seeing_the_page_reads_the_runs_it_shows(owner_client, owner, two_watches):
    for run in WatchRun.objects.all():
        watch_run_settle(run.brief_id)
    unread = WatchRun.objects.filter(read_at__isnull=True, settled_at__isnull=False).count()
    assert unread == 2  # the runs that found something new
    page = owner_client.get(reverse("watch-news")).content.decode()
    assert page.count('class="news-item unread"') == 3
    assert not WatchRun.objects.filter(read_at__isnull=True, settled_at__isnull=False).exists()
    assert (
        'class="news-item unread"' not in owner_client.get(reverse("watch-news")).content.decode()
    )


def test_the_nav_links_to_whats_new(owner_client):
    page = owner_client.get(reverse("watch-list")).content.decode()
    assert f'href="{reverse("watch-news")}" id="news-link"' in page


def test_the_page_speaks_chinese(owner_client, two_watches):
    page = owner_client.get(reverse("watch-news"), headers={"Accept-Language": "zh-hans"})
    text = page.content.decode()
    assert "最新动态" in text and "摘要邮件" in text


@pytest.mark.parametrize("value", ["daily", "weekly", "off"])
def test_the_digest_is_chosen_on_the_page(owner_client, owner, value):
    response = owner_client.post(reverse("watch-news"), {"frequency": value})
    assert response.status_code == 302
    assert WatchDigest.objects.get(owner=owner).frequency == value


@pytest.mark.parametrize("value", ["", "hourly", "DAILY", "daily\x00", "x" * 500])
def test_a_bad_digest_choice_is_refused(owner_client, owner, value):
    response = owner_client.post(reverse("watch-news"), {"frequency": value})
    assert response.status_code == 400
    assert not WatchDigest.objects.exists()


def test_the_digest_form_needs_sign_in_and_its_csrf_token(owner):
    from django.test import Client

    assert Client().post(reverse("watch-news"), {"frequency": "daily"}).status_code == 302
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)
    assert strict.post(reverse("watch-news"), {"frequency": "daily"}).status_code == 403
    assert not WatchDigest.objects.exists()


def backdate(digest: WatchDigest, days: float) -> None:
    WatchDigest.objects.filter(pk=digest.pk).update(
        covered_until=timezone.now() - timedelta(days=days)
    )
    WatchRun.objects.update(created_at=timezone.now() - timedelta(hours=1))


def test_a_daily_digest_sends_the_new_items_once(reader):
    watch = watch_make(reader, "chips news")
    run_finished(watch, new=1, citations=[cite(1, "Chip & ship", "2026-11-03T06:00:00+00:00")])
    digest = digest_choose(owner=reader, frequency="daily")
    backdate(digest, 1.01)
    now = timezone.now()
    assert digests_send_due(now=now) == 1
    [message] = mail.outbox
    assert message.to == ["reader@example.org"]
    assert message.subject == "Today on your watches: 1 new item"
    assert "Chip & ship" in message.body and "Watch: chips news" in message.body
    assert "2026-11-03 06:00 UTC" in message.body
    assert "https://agent.example.org/watches/new/" in message.body
    html = message.alternatives[0][0]
    assert "Chip &amp; ship" in html and 'href="https://news.example.com/1-Chip-&amp;-ship"' in html
    assert digests_send_due(now=now + timedelta(minutes=1)) == 0  # its period is taken
    assert len(mail.outbox) == 1


def test_a_weekly_digest_waits_for_its_week(reader):
    run_finished(watch_make(reader), new=1)
    digest = digest_choose(owner=reader, frequency="weekly")
    backdate(digest, 2)
    assert digests_send_due(now=timezone.now()) == 0
    backdate(digest, 7.01)
    assert digests_send_due(now=timezone.now()) == 1
    assert mail.outbox[0].subject == "This week on your watches: 1 new item"


def test_no_digest_without_news_an_address_or_a_choice(reader, owner):
    run_finished(watch_make(reader), new=0)
    backdate(digest_choose(owner=reader, frequency="daily"), 1.01)
    run_finished(watch_make(owner), new=1)  # owner has no email address
    backdate(digest_choose(owner=owner, frequency="daily"), 1.01)
    assert digests_send_due(now=timezone.now()) == 0
    assert mail.outbox == []
    off = digest_choose(owner=reader, frequency="off")
    backdate(off, 30)
    assert digests_send_due(now=timezone.now()) == 0


def test_a_digest_covers_only_its_own_period(reader):
    watch = watch_make(reader)
    digest = digest_choose(owner=reader, frequency="daily")
    backdate(digest, 1.01)
    old = run_finished(watch, new=1, citations=[cite(1, "Before", "2026-11-01T06:00:00+00:00")])
    WatchRun.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=3))
    run_finished(watch, new=1, citations=[cite(1, "Within", "2026-11-02T06:00:00+00:00")])
    assert digests_send_due(now=timezone.now()) == 1
    assert "Within" in mail.outbox[0].body and "Before" not in mail.outbox[0].body


def test_a_digest_in_chinese_for_chinese_questions(reader):
    run_finished(watch_make(reader, "华为 新闻"), new=2)
    backdate(digest_choose(owner=reader, frequency="daily"), 1.01)
    digests_send_due(now=timezone.now())
    assert "关注" in mail.outbox[0].subject
    assert '<html lang="zh-Hans">' in mail.outbox[0].alternatives[0][0]


def test_news_items_skip_malformed_citations(owner):
    run_finished(watch_make(owner), new=1, citations=[{"n": "x"}, "junk", cite(3, "Ok", "bad")])
    assert [item.title for item in news_items(owner)] == ["Ok"]


def test_the_hourly_schedule_sends_the_digests_due():
    """The migration's schedule (as existing tasks are scheduled) runs the task that sends."""
    from django_q.models import Schedule

    from watches import tasks

    schedule = Schedule.objects.get(name="watches-digests")
    assert (schedule.func, schedule.schedule_type, schedule.repeats) == (
        "watches.tasks.digests_send", Schedule.HOURLY, -1,
    )  # fmt: skip
    assert tasks.digests_send() == 0


def test_staff_see_who_gets_a_digest(staff_client, reader):
    digest_choose(owner=reader, frequency="weekly")
    page = staff_client.get(reverse("admin:watches_watchdigest_changelist")).content.decode()
    assert "reader" in page and "weekly" in page
    assert staff_client.get(reverse("admin:watches_watchdigest_add")).status_code == 403
