"""What ingest should keep of a feed, derived from plain ``feedparser.parse``, and the differences.

``expected_feed`` takes feedparser's own result (sanitiser on, the fetched URL as its base, as a
reader would call it) and applies only the rules ingest states on purpose: plain text, http(s)
links only, sane dates, entries with nothing to show dropped, repeats merged, a derived title
for an untitled text, the feed's own link before the fetched URL, guids as written. Whatever
else differs between that and ingest's answer is a difference the test reports.
"""

from __future__ import annotations

import io
import re
from datetime import datetime
from typing import Any

import feedparser

from fetching.feeditems import (
    AUTHOR_MAX,
    FEED_TITLE_MAX,
    GUID_MAX,
    MAX_ITEMS,
    SUMMARY_MAX,
    TITLE_MAX,
    feed_date,
    item_hash,
    link_absolute,
    link_kept,
    title_from_text,
)
from fetching.plaintext import html_text, plain_line

_HEADER = re.compile(r"^Header:\s*([A-Za-z-]+):\s*(.*?)\s*$", re.MULTILINE)
ITEM_FIELDS = ("guid", "title", "title_derived", "link", "summary", "author", "published_at")


def file_headers(body: bytes) -> dict[str, str]:
    """The HTTP headers a corpus file asks for, from ``Header:`` lines in its leading comment."""
    head = body[:3000]
    for encoding in ("utf-32", "utf-16") if b"\x00" in head[:4] else ():
        try:
            text = head.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        text = head.decode("latin-1")
    if "\x00" in text:  # UTF-16/32 without a byte order mark
        text = text.replace("\x00", "")
    return {name.lower(): value for name, value in _HEADER.findall(text)}


def reference_parse(body: bytes, headers: dict[str, str], fetched_url: str) -> Any:
    """Plain feedparser, as a reader calls it: the response headers and the fetched URL."""
    return feedparser.parse(
        io.BytesIO(body), response_headers={**headers, "content-location": fetched_url}
    )


def as_written(body: bytes, headers: dict[str, str]) -> Any:
    """feedparser with no base URL: links and ids as the feed wrote them (xml:base applied)."""
    plain = {k: v for k, v in headers.items() if k != "content-location"}
    return feedparser.parse(io.BytesIO(body), response_headers=plain)


def expected_feed(ref: Any, bare: Any, *, now: datetime) -> dict:
    feed_link = link_kept(ref.feed.get("link", ""))
    items: list[dict] = []
    seen: dict[str, set[str]] = {}
    for entry, written in zip(ref.entries, bare.entries, strict=False):
        item = _expected_item(entry, written, feed_link=feed_link, now=now)
        if item is None or not _first_of_its_kind(item, seen):
            continue
        items.append(item)
        if len(items) == MAX_ITEMS:
            break
    title = html_text(ref.feed.get("title", ""), FEED_TITLE_MAX)
    return {"title": title, "link": feed_link, "items": items}


def _expected_item(entry: Any, written: Any, *, feed_link: str, now: datetime) -> dict | None:
    body = entry.get("summary", "") or (entry.get("content") or [{}])[0].get("value", "")
    summary = html_text(body, SUMMARY_MAX)
    title = html_text(entry.get("title", ""), TITLE_MAX)
    guid = plain_line(written.get("id", ""), GUID_MAX)  # rule: a guid is kept as written
    raw_link = plain_line(written.get("link", ""), 2001)
    link = link_kept(entry.get("link", ""))
    if raw_link and not link_kept(raw_link) and feed_link:
        link = link_absolute(raw_link, feed_link)  # rule: the feed's own link comes first
    if not (guid or raw_link or title or summary):
        return None  # rule: nothing to show and nothing to identify it by
    published = None
    for key in ("published", "updated", "created"):
        published = published or feed_date(entry.get(f"{key}_parsed"), entry.get(key, ""), now=now)
    return {
        "guid": guid,
        "title": title or title_from_text(summary),  # rule: first words as a derived title
        "title_derived": not title and bool(summary),
        "link": link,
        "raw_link": raw_link,
        "summary": summary,
        "author": html_text(entry.get("author", ""), AUTHOR_MAX),
        "published_at": published,
    }


def _first_of_its_kind(item: dict, seen: dict[str, set[str]]) -> bool:
    """Rule: a repeated guid with the same link (or none) is the same item; first one kept."""
    text = "" if item["guid"] or item["raw_link"] or not item["title_derived"] else item["summary"]
    title = "" if item["title_derived"] else item["title"]
    key = item_hash(
        guid=item["guid"],
        link=item["link"] or item["raw_link"],
        title=title,
        published=item["published_at"],
        text=text,
    )
    link = item["link"] or item["raw_link"]
    if key not in seen:
        seen[key] = {link}
        return True
    if item["guid"] and link and link not in seen[key]:
        seen[key].add(link)
        return True
    return False


def differences(expected: dict, got: Any) -> list[tuple[str, Any, Any]]:
    """(field, expected, got) for every field that differs; items compared in order."""
    found = [
        (field, expected[field], getattr(got, field))
        for field in ("title", "link")
        if expected[field] != getattr(got, field)
    ]
    if len(expected["items"]) != len(got.items):
        found.append(("items", len(expected["items"]), len(got.items)))
    for want, have in zip(expected["items"], got.items, strict=False):
        for field in ITEM_FIELDS:
            if want[field] != getattr(have, field):
                found.append((f"item.{field}", want[field], getattr(have, field)))
    return found
