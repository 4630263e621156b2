"""Feed ingest: a ``ParsedFeed`` (``fetching.parsing``) -> stored ``Item`` rows.

Storing: one query for the existing hashes, one ``INSERT ... ON CONFLICT DO NOTHING`` for the new
ones; an unchanged feed writes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import DatabaseError, transaction
from django.db.models import Q
from django.utils import timezone

from fetching.models import Feed, Item
from fetching.parsing import ParsedFeed, ParsedItem

logger = logging.getLogger(__name__)

RECENT_ITEMS = 200  # item ids handed back when the feed's stored items answer for it


def items_store(
    *, feed: Feed, items: list[ParsedItem], now: datetime | None = None
) -> tuple[int, int]:
    """Insert the items not yet stored for ``feed``; return ``(new, seen)``.

    Idempotent on ``(feed, guid_hash)``: rows already stored are neither counted as new nor
    rewritten, so re-fetching an unchanged feed writes nothing. A repeated ``guid_hash`` in
    ``items`` keeps the first. One item the database refuses is dropped and logged; the others
    are stored. Under a concurrent insert of the same item both callers may count it as new (the
    database keeps one row).
    """
    unique: dict[str, ParsedItem] = {}
    for item in items:
        unique.setdefault(item.guid_hash, item)
    if not unique:
        return 0, 0
    stored = _stored_hashes(feed, list(unique))
    now = now or timezone.now()
    rows = [_item_row(feed, item, now) for key, item in unique.items() if key not in stored]
    return _rows_insert(rows), len(stored)


def _stored_hashes(feed: Feed, hashes: list[str]) -> set[str]:
    found = Item.objects.filter(feed=feed, guid_hash__in=hashes).values_list("guid_hash", flat=True)
    return set(found)


def _item_row(feed: Feed, item: ParsedItem, now: datetime) -> Item:
    return Item(
        feed=feed,
        guid_hash=item.guid_hash,
        guid=item.guid,
        title=item.title,
        link=item.link,
        summary=item.summary,
        author=item.author,
        published_at=item.published_at,
        title_derived=item.title_derived,
        first_seen_at=now,
        last_seen_at=now,
    )


def _rows_insert(rows: list[Item]) -> int:
    """Insert in one statement; if the database refuses it, row by row, dropping bad rows."""
    if not rows:
        return 0
    try:
        with transaction.atomic():
            Item.objects.bulk_create(rows, ignore_conflicts=True)
        return len(rows)
    except (DatabaseError, ValueError):
        # ValueError covers encoding errors raised by the driver before the statement is sent.
        pass
    stored = 0
    for row in rows:
        try:
            with transaction.atomic():
                Item.objects.bulk_create([row], ignore_conflicts=True)
            stored += 1
        except (DatabaseError, ValueError) as error:
            logger.warning("item %s of feed %s dropped: %s", row.guid_hash, row.feed_id, error)
    return stored


def feed_details_update(*, feed: Feed, parsed: ParsedFeed) -> bool:
    """Copy the feed's title and link onto ``feed`` when they changed; True when it wrote.

    An empty parsed value keeps the stored one (a feed that drops its title keeps its name).
    """
    title = parsed.title[: Feed._meta.get_field("title").max_length] or feed.title
    link = parsed.link or feed.link
    if (title, link) == (feed.title, feed.link):
        return False
    Feed.objects.filter(pk=feed.pk).update(title=title, link=link)
    feed.title, feed.link = title, link
    return True


def feed_recent_values(feed_id: int, *fields: str) -> list[tuple]:
    """``fields`` of the feed's newest stored items: what answers for it when nothing new came
    (a 304, or an answer served from an earlier fetch)."""
    recent = Item.objects.filter(feed_id=feed_id).order_by("-published_at", "-id")
    return list(recent.values_list(*fields)[:RECENT_ITEMS])


# How stale ``Item.last_seen_at`` and ``Feed.last_fetched_at`` may get before an answer refreshes
# them: housekeeping ages by days, so a day's precision costs at most one write per row a day.
SEEN_REFRESH = timedelta(days=1)


def seen_refresh(
    *, feeds: Iterable[Feed], items: Iterable[tuple[int, datetime]], now: datetime
) -> None:
    """Record that RSSHub answered for ``feeds`` and listed ``items`` (``(id, last_seen_at)``
    pairs as read). A row is written at most once a day, and no statement is sent when nothing
    is stale: the day's other fetches of an unchanged feed still write nothing. Housekeeping
    keeps an item's text while its feed lists it, and its key while its feed is fetched."""
    stale = now - SEEN_REFRESH
    item_ids = {pk for pk, seen in items if seen < stale}
    feed_ids = {f.pk for f in feeds if f.last_fetched_at is None or f.last_fetched_at < stale}
    if item_ids:
        Item.objects.filter(pk__in=item_ids, last_seen_at__lt=stale).update(last_seen_at=now)
    if feed_ids:
        unfetched = Q(last_fetched_at__lt=stale) | Q(last_fetched_at__isnull=True)
        Feed.objects.filter(unfetched, pk__in=feed_ids).update(last_fetched_at=now)


def feed_ingest(*, feed: Feed, parsed: ParsedFeed, now: datetime | None = None) -> tuple[int, int]:
    """Store a parsed feed: its details when changed, then its items. Returns ``(new, seen)``."""
    feed_details_update(feed=feed, parsed=parsed)
    return items_store(feed=feed, items=parsed.items, now=now)
