"""Storing parsed items: idempotent on (feed, guid_hash), and one bad item never sinks the rest."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from fetching import ingest
from fetching.feeditems import item_hash
from fetching.ingest import feed_details_update, feed_ingest, items_store
from fetching.models import Feed, Item
from fetching.parsing import ParsedFeed, ParsedItem, feed_parse

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def parsed_item(n: int, **overrides) -> ParsedItem:
    fields = {
        "guid_hash": item_hash(guid=f"g{n}", link="", title="", published=None),
        "guid": f"g{n}",
        "title": f"Title {n}",
        "link": f"https://example.com/{n}",
        "summary": f"Summary {n}",
        "author": "Ann",
        "published_at": T0 - timedelta(minutes=n),
    }
    return ParsedItem(**(fields | overrides))


@pytest.fixture
def feed(db):
    return Feed.objects.create(path="/test/1")


def writes(queries) -> list[str]:
    reads = ("SELECT", "SAVEPOINT", "RELEASE SAVEPOINT")
    return [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(reads)]


def test_it_stores_new_items(feed):
    new, seen = items_store(feed=feed, items=[parsed_item(1), parsed_item(2)], now=T0)

    assert (new, seen) == (2, 0)
    stored = Item.objects.get(feed=feed, guid="g1")
    assert (stored.title, stored.link, stored.summary, stored.author) == (
        "Title 1",
        "https://example.com/1",
        "Summary 1",
        "Ann",
    )
    assert stored.published_at == T0 - timedelta(minutes=1)
    assert stored.first_seen_at == stored.last_seen_at == T0


def test_it_writes_nothing_when_refetching_an_unchanged_feed(feed):
    items = [parsed_item(n) for n in range(50)]
    items_store(feed=feed, items=items, now=T0)

    with CaptureQueriesContext(connection) as queries:
        new, seen = items_store(feed=feed, items=items, now=T0 + timedelta(hours=1))

    assert (new, seen) == (0, 50)
    assert writes(queries) == []
    assert len(queries.captured_queries) == 1  # the one lookup of stored hashes
    assert Item.objects.filter(feed=feed).count() == 50


def test_it_counts_new_and_seen_when_a_feed_moves_on(feed):
    items_store(feed=feed, items=[parsed_item(1), parsed_item(2), parsed_item(3)], now=T0)

    new, seen = items_store(feed=feed, items=[parsed_item(4), parsed_item(2), parsed_item(3)])

    assert (new, seen) == (1, 2)
    assert Item.objects.filter(feed=feed).count() == 4


def test_it_does_not_rewrite_seen_items(feed):
    items_store(feed=feed, items=[parsed_item(1)], now=T0)

    items_store(feed=feed, items=[parsed_item(1, title="Edited")], now=T0 + timedelta(days=1))

    stored = Item.objects.get(feed=feed)
    assert (stored.title, stored.first_seen_at) == ("Title 1", T0)


def test_it_keeps_the_first_of_duplicate_hashes_in_one_call(feed):
    new, seen = items_store(
        feed=feed, items=[parsed_item(1, title="first"), parsed_item(1, title="second")]
    )

    assert (new, seen) == (1, 0)
    assert Item.objects.get(feed=feed).title == "first"


def test_the_same_guid_is_a_separate_item_in_another_feed(feed):
    other = Feed.objects.create(path="/test/2")

    items_store(feed=feed, items=[parsed_item(1)])
    new, seen = items_store(feed=other, items=[parsed_item(1)])

    assert (new, seen) == (1, 0)
    assert Item.objects.filter(guid="g1").count() == 2


def test_it_stores_nothing_for_no_items(feed):
    with CaptureQueriesContext(connection) as queries:
        assert items_store(feed=feed, items=[]) == (0, 0)

    assert queries.captured_queries == []


def test_it_drops_an_item_the_database_refuses_and_stores_the_rest(feed):
    # A lone surrogate cannot be encoded by PostgreSQL's or SQLite's driver. The parser never
    # returns one; this stands for any value a future bug lets through.
    bad = parsed_item(2, title="broken \ud800 title")

    new, seen = items_store(feed=feed, items=[parsed_item(1), bad, parsed_item(3)])

    assert (new, seen) == (2, 0)
    assert sorted(Item.objects.filter(feed=feed).values_list("guid", flat=True)) == ["g1", "g3"]


def test_it_ignores_a_row_a_concurrent_fetch_inserted_first(feed, monkeypatch):
    # Another worker stores g1 between our lookup and our insert: no error, one row.
    Item.objects.create(feed=feed, guid_hash=parsed_item(1).guid_hash, guid="g1", title="theirs")
    monkeypatch.setattr(ingest, "_stored_hashes", lambda feed, hashes: set())

    items_store(feed=feed, items=[parsed_item(1), parsed_item(2)])

    assert Item.objects.get(feed=feed, guid="g1").title == "theirs"
    assert Item.objects.filter(feed=feed).count() == 2


def test_feed_details_update_writes_only_when_changed(feed):
    parsed = ParsedFeed(title="Test 1", link="https://github.com/DIYgod/RSSHub", items=[])

    assert feed_details_update(feed=feed, parsed=parsed)
    with CaptureQueriesContext(connection) as queries:
        assert not feed_details_update(feed=feed, parsed=parsed)

    assert queries.captured_queries == []
    feed.refresh_from_db()
    assert (feed.title, feed.link) == ("Test 1", "https://github.com/DIYgod/RSSHub")


def test_feed_details_update_keeps_a_title_the_feed_stopped_sending(feed):
    feed_details_update(feed=feed, parsed=ParsedFeed(title="Named", link="https://a/", items=[]))

    assert not feed_details_update(feed=feed, parsed=ParsedFeed(title="", link="", items=[]))
    assert (feed.title, feed.link) == ("Named", "https://a/")


RSSHUB_FEED = (
    '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Test 1</title>'
    "<link>https://github.com/DIYgod/RSSHub</link>"
    + "".join(
        f"<item><title>Title{n}</title><description>Description{n}</description>"
        f"<link>https://github.com/DIYgod/RSSHub/issues/{n}</link>"
        f'<guid isPermaLink="false">https://github.com/DIYgod/RSSHub/issues/{n}</guid>'
        f"<pubDate>Mon, 31 Dec 2018 15:59:{60 - n * 10:02d} GMT</pubDate></item>"
        for n in range(1, 6)
    )
    + "<item><title>Title1 again</title><guid>https://github.com/DIYgod/RSSHub/issues/1</guid>"
    "</item></channel></rss>"
).encode()


def test_it_ingests_a_feed_end_to_end_and_a_second_fetch_writes_nothing(feed):
    assert feed_ingest(feed=feed, parsed=feed_parse(RSSHUB_FEED)) == (5, 0)

    with CaptureQueriesContext(connection) as queries:
        again = feed_ingest(feed=feed, parsed=feed_parse(RSSHUB_FEED))

    assert again == (0, 5)
    assert writes(queries) == []
    assert Item.objects.filter(feed=feed).count() == 5
    assert Item.objects.get(feed=feed, title="Title1").published_at == datetime(
        2018, 12, 31, 15, 59, 50, tzinfo=UTC
    )
    feed.refresh_from_db()
    assert feed.title == "Test 1"


def test_it_stores_items_of_a_hostile_feed_that_the_database_accepts(feed):
    # NUL, a surrogate reference and over-long fields: parsing cleans them, so all are stored.
    body = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
        f"<item><title>a\x00b&#xD800;c</title><guid>{'g' * 3000}</guid>"
        f"<author>{'a' * 65536}</author><description>{'d' * 9000}</description></item>"
        "<item><title>two</title><guid>g2</guid><link>javascript:alert(1)</link></item>"
        "</channel></rss>"
    ).encode()

    assert items_store(feed=feed, items=feed_parse(body).items) == (2, 0)

    first = Item.objects.get(feed=feed, title="abc")
    assert (len(first.guid), len(first.author), len(first.summary)) == (2000, 500, 5000)
    assert Item.objects.get(feed=feed, title="two").link == ""
