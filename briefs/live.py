"""The live step log of a brief for websocket watchers: one reader per process and brief.

The ``RunStep`` rows are the truth; a doorbell (``briefs.doorbell``) only says a brief has new
steps. Every watcher of a brief in this process shares one ``BriefFeed``, which reads the log
and hands the new rows to each watcher's queue. One shared reader matters: a read is a database
round trip, so a hundred sockets each reading on every step would cost a hundred reads per step
and miss the latency targets.

When the feed reads: when its doorbell rings, and every ``SAFETY_SECONDS`` in case one was lost
(every ``QUEUED_SECONDS`` while the brief is queued: its queue position moves with no step of
its own). The doorbell, by ``doorbell.transport()``:

- ``layer`` (Redis): the feed joins the brief's group and rings on each ``step.new``;
- ``notify`` (PostgreSQL): one ``LISTEN`` connection per process rings the feed of the brief a
  notification names;
- ``poll`` (SQLite): one task per process reads the watched briefs' step counters and states in
  one query every ``poll_seconds()`` and rings the feeds that are behind.

Each read also refreshes the brief's state (status, queue position), published when it changes.
A feed stops when its last watcher leaves; the process's doorbell, when its last feed does.

Reads run on one thread of their own that keeps its database connection (rather than through
``database_sync_to_async``, which opens and closes one per call with ``CONN_MAX_AGE`` 0): a
connection costs ~5 ms, more than the read. A failed read closes it; the next one reconnects.
"""

import asyncio
import contextlib
import logging
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from briefs import doorbell
from briefs.doorbell import poll_seconds  # noqa: F401 (the benches read the interval here)
from briefs.models import Brief, BriefStatus, RunStep
from briefs.selectors import LiveState, brief_live_read

SAFETY_SECONDS = 2.0
QUEUED_SECONDS = 0.5
FINISHED_SECONDS = 2.0  # a finished brief only has its closing step left to show
log = logging.getLogger(__name__)


_reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="brief-live-reader")


def reader_call(fn, /, *args, **kwargs):
    """Awaitable ``fn(*args, **kwargs)`` on the reader thread, closing its connection when it
    fails."""

    def call():
        try:
            return fn(*args, **kwargs)
        except Exception:
            connection.close()  # maybe broken: the next read opens a fresh one
            raise

    return sync_to_async(call, thread_sensitive=False, executor=_reader)()


def reader_close() -> None:
    """Close the reader thread's database connection (tests, shutdown)."""
    _reader.submit(lambda: connection.close()).result()


@dataclass(frozen=True)
class StepsArrived:
    steps: list[RunStep]  # consecutive seqs, ascending


@dataclass(frozen=True)
class StateChanged:
    state: LiveState | None  # None: the brief is gone


class BriefFeed:
    """Reads one brief's log for every watcher in this process. Create through ``feed_join``."""

    def __init__(self, brief_id: int, *, after: int, registry: dict[int, "BriefFeed"]):
        self.brief_id = brief_id
        self.last_seq = after  # every step up to here has been handed out (or was before us)
        self.state: LiveState | None = None
        self._state_read = False  # None is a state too (the brief is gone)
        self.watchers: set[asyncio.Queue] = set()
        self.layer = get_channel_layer()
        self.pushes = doorbell.layer_pushes(self.layer)
        self._rung = asyncio.Event()
        self._next_tick = asyncio.get_running_loop().time()
        self._registry = registry
        self._task = asyncio.ensure_future(self._run())

    def ring(self) -> None:
        """New steps (or a new state) may be committed: read soon."""
        self._rung.set()

    def behind(self, step_seq: int | None, status: str | None) -> bool:
        """Whether the brief's counter and status (None: gone) say there is more to read."""
        if step_seq is None or self.state is None:
            return True
        return step_seq > self.last_seq or status != self.state.status

    def leave(self, queue: asyncio.Queue) -> None:
        self.watchers.discard(queue)
        if not self.watchers:
            self._registry.pop(self.brief_id, None)
            self._task.cancel()
            if not self._registry:
                _bell_stop()

    def _publish(self, event: StepsArrived | StateChanged) -> None:
        for queue in self.watchers:
            queue.put_nowait(event)

    async def _run(self) -> None:
        group, channel, listener = Brief.group_name_of(self.brief_id), None, None
        try:
            if self.pushes:
                channel = await self.layer.new_channel()
                await self.layer.group_add(group, channel)
                listener = asyncio.ensure_future(self._listen(channel))
            while True:
                await self._read()
                await self._wait()
        finally:
            if listener is not None:
                listener.cancel()
            if channel is not None:
                with contextlib.suppress(Exception):
                    await self.layer.group_discard(group, channel)

    async def _listen(self, channel: str) -> None:
        while True:
            try:
                await self.layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis gone for a moment: the safety reads cover the gap
                log.warning("brief.%s: doorbell receive failed", self.brief_id, exc_info=True)
                await asyncio.sleep(SAFETY_SECONDS)
                continue
            self._rung.set()

    async def _wait(self) -> None:
        """Until the doorbell rings or the next tick. Ticks keep a fixed rate (the read time is
        not added to the interval)."""
        interval = SAFETY_SECONDS
        if self.state is not None and self.state.status == BriefStatus.QUEUED:
            interval = QUEUED_SECONDS
        elif self.state is not None and self.state.finished:
            interval = max(interval, FINISHED_SECONDS)
        now = asyncio.get_running_loop().time()
        if self._next_tick <= now:  # this tick is spent: the next one, or now + interval if late
            self._next_tick += interval
            if self._next_tick <= now:
                self._next_tick = now + interval
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._rung.wait(), self._next_tick - now)
        self._rung.clear()

    async def _read(self) -> None:
        try:
            state, steps = await reader_call(
                brief_live_read, brief_id=self.brief_id, after=self.last_seq
            )
        except Exception:  # a database hiccup: try again at the next tick
            log.warning("brief.%s: reading the step log failed", self.brief_id, exc_info=True)
            return
        if steps:
            self.last_seq = steps[-1].seq
            self._publish(StepsArrived(steps))
        if state != self.state or not self._state_read:
            self.state, self._state_read = state, True
            self._publish(StateChanged(state))


_feeds: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, BriefFeed]]" = (
    weakref.WeakKeyDictionary()
)
# The doorbell of each event loop's feeds (notify or poll; a layer rings each feed itself).
_bells: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task]" = (
    weakref.WeakKeyDictionary()
)


def _bell_start(registry: dict[int, BriefFeed]) -> None:
    loop = asyncio.get_running_loop()
    bell = _bells.get(loop)
    if bell is not None and not bell.done():
        return
    kind = doorbell.transport()
    if kind == "notify":

        def ring(brief_id: int) -> None:
            feed = registry.get(brief_id)
            if feed is not None:
                feed.ring()

        def ring_all() -> None:
            for feed in list(registry.values()):
                feed.ring()

        _bells[loop] = asyncio.ensure_future(doorbell.notify_listen(ring, ring_all))
    elif kind == "poll":
        _bells[loop] = asyncio.ensure_future(_counters_poll(registry))


def _bell_stop() -> None:
    bell = _bells.pop(asyncio.get_running_loop(), None)
    if bell is not None:
        bell.cancel()


async def _counters_poll(registry: dict[int, BriefFeed]) -> None:
    """The ``poll`` doorbell: one read of every watched brief's counter per interval; the feeds
    that are behind ring."""
    while True:
        await asyncio.sleep(doorbell.poll_seconds())
        feeds = dict(registry)
        if not feeds:
            continue
        try:
            counters = await reader_call(doorbell.counters_read, list(feeds))
        except Exception:  # a database hiccup: the next tick tries again
            log.warning("reading the watched briefs' counters failed", exc_info=True)
            continue
        for brief_id, feed in feeds.items():
            if feed.behind(*counters.get(brief_id, (None, None))):
                feed.ring()


def feed_join(brief_id: int, *, after: int) -> tuple[BriefFeed, asyncio.Queue, int]:
    """Watch ``brief_id``: the feed, the queue its events arrive on, and the seq up to which the
    feed handed steps out before this watcher joined. A watcher that has sent steps up to
    ``after`` reads ``(after, passed]`` from the log itself when ``passed`` is larger.

    Synchronous on purpose: joining and reading ``passed`` happen with no await in between."""
    registry = _feeds.setdefault(asyncio.get_running_loop(), {})
    feed = registry.get(brief_id)
    if feed is None:
        feed = registry[brief_id] = BriefFeed(brief_id, after=after, registry=registry)
        if not feed.pushes:
            _bell_start(registry)
    queue: asyncio.Queue = asyncio.Queue()
    feed.watchers.add(queue)
    return feed, queue, feed.last_seq
