"""The live step log of a brief for websocket watchers: one reader per process and brief.

The ``RunStep`` rows are the truth; a channel-layer message is only a doorbell (``step.new``).
Every watcher of a brief in this process shares one ``BriefFeed``, which reads the log and hands
the new rows to each watcher's queue. One shared reader matters: a read is a database round trip
(and a new connection, ``CONN_MAX_AGE`` being 0), so a hundred sockets each reading on every
step would cost a hundred connections per step and miss the latency targets.

When the feed reads:

- Push: with a channel layer that crosses processes (Redis), the feed joins the brief's group and
  reads when the doorbell rings, and every ``SAFETY_SECONDS`` in case one was lost.
- Poll: the in-memory layer cannot hear the worker, which is another process, so the feed reads
  every ``poll_seconds()`` (``settings.DASHBOARD_POLL_SECONDS``, default ``POLL_SECONDS``).

Each read also refreshes the brief's state (status, queue position), published when it changes.
A feed stops when its last watcher leaves.

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
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import connection

from briefs.models import Brief, RunStep
from briefs.selectors import LiveState, brief_live_read

POLL_SECONDS = 0.5
SAFETY_SECONDS = 2.0
FINISHED_SECONDS = 2.0  # a finished brief only has its closing step left to show
log = logging.getLogger(__name__)


_reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="brief-live-reader")


def _log_read(brief_id: int, after: int) -> tuple[LiveState | None, list[RunStep]]:
    try:
        return brief_live_read(brief_id=brief_id, after=after)
    except Exception:
        connection.close()  # maybe broken: the next read opens a fresh one
        raise


def reader_close() -> None:
    """Close the reader thread's database connection (tests, shutdown)."""
    _reader.submit(lambda: connection.close()).result()


def poll_seconds() -> float:
    return float(getattr(settings, "DASHBOARD_POLL_SECONDS", POLL_SECONDS))


def layer_pushes(layer: object) -> bool:
    """True when ``layer`` carries the worker's doorbells here: any layer but the in-memory one."""
    return layer is not None and not isinstance(layer, InMemoryChannelLayer)


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
        self.pushes = layer_pushes(self.layer)
        self._rung = asyncio.Event()
        self._next_tick = asyncio.get_running_loop().time()
        self._registry = registry
        self._task = asyncio.ensure_future(self._run())

    def leave(self, queue: asyncio.Queue) -> None:
        self.watchers.discard(queue)
        if not self.watchers:
            self._registry.pop(self.brief_id, None)
            self._task.cancel()

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
        not added to the interval), so a step waits at most one interval for a poll."""
        interval = SAFETY_SECONDS if self.pushes else poll_seconds()
        if self.state is not None and self.state.finished:
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
            state, steps = await sync_to_async(_log_read, thread_sensitive=False, executor=_reader)(
                self.brief_id, self.last_seq
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


def feed_join(brief_id: int, *, after: int) -> tuple[BriefFeed, asyncio.Queue, int]:
    """Watch ``brief_id``: the feed, the queue its events arrive on, and the seq up to which the
    feed handed steps out before this watcher joined. A watcher that has sent steps up to
    ``after`` reads ``(after, passed]`` from the log itself when ``passed`` is larger.

    Synchronous on purpose: joining and reading ``passed`` happen with no await in between."""
    registry = _feeds.setdefault(asyncio.get_running_loop(), {})
    feed = registry.get(brief_id)
    if feed is None:
        feed = registry[brief_id] = BriefFeed(brief_id, after=after, registry=registry)
    queue: asyncio.Queue = asyncio.Queue()
    feed.watchers.add(queue)
    return feed, queue, feed.last_seq
