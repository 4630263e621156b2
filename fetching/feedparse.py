"""Feed bytes -> one bounded, plain-text, JSON-able feed: the half of ingest that runs in the
parse worker.

Django-free on purpose: ``fetching.parsing`` runs this module as a separate, resource-limited
worker process (``python -c "...worker_main()"``), so importing it must not need settings. Read
``fetching.parsing`` for why parsing happens there; this module is what the worker does:

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

import contextlib
import io
import json
import os
import re
import resource
import sys
from datetime import UTC, datetime
from typing import Any

import feedparser

from fetching.feeditems import AUTHOR_MAX, MAX_ITEMS, feed_fields
from fetching.feedtext import PARSE_ERROR, FeedRefused, feed_text
from fetching.frames import frame_read, frame_write

MAX_BODY_BYTES = 5 * 1024 * 1024
# Entries feedparser may parse before it is stopped: room for duplicates among the first items.
ENTRY_SCAN_MAX = 5 * MAX_ITEMS
# feedparser scans author strings with a regex that is quadratic in their length (64 KB: ~15 s).
# We keep at most AUTHOR_MAX characters, so scanning more than this buys nothing.
AUTHOR_SCAN_MAX = AUTHOR_MAX

NOT_A_FEED = "not_a_feed"
TOO_LARGE = "too_large"

_HTML_START = re.compile(rb"\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*<(!doctype\s+html|html)", re.I)


def feed_read(
    body: bytes, content_type: str = "", *, url: str = "", now: datetime | None = None
) -> dict:
    """Parse and normalise one feed body in this process, with no time or memory bound.

    ``url`` is where the body was fetched from (the last base for relative links). Returns
    ``{"title", "link", "ttl", "items": [{"guid_hash", "guid", "title", "title_derived", "link",
    "summary", "author", "published_at" (epoch seconds or None)}]}`` (``fetching.feeditems``);
    raises ``FeedRefused``. Production
    code calls this only inside the parse worker (``fetching.parsing.feed_parse``).
    """
    if len(body) > MAX_BODY_BYTES:
        raise FeedRefused(TOO_LARGE, f"body larger than {MAX_BODY_BYTES // 2**20} MiB")
    if not body.strip():
        raise FeedRefused(NOT_A_FEED, "empty body")
    try:
        text = feed_text(body, content_type)
    except FeedRefused:
        if _HTML_START.match(body[:4096]):  # a page in a legacy charset: still no feed
            raise FeedRefused(NOT_A_FEED, "body is an HTML page, not a feed") from None
        raise
    parsed = _feedparser_run(text)
    _require_feed(parsed, text)
    return feed_fields(parsed, url=url, now=now or datetime.now(UTC))


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


# --- the worker process ------------------------------------------------------------------------

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


def request_answer(request: bytes) -> tuple[dict, bool]:
    """Answer one ``content_type \\n url \\n body`` request; the flag says the worker must quit."""
    content_type, _, rest = request.partition(b"\n")
    url, _, body = rest.partition(b"\n")
    try:
        feed = feed_read(body, content_type.decode("latin-1"), url=url.decode("utf-8", "replace"))
        return {"feed": feed}, False
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
    while (request := frame_read(0, max_size=_MAX_FRAME)) is not None:
        _cpu_budget_arm(cpu_seconds)
        answer, quit_after = request_answer(request)
        frame_write(proto_out, json.dumps(answer, ensure_ascii=False).encode("utf-8", "replace"))
        if quit_after:
            return
