"""Feed bytes -> ``ParsedFeed``, in bounded worker processes: the caller's half of parsing (the
worker's half is ``fetching.feedparse``; storing is ``fetching.ingest``). Feeds are hostile input.

Why parsing runs in a persistent worker process
-----------------------------------------------
feedparser is pure Python plus C regexes and expat. A regex stuck in C cannot be interrupted from
Python (no signal handler or watchdog thread runs while it holds the GIL), and feedparser has at
least one quadratic path on ordinary-looking input: a 64 KB ``<author>`` costs ~15 s in its email
regex. Pre-truncating fields in the raw XML cannot cover every path (CDATA, namespaces, the loose
parser), so the bound has to be a process boundary:

- ``feed_parse`` sends the bytes to a long-lived worker (``python -c ...worker_main()``, a clean
  interpreter that imports only feedparser and ``fetching.feedparse``; no Django, no secrets in
  its environment) and waits at most ``timeout`` (default 5 s). Past the deadline the worker is
  killed and replaced, and the feed is ``parse_timeout``.
- The worker runs under ``RLIMIT_AS`` (``PARSE_MEMORY_BYTES``) and re-arms ``RLIMIT_CPU`` before
  each parse, so the kernel ends it even if this process dies mid-parse.
- Spawning per feed would cost ~150 ms (interpreter + feedparser import), more than parsing a
  200-item feed; a persistent worker costs one pipe round trip. Up to ``PARSE_WORKERS`` run per
  process; a forked child (Django-Q) starts its own instead of sharing its parent's pipes.

Inside the worker (``fetching.feedparse``) the encoding is settled and entity declarations are
refused in the exact text the parser will see (``fetching.feedtext``), the known quadratic author
path is cut short, parsing stops after ``5 * MAX_ITEMS`` entries, and feedparser's HTML sanitiser
is off (every field is reduced to plain text there anyway). That makes the bounded path about as
fast as a plain ``feedparser.parse`` call: measured on 200-item feeds, parse plus store takes
0.4-1.4x of ``feedparser.parse`` alone (``bench/fetch.py``). The worker's first start costs ~100 ms;
``feed_parser_warm()`` lets a caller pay it while its HTTP request is in flight.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fetching import feedparse
from fetching.frames import FrameTimeout, frame_read, frame_write
from fetching.models import Outcome

PARSE_TIMEOUT_SECONDS = 5.0
PARSE_MEMORY_BYTES = 512 * 1024 * 1024
PARSE_WORKERS = 2
MAX_BODY_BYTES = feedparse.MAX_BODY_BYTES
MAX_ITEMS = feedparse.MAX_ITEMS
# A worker is replaced after this many parses, so slow leaks or heap fragmentation stay bounded.
WORKER_MAX_USES = 500

_ROOT = Path(__file__).resolve().parent.parent
_WORKER_ENV_KEYS = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONPATH", "PYTHONHOME", "TMPDIR")


class FeedRejected(Exception):
    """The body is not something to store. ``message`` is short and safe to show to users."""

    def __init__(self, outcome: Outcome, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.message = message


@dataclass(frozen=True)
class ParsedItem:
    """One normalised item: plain text, capped fields, http(s) link or "", aware UTC or None."""

    guid_hash: str
    guid: str
    title: str
    link: str
    summary: str
    author: str
    published_at: datetime | None
    title_derived: bool = False  # the title is the first words of the text: the item had none


@dataclass(frozen=True)
class ParsedFeed:
    title: str
    link: str
    items: list[ParsedItem]
    ttl: str = ""  # the feed's own <ttl> (minutes), as written; fetching.flight reads it


def feed_parse(
    body: bytes,
    *,
    content_type: str = "",
    url: str = "",
    timeout: float = PARSE_TIMEOUT_SECONDS,
) -> ParsedFeed:
    """Parse an RSS, Atom or RDF body into at most ``MAX_ITEMS`` normalised items.

    ``content_type`` is the response header (its charset decides the decoding); ``url`` is where
    the body was fetched from, the last base for relative links (``fetching.feeditems``). A valid
    feed with no items returns ``items=[]``; deciding that this is ``empty`` is the caller's
    business. Raises ``FeedRejected`` with ``NOT_A_FEED`` (HTML, JSON, text, empty body),
    ``PARSE_ERROR`` (entity declarations, an encoding that cannot be settled, parser failure),
    ``PARSE_TIMEOUT`` (past ``timeout`` seconds) or ``TOO_LARGE`` (over ``MAX_BODY_BYTES``, or over
    the parser's memory limit). Blocks for up to ``timeout``: call it from a thread, not an event
    loop.
    """
    if len(body) > MAX_BODY_BYTES:
        raise FeedRejected(Outcome.TOO_LARGE, f"body larger than {MAX_BODY_BYTES // 2**20} MiB")
    if not body.strip():
        raise FeedRejected(Outcome.NOT_A_FEED, "empty body")
    header = _header_line(content_type, 200, "latin-1") + b"\n" + _header_line(url, 2100, "utf-8")
    answer = _pool_parse(header + b"\n" + body, timeout)
    if "refused" in answer:
        outcome, message = answer["refused"]
        raise FeedRejected(Outcome(outcome), message)
    return _parsed_feed(answer["feed"])


def _header_line(value: str, limit: int, encoding: str) -> bytes:
    return value.replace("\r", " ").replace("\n", " ")[:limit].encode(encoding, "replace")


def _parsed_feed(data: dict) -> ParsedFeed:
    items = [
        ParsedItem(
            guid_hash=item["guid_hash"],
            guid=item["guid"],
            title=item["title"],
            title_derived=item["title_derived"],
            link=item["link"],
            summary=item["summary"],
            author=item["author"],
            published_at=(
                datetime.fromtimestamp(item["published_at"], tz=UTC)
                if item["published_at"] is not None
                else None
            ),
        )
        for item in data["items"]
    ]
    return ParsedFeed(title=data["title"], link=data["link"], items=items, ttl=data.get("ttl", ""))


# --- the parse worker pool ---------------------------------------------------------------------


class _WorkerTimeout(Exception):
    pass


class _WorkerGone(Exception):
    pass


class _ParseWorker:
    """One worker process and its pipes; used by one caller at a time."""

    def __init__(self) -> None:
        boot = (
            f"import sys; sys.path.insert(0, {str(_ROOT)!r}); "
            "from fetching.feedparse import worker_main; "
            f"worker_main(memory_bytes={PARSE_MEMORY_BYTES}, "
            f"cpu_seconds={int(PARSE_TIMEOUT_SECONDS * 3) + 1})"
        )
        env = {key: os.environ[key] for key in _WORKER_ENV_KEYS if key in os.environ}
        # Our own interpreter running fixed code; the environment carries no secrets across.
        self.proc = subprocess.Popen(
            [sys.executable, "-c", boot],
            cwd=_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        self.uses = 0

    @property
    def pid(self) -> int:
        return self.proc.pid

    def request(self, payload: bytes, timeout: float) -> dict:
        """Send one request; raise ``_WorkerTimeout`` past the deadline, ``_WorkerGone`` on EOF."""
        deadline = time.monotonic() + timeout
        self.uses += 1
        try:
            frame_write(self.proc.stdin.fileno(), payload)
        except OSError as error:  # BrokenPipeError: it died since its last use
            raise _WorkerGone from error
        try:
            answer = frame_read(self.proc.stdout.fileno(), deadline=deadline)
        except FrameTimeout:
            raise _WorkerTimeout from None
        if answer is None:
            raise _WorkerGone
        return json.loads(answer)

    def stop(self) -> None:
        """Ask an idle worker to exit (EOF on its stdin); kill it if it does not."""
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.kill()
        self.proc.stdout.close()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            pipe.close()


class _Pool:
    """This process's workers; ``slots`` bounds how many are in use at once."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.lock = threading.Lock()
        self.slots = threading.BoundedSemaphore(PARSE_WORKERS)
        self.idle: list[_ParseWorker] = []
        self.live: set[_ParseWorker] = set()

    def checkout(self) -> _ParseWorker:
        with self.lock:
            worker = self.idle.pop() if self.idle else None
        if worker is not None and worker.proc.poll() is None:
            return worker
        if worker is not None:
            self.discard(worker)  # died while idle (OOM killer, an operator)
        worker = _ParseWorker()
        with self.lock:
            self.live.add(worker)
        return worker

    def checkin(self, worker: _ParseWorker) -> None:
        if worker.uses >= WORKER_MAX_USES:
            self.discard(worker, gently=True)
            return
        with self.lock:
            self.idle.append(worker)

    def discard(self, worker: _ParseWorker, *, gently: bool = False) -> None:
        with self.lock:
            self.live.discard(worker)
        if gently:
            worker.stop()
        else:
            worker.kill()

    def forget(self) -> None:
        """In a forked child: drop the parent's workers without touching their processes."""
        for worker in self.live:
            for pipe in (worker.proc.stdin, worker.proc.stdout):
                pipe.close()  # only this child's copies: the parent's workers still see it live
        self._reset()

    def stop_all(self) -> None:
        with self.lock:
            idle, self.idle = self.idle, []
        for worker in idle:
            self.discard(worker, gently=True)


_pool = _Pool()
os.register_at_fork(after_in_child=_pool.forget)
atexit.register(_pool.stop_all)


def _pool_parse(payload: bytes, timeout: float) -> dict:
    # Waiting for a free worker is bounded too: a queue behind hostile feeds must not hang a fetch.
    if not _pool.slots.acquire(timeout=timeout * 2):
        raise FeedRejected(Outcome.PARSE_TIMEOUT, "all feed parsers are busy")
    try:
        return _worker_exchange(payload, timeout)
    finally:
        _pool.slots.release()


def _worker_exchange(payload: bytes, timeout: float) -> dict:
    worker = _pool.checkout()
    try:
        answer = worker.request(payload, timeout)
    except _WorkerTimeout:
        _pool.discard(worker)
        raise FeedRejected(Outcome.PARSE_TIMEOUT, f"parsing took over {timeout:g} s") from None
    except _WorkerGone:
        # Died mid-parse: a crash in the parser, or the kernel's CPU or memory limit.
        _pool.discard(worker)
        raise FeedRejected(Outcome.PARSE_ERROR, "feed parser crashed") from None
    _pool.checkin(worker)
    return answer


def feed_parser_warm() -> None:
    """Start one idle parse worker now, so the first fetch does not pay for its start-up."""
    if not _pool.slots.acquire(blocking=False):
        return
    try:
        with _pool.lock:
            if _pool.idle:
                return
        worker = _ParseWorker()
        with _pool.lock:
            _pool.live.add(worker)
        _pool.checkin(worker)
    finally:
        _pool.slots.release()


def feed_parser_pids() -> list[int]:
    """Process ids of this process's idle parse workers (for health checks and tests)."""
    with _pool.lock:
        return [worker.pid for worker in _pool.idle]
