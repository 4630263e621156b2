"""A parsed feed -> the fields ingest stores: what a reader would keep, bounded and plain.

Django-free: runs in the parse worker. Rules:

- Links. A relative link (or a GUID that feedparser made the link) resolves against ``xml:base``
  (feedparser applies it), then against the feed's own link, then against the URL that was
  fetched; the feed's own link resolves against the fetched URL. Only an absolute http(s) link
  that fits its column is kept, otherwise "".
- Identity (``guid_hash``): the guid, else the link, else the title and date, else the text and
  date. Entries that repeat a guid with the same link (or none) are one item, the first kept;
  entries that share a guid but differ in link are different items.
- An item with text but no title gets its first words as title, marked ``title_derived``. An
  item with no link is kept: it is cited by its feed's path and its time.
- Dates: the first sane one of published / updated / created, as aware UTC.
"""

from __future__ import annotations

import calendar
import hashlib
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import urljoin, urlsplit

from fetching.plaintext import html_text, plain_line

MAX_ITEMS = 200
FEED_TITLE_MAX = 500  # Feed.title's column
TITLE_MAX = 1000
LINK_MAX = 2000
GUID_MAX = 2000
AUTHOR_MAX = 500
SUMMARY_MAX = 5000
DERIVED_TITLE_WORDS = 12
DERIVED_TITLE_CHARS = 80
OLDEST_DATE = datetime(1990, 1, 1, tzinfo=UTC)
FUTURE_SLACK = timedelta(days=2)
_ISO_DATE = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})")


def feed_fields(parsed: Any, *, url: str, now: datetime) -> dict:
    """``{"title", "link", "ttl", "items"}`` of a parsed feed fetched from ``url``; ``ttl`` is
    the feed's own ``<ttl>`` as written (``fetching.flight`` reads it)."""
    fetched = link_kept(url)
    link = link_absolute(parsed.feed.get("link", ""), fetched)
    return {
        "title": html_text(parsed.feed.get("title", ""), FEED_TITLE_MAX),
        "link": link,
        "ttl": plain_line(parsed.feed.get("ttl", ""), 12),
        "items": items_from(parsed.entries, now=now, base=link or fetched),
    }


def items_from(entries: list[Any], *, now: datetime, base: str) -> list[dict]:
    """The first MAX_ITEMS distinct items in document order (see the module docstring)."""
    items: list[dict] = []
    seen: dict[str, set[str]] = {}  # identity -> the links seen with it
    for entry in entries:
        item = _item_from(entry, now=now, base=base, seen=seen)
        if item is None:
            continue
        items.append(item)
        if len(items) == MAX_ITEMS:
            break
    return items


def _item_from(entry: Any, *, now: datetime, base: str, seen: dict[str, set[str]]) -> dict | None:
    """One normalised item, or None for an item with nothing to identify it or already seen."""
    guid = plain_line(entry.get("id", ""), GUID_MAX)
    raw_link = plain_line(entry.get("link", ""), LINK_MAX + 1)
    link = link_absolute(raw_link, base)
    title = html_text(entry.get("title", ""), TITLE_MAX)
    published = _entry_date(entry, now)
    # The body is read only when nothing else identifies the item: repeats cost no HTML parsing.
    text = "" if (guid or raw_link or title) else html_text(_entry_body(entry), SUMMARY_MAX)
    key = _identity(guid, link or raw_link, title, published, text, seen)
    if key is None:
        return None
    summary = text or html_text(_entry_body(entry), SUMMARY_MAX)
    return {
        "guid_hash": key,
        "guid": guid,
        "title": title or title_from_text(summary),
        "title_derived": not title and bool(summary),
        "link": link,
        "summary": summary,
        "author": html_text(entry.get("author", ""), AUTHOR_MAX),
        "published_at": calendar.timegm(published.utctimetuple()) if published else None,
    }


def _identity(
    guid: str,
    link: str,
    title: str,
    published: datetime | None,
    text: str,
    seen: dict[str, set[str]],
) -> str | None:
    """The item's ``guid_hash``, or None when it has none or repeats an item already taken."""
    key = item_hash(guid=guid, link=link, title=title, published=published, text=text)
    if key is None:
        return None
    if key not in seen:
        seen[key] = {link}
        return key
    if not guid or not link or link in seen[key]:
        return None
    # Same guid, another link: another item. Its own key leaves the first item's key unchanged.
    seen[key].add(link)
    return item_hash(guid=f"{guid}\nlink\n{link}", link="", title="", published=None)


def item_hash(
    *, guid: str, link: str, title: str, published: datetime | None, text: str = ""
) -> str | None:
    """sha256 hex of the item's identity: its guid, else its link, else title (else text) and date.

    The kind prefix keeps a guid from colliding with an equal link of another item. None when the
    item has none of these (nothing stable to key it on).
    """
    when = published.isoformat() if published else ""
    if guid:
        key = "guid\n" + guid
    elif link:
        key = "link\n" + link
    elif title:
        key = "title\n" + title + "\n" + when
    elif text:
        key = "text\n" + text + "\n" + when
    else:
        return None
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def title_from_text(text: str) -> str:
    """The first words of ``text`` (at most DERIVED_TITLE_WORDS, about DERIVED_TITLE_CHARS)."""
    words = text.split()
    title = " ".join(words[:DERIVED_TITLE_WORDS])
    if len(title) > DERIVED_TITLE_CHARS:
        cut = title[:DERIVED_TITLE_CHARS]
        title = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return title + ("…" if title != " ".join(words) else "")


def _entry_body(entry: Any) -> str:
    summary = entry.get("summary", "")
    if summary:
        return summary
    content = entry.get("content") or [{}]
    return content[0].get("value", "")


def _entry_date(entry: Any, now: datetime) -> datetime | None:
    """The first sane one of published / updated / created, as aware UTC."""
    for key in ("published", "updated", "created"):
        when = feed_date(entry.get(f"{key}_parsed"), entry.get(key, ""), now=now)
        if when is not None:
            return when
    return None


def feed_date(parsed: Any, raw: str, *, now: datetime) -> datetime | None:
    """feedparser's UTC struct_time as an aware datetime, or None when missing or absurd.

    Absurd: no real calendar date (feedparser silently rolls ISO ``2024-02-31`` over to March, so
    the raw text is checked too), before 1990, or more than two days ahead of ``now``.
    """
    try:
        when = datetime(*parsed[:5], min(parsed[5], 59), tzinfo=UTC)
    except (TypeError, ValueError, OverflowError, IndexError):
        return None
    iso = _ISO_DATE.match(raw) if isinstance(raw, str) else None
    if iso is not None:
        try:
            date(*map(int, iso.groups()))
        except ValueError:
            return None
    if not OLDEST_DATE <= when <= now + FUTURE_SLACK:
        return None
    return when


def link_absolute(value: Any, base: str) -> str:
    """``value`` resolved against ``base`` when relative, kept when an absolute http(s) URL."""
    link = plain_line(value, LINK_MAX + 1)
    if link and base:
        try:
            if not urlsplit(link).scheme:
                link = urljoin(base, link)
        except ValueError:
            return ""
    return link_kept(link)


def link_kept(value: Any) -> str:
    """A feed's link as ingest keeps it: taken as plain text (controls dropped, whitespace
    collapsed), then kept only when it is one absolute http(s) URL; otherwise ""."""
    url = plain_line(value, LINK_MAX + 1)
    if " " in url:
        return ""  # a spaced URL was two words, or points somewhere else
    return url if is_absolute_http_url(url) else ""


def is_absolute_http_url(url: str) -> bool:
    """The one rule of a link we keep or show: an http(s) URL with a host, at most ``LINK_MAX``
    characters (the column; a cut URL points somewhere else). Ingest keeps such links
    (``link_kept``); a brief's page links only to them (``briefs.markdown.citation_href``)."""
    if len(url) > LINK_MAX:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
