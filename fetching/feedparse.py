"""Feed bytes -> one bounded, plain-text, JSON-able feed: the half of ingest that runs in the
parse worker.

Django-free on purpose: ``fetching.ingest`` runs this module as a separate, resource-limited
worker process (``python -c "...worker_main()"``), so importing it must not need settings. Read
``fetching.ingest`` for why parsing happens there; this module is what the worker does:

1. Turn the bytes into the exact text the XML parser will see, settle its encoding, and refuse
   entity declarations and DTD subsets in that text (``fetching.feedtext``: the order is what
   makes the check hold against NUL-split and UTF-16 disguises).
2. Parse from a ``BytesIO`` (never a str: feedparser treats strings as URLs or file paths), with
   feedparser's HTML sanitiser off: every field is reduced to plain text here anyway, and the
   sanitiser costs 2-5x the parse itself.
3. Decide feed or not from what was parsed (version, entries), never from ``bozo``.
4. Normalise at most ``MAX_ITEMS`` distinct items: capped plain-text fields, http(s) links only,
   aware UTC dates within sane bounds, a stable ``guid_hash``.
"""

from __future__ import annotations

import calendar
import contextlib
import hashlib
import io
import json
import os
import re
import resource
import struct
import sys
from datetime import UTC, date, datetime, timedelta
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

import feedparser

from fetching.feedtext import PARSE_ERROR, UNSAFE_CHARS, FeedRefused, feed_text

MAX_BODY_BYTES = 5 * 1024 * 1024
MAX_ITEMS = 200
# Entries feedparser may parse before it is stopped: room for duplicates among the first items.
ENTRY_SCAN_MAX = 5 * MAX_ITEMS
FEED_TITLE_MAX = 500  # Feed.title's column
TITLE_MAX = 1000
LINK_MAX = 2000
GUID_MAX = 2000
AUTHOR_MAX = 500
SUMMARY_MAX = 5000
# feedparser scans author strings with a regex that is quadratic in their length (64 KB: ~15 s).
# We keep at most AUTHOR_MAX characters, so scanning more than this buys nothing.
AUTHOR_SCAN_MAX = AUTHOR_MAX
OLDEST_DATE = datetime(1990, 1, 1, tzinfo=UTC)
FUTURE_SLACK = timedelta(days=2)

NOT_A_FEED = "not_a_feed"
TOO_LARGE = "too_large"

_ISO_DATE = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})")
_HTML_START = re.compile(rb"\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*<(!doctype\s+html|html)", re.I)


def feed_read(body: bytes, content_type: str = "", *, now: datetime | None = None) -> dict:
    """Parse and normalise one feed body in this process, with no time or memory bound.

    Returns ``{"title", "link", "items": [{"guid_hash", "guid", "title", "link", "summary",
    "author", "published_at" (epoch seconds or None)}]}``; raises ``FeedRefused``. Production
    code calls this only inside the parse worker (``fetching.ingest.feed_parse``).
    """
    if len(body) > MAX_BODY_BYTES:
        raise FeedRefused(TOO_LARGE, f"body larger than {MAX_BODY_BYTES // 2**20} MiB")
    if not body.strip():
        raise FeedRefused(NOT_A_FEED, "empty body")
    text = feed_text(body, content_type)
    parsed = _feedparser_run(text)
    _require_feed(parsed, text)
    return {
        "title": html_text(parsed.feed.get("title", ""), FEED_TITLE_MAX),
        "link": http_url(parsed.feed.get("link", "")),
        "items": _items_from(parsed.entries, now or datetime.now(UTC)),
    }


def _feedparser_run(text: bytes) -> Any:
    try:
        return feedparser.parse(
            io.BytesIO(text),
            # Already UTF-8 with a matching XML declaration; the original charset was applied.
            response_headers={"content-type": "application/xml"},
            sanitize_html=False,
            resolve_relative_uris=False,
        )
    except EnoughEntries as enough:  # see feedparser_bound(): keep what was parsed so far
        parser = enough.parser
        return feedparser.FeedParserDict(
            version=parser.version, feed=parser.feeddata, entries=parser.entries
        )


def _require_feed(parsed: Any, text: bytes) -> None:
    """A feed is a document feedparser recognised as RSS/Atom/RDF, or one that yielded entries."""
    if parsed.get("version") or (parsed.entries and not _HTML_START.match(text[:4096])):
        return
    head = text[:4096]
    if _HTML_START.match(head):
        raise FeedRefused(NOT_A_FEED, "body is an HTML page, not a feed")
    if re.match(rb"\s*(<\?xml[^>]*>\s*)?[\[{]", head):
        raise FeedRefused(NOT_A_FEED, "body is JSON, not a feed")
    raise FeedRefused(NOT_A_FEED, "no RSS, Atom or RDF feed found in body")


def _items_from(entries: list[Any], now: datetime) -> list[dict]:
    """The first MAX_ITEMS distinct items in document order; a repeated guid keeps the first."""
    items: list[dict] = []
    seen: set[str] = set()
    for entry in entries:
        item = _item_from(entry, now, seen)
        if item is None:
            continue
        seen.add(item["guid_hash"])
        items.append(item)
        if len(items) == MAX_ITEMS:
            break
    return items


def _item_from(entry: Any, now: datetime, seen: set[str]) -> dict | None:
    """One normalised item, or None for an item with nothing to identify it or already seen."""
    guid = plain_line(entry.get("id", ""), GUID_MAX)
    raw_link = plain_line(entry.get("link", ""), LINK_MAX + 1)  # one over: http_url sees a cut
    title = html_text(entry.get("title", ""), TITLE_MAX)
    published = _entry_date(entry, now)
    guid_hash = item_hash(guid=guid, link=raw_link, title=title, published=published)
    if guid_hash is None or guid_hash in seen:
        return None  # checked before the summary: duplicates cost no HTML parsing
    return {
        "guid_hash": guid_hash,
        "guid": guid,
        "title": title,
        "link": http_url(raw_link),
        "summary": html_text(_entry_body(entry), SUMMARY_MAX),
        "author": html_text(entry.get("author", ""), AUTHOR_MAX),
        "published_at": calendar.timegm(published.utctimetuple()) if published else None,
    }


def item_hash(*, guid: str, link: str, title: str, published: datetime | None) -> str | None:
    """sha256 hex of the item's identity: its guid, else its link, else title and date.

    The kind prefix keeps a guid from colliding with an equal link of another item. None when the
    item has none of these (nothing stable to key it on).
    """
    if guid:
        key = "guid\n" + guid
    elif link:
        key = "link\n" + link
    elif title:
        key = "title\n" + title + "\n" + (published.isoformat() if published else "")
    else:
        return None
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


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


def text_clean(value: str, limit: int) -> str:
    """Drop NUL, other controls and lone surrogates, collapse whitespace, cut to ``limit``."""
    return " ".join(UNSAFE_CHARS.sub("", value).split())[:limit].rstrip()


def plain_line(value: Any, limit: int) -> str:
    """A text field taken as-is (no HTML meaning), cleaned and capped."""
    return text_clean(value, limit) if isinstance(value, str) else ""


def http_url(value: Any) -> str:
    """The URL when it is an absolute http(s) URL that fits the column; otherwise ""."""
    url = plain_line(value, LINK_MAX + 1)
    if len(url) > LINK_MAX or " " in url:
        return ""  # a cut or spaced URL points somewhere else
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return ""
    return url


class _TextExtractor(HTMLParser):
    """Collects the text of an HTML fragment; script, style and similar contents are dropped."""

    SKIPPED = frozenset({"script", "style", "template", "noscript", "iframe", "object", "svg"})
    BREAKS = frozenset(
        {"br", "p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6"}
        | {"blockquote", "pre", "section", "article", "header", "footer", "ul", "ol", "table"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.size = 0
        self.skip_depth = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.SKIPPED:
            self.skip_depth += 1
        elif tag in self.BREAKS:
            self.parts.append(" ")

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if tag in self.BREAKS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIPPED:
            self.skip_depth = max(0, self.skip_depth - 1)
        elif tag in self.BREAKS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.skip_depth:
            self.parts.append(data)
            self.size += len(data)


_HTML_CHUNK = 8192


def html_text(value: Any, limit: int) -> str:
    """Plain text of an HTML fragment (tags stripped, entities unescaped), cleaned and capped.

    Markup is fed in chunks and parsing stops once enough text is collected, so a huge body costs
    no more than its first few ``limit``s of characters.
    """
    if not isinstance(value, str) or not value:
        return ""
    if "<" not in value and "&" not in value:
        return text_clean(value, limit)  # the common plain case skips the HTML parser
    extractor = _TextExtractor()
    for start in range(0, len(value), _HTML_CHUNK):
        extractor.feed(value[start : start + _HTML_CHUNK])
        if extractor.size > 2 * limit:
            break  # enough text even after whitespace collapses; the rest would be cut anyway
    else:
        extractor.close()
    return text_clean("".join(extractor.parts), limit)


# --- the worker process ------------------------------------------------------------------------

FRAME = struct.Struct(">I")
_MAX_FRAME = MAX_BODY_BYTES + 4096


class EnoughEntries(Exception):
    """Raised from inside feedparser once ENTRY_SCAN_MAX entries are parsed; carries the parser."""

    def __init__(self, parser: Any) -> None:
        super().__init__("enough entries")
        self.parser = parser


def feedparser_bound() -> None:
    """Patch this process's feedparser so hostile sizes cost little (the worker calls this).

    - Author strings are cut before feedparser's email regex, which is quadratic in their length.
    - Parsing stops at the start of entry ENTRY_SCAN_MAX + 1: 20,000 items cost what 1,000 do.

    Both wrap private feedparser methods (the version is pinned). If one moves, parsing still
    works and the worker's deadline still bounds the cost, so a missing attribute is no error.
    """
    mixin = feedparser.mixin._FeedParserMixin
    sync_author = getattr(mixin, "_sync_author_detail", None)
    start_item = getattr(mixin, "_start_item", None)
    if sync_author is None or start_item is None or getattr(mixin, "_ingest_bounded", False):
        return

    def sync_author_detail(self: Any, key: str = "author") -> None:
        context = self._get_context()
        value = context.get(key)
        if isinstance(value, str) and len(value) > AUTHOR_SCAN_MAX:
            context[key] = value[:AUTHOR_SCAN_MAX]
        sync_author(self, key)

    def start_item_bounded(self: Any, attrs_d: Any) -> None:
        if len(self.entries) >= ENTRY_SCAN_MAX:
            raise EnoughEntries(self)
        start_item(self, attrs_d)

    mixin._sync_author_detail = sync_author_detail
    mixin._start_item = mixin._start_entry = start_item_bounded
    mixin._ingest_bounded = True


def _limits_apply(memory_bytes: int) -> None:
    if memory_bytes <= 0:
        return
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    except (ValueError, OSError) as error:  # some platforms refuse it; the deadline still holds
        print(f"parse worker: no memory limit ({error})", file=sys.stderr)


def _cpu_budget_arm(seconds: int) -> None:
    """Let the kernel kill this worker if one parse burns ``seconds`` more CPU.

    The parent's wall deadline is the real bound; this one also holds when the parent is gone,
    and it needs no GIL, so it stops even a regex stuck in C code.
    """
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = spent + seconds
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    with contextlib.suppress(ValueError, OSError):  # a backstop only: the deadline is the bound
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _read_exact(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _frame_read(fd: int) -> bytes | None:
    """One length-prefixed frame, or None when the parent has gone away."""
    header = _read_exact(fd, FRAME.size)
    if header is None:
        return None
    (size,) = FRAME.unpack(header)
    if size > _MAX_FRAME:
        return None
    return _read_exact(fd, size)


def frame_write(fd: int, payload: bytes) -> None:
    """Write one length-prefixed frame; loops because a pipe may take it in parts."""
    view = memoryview(FRAME.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view) :]


def request_answer(request: bytes) -> tuple[dict, bool]:
    """Answer one ``content_type + b"\\n" + body`` request; the flag says the worker must quit."""
    content_type, _, body = request.partition(b"\n")
    try:
        return {"feed": feed_read(body, content_type.decode("latin-1"))}, False
    except FeedRefused as refused:
        return {"refused": [refused.outcome, refused.message]}, False
    except MemoryError:
        # The heap may be fragmented past use; a fresh worker is cheap.
        return {"refused": [TOO_LARGE, "feed needs too much memory to parse"]}, True
    except Exception as error:  # feedparser on hostile input: one feed fails, not the worker
        return {"refused": [PARSE_ERROR, f"parser failed ({type(error).__name__})"]}, False


def worker_main(memory_bytes: int = 0, cpu_seconds: int = 30) -> None:
    """Serve parse requests on stdin/stdout until the parent closes the pipe."""
    proto_out = os.dup(1)
    os.dup2(2, 1)  # a stray print() must never corrupt the protocol stream
    _limits_apply(memory_bytes)
    feedparser_bound()
    while (request := _frame_read(0)) is not None:
        _cpu_budget_arm(cpu_seconds)
        answer, quit_after = request_answer(request)
        frame_write(proto_out, json.dumps(answer, ensure_ascii=False).encode("utf-8", "replace"))
        if quit_after:
            return
