"""Ingest and "what changed" after housekeeping, through the real fetch path and a stand-in RSSHub
on 127.0.0.1: a pruned feed's items are still known, so nothing old comes back as new."""

from datetime import timedelta

import pytest
from django.utils import timezone

from fetching.models import Feed, FetchAttempt, Item, PathFetch
from fetching.paths import catalog_cache_clear
from fetching.services import fetch_path_sync
from housekeeping.services import housekeep_run
from tests.feeds import feed_reply
from tests.httpserver import ScriptedServer

pytestmark = pytest.mark.django_db
PATH = "/test/housekeeping"


@pytest.fixture
def rsshub_stand_in(settings):
    catalog_cache_clear()
    with ScriptedServer() as server:
        settings.RSSHUB_URL = server.url
        settings.RSSHUB_ACCESS_KEY = ""
        settings.RSSHUB_TIMEOUT = 2.0
        settings.RSSHUB_CONNECT_TIMEOUT = 1.0
        yield server
    catalog_cache_clear()


def age_everything(days: int) -> None:
    """As if the last fetch of the feed was ``days`` ago."""
    then = timezone.now() - timedelta(days=days)
    Item.objects.update(first_seen_at=then, last_seen_at=then)
    Feed.objects.update(last_fetched_at=then)
    FetchAttempt.objects.update(created_at=then)
    PathFetch.objects.update(answered_at=then)


def test_a_refetch_after_pruning_counts_nothing_old_as_new(rsshub_stand_in):
    rsshub_stand_in.route(PATH, feed_reply(5))
    assert fetch_path_sync(PATH).items_new == 5
    age_everything(40)
    report = housekeep_run()
    assert report.removed["fetching_item (text cleared)"] == 5
    assert report.removed["fetching_fetchattempt"] == 1
    assert Item.objects.count() == 5, "item keys went while the feed is fetched"
    again = fetch_path_sync(PATH)
    assert (again.items_new, again.items_seen) == (0, 5)
    assert len(again.item_ids) == 5


def test_what_changed_still_sees_only_the_new_item_after_pruning(rsshub_stand_in):
    rsshub_stand_in.route(PATH, feed_reply(5))
    fetch_path_sync(PATH)
    age_everything(40)
    housekeep_run()
    rsshub_stand_in.route(PATH, feed_reply(6))
    changed = fetch_path_sync(PATH)
    assert (changed.items_new, changed.items_seen) == (1, 5)


def test_an_item_its_feed_still_lists_keeps_its_text(rsshub_stand_in):
    rsshub_stand_in.route(PATH, feed_reply(5))
    fetch_path_sync(PATH)
    age_everything(40)
    fetch_path_sync(PATH)  # the feed lists them again: seen today
    report = housekeep_run()
    assert report.removed["fetching_item (text cleared)"] == 0
    assert all(Item.objects.values_list("summary", flat=True))
    feed = Feed.objects.get(path=PATH)
    assert feed.last_fetched_at > timezone.now() - timedelta(minutes=5)


def test_a_fetch_refreshes_last_seen_only_when_a_day_stale(rsshub_stand_in):
    rsshub_stand_in.route(PATH, feed_reply(2))
    fetch_path_sync(PATH)
    then = timezone.now() - timedelta(hours=20)
    Item.objects.update(last_seen_at=then)
    fetch_path_sync(PATH, refresh=True)  # a request, not the answer of a moment ago
    assert set(Item.objects.values_list("last_seen_at", flat=True)) == {then}


def test_a_feed_no_longer_fetched_starts_afresh(rsshub_stand_in):
    rsshub_stand_in.route(PATH, feed_reply(5))
    fetch_path_sync(PATH)
    age_everything(100)
    report = housekeep_run()
    assert (report.removed["fetching_item"], report.removed["fetching_feed"]) == (5, 1)
    assert fetch_path_sync(PATH).items_new == 5
