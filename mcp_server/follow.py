"""Follow a brief's run while a tool waits for it: each step, in order, handed to the caller.

The ``RunStep`` rows are the truth. They are read through the live-step feed the dashboard's
sockets use (``briefs.live``): one reader per brief and process, woken by the worker's doorbell
when Redis carries it, polling every ``DASHBOARD_POLL_SECONDS`` when not. Every step is handed
out exactly once and in ``seq`` order; a gap (steps the feed handed out before this watcher
joined) is filled from the log itself.

A run ends with one of ``briefs.steps.FINISH_KINDS``, written just after the brief's final
status: when the status says finished before that step is readable, the log is read again for
a moment (``FINAL_STEP_GRACE``) rather than waiting for the feed's slower reads of a finished
brief.
"""

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
from channels.db import database_sync_to_async

from briefs import live
from briefs.models import Brief, RunStep
from briefs.selectors import brief_steps
from briefs.steps import FINISH_KINDS

FINAL_STEP_GRACE = 1.0
FINAL_STEP_EVERY = 0.05

StepHandler = Callable[[RunStep], Awaitable[None]]
T = TypeVar("T")


def in_thread(function: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """``function`` run in a worker thread with fresh database connections, as consumers do
    (not the one thread ``thread_sensitive`` calls share: a slow call must not hold the rest)."""
    return database_sync_to_async(function, thread_sensitive=False)


class _Follower:
    def __init__(self, brief_id: int, on_step: StepHandler):
        self.brief_id = brief_id
        self.on_step = on_step
        self.sent = 0
        self.ended = False

    async def hand_out(self, steps: list[RunStep]) -> None:
        for step in steps:
            if step.seq <= self.sent:
                continue
            if step.seq > self.sent + 1:  # a gap: the log is the truth, read it
                await self.from_log()
                continue
            self.sent = step.seq
            self.ended = self.ended or step.kind in FINISH_KINDS
            await self.on_step(step)

    async def from_log(self) -> None:
        steps = await in_thread(brief_steps)(brief_id=self.brief_id, after=self.sent)
        await self.hand_out(steps)

    async def last_step(self) -> None:
        """The status says finished: the step that records it follows within moments."""
        with anyio.move_on_after(FINAL_STEP_GRACE):
            await self.from_log()
            while not self.ended:
                await anyio.sleep(FINAL_STEP_EVERY)
                await self.from_log()


async def brief_follow(brief_id: int, *, seconds: float, on_step: StepHandler) -> None:
    """Hand each step of ``brief_id`` to ``on_step`` until its run ends or ``seconds`` pass.

    ``Brief.DoesNotExist`` when the brief is deleted meanwhile. Cancelling the caller (a client
    that went away) stops the following, never the run."""
    follower = _Follower(brief_id, on_step)
    feed, queue, passed = live.feed_join(brief_id, after=0)
    try:
        with anyio.move_on_after(seconds):
            if passed > 0:
                await follower.from_log()
            while not follower.ended:
                event = await queue.get()
                if isinstance(event, live.StepsArrived):
                    await follower.hand_out(event.steps)
                elif event.state is None:
                    raise Brief.DoesNotExist("the brief was deleted")
                elif event.state.finished:
                    await follower.last_step()
                    return
    finally:
        feed.leave(queue)
