"""Waiting for something another thread or process does: a poll with a deadline that fails
saying what never happened. Never a bare sleep that hopes the thing is done by then."""

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
# A bound, not a margin: what is waited for usually happens in well under a second, but on a
# loaded 2-core machine a chain of process starts can take tens of seconds; only a test that
# fails pays the whole bound.
SECONDS = 60.0
EVERY = 0.02


def _timed_out(what: str, seconds: float, detail: Callable[[], str] | None) -> AssertionError:
    tail = f"\n{detail()}" if detail is not None else ""
    return AssertionError(f"gave up after {seconds} s waiting for {what}{tail}")


def wait_until(
    condition: Callable[[], T],
    *,
    what: str,
    seconds: float = SECONDS,
    every: float = EVERY,
    detail: Callable[[], str] | None = None,
) -> T:
    """``condition()``'s first true value; fails naming ``what`` (and ``detail()``) past the
    deadline."""
    deadline = time.monotonic() + seconds
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise _timed_out(what, seconds, detail)
        time.sleep(every)
    return result


async def eventually(
    condition: Callable[[], T], *, what: str, seconds: float = SECONDS, every: float = EVERY
) -> T:
    """``wait_until`` for a coroutine: the event loop runs while it waits."""
    deadline = time.monotonic() + seconds
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise _timed_out(what, seconds, None)
        await asyncio.sleep(every)
    return result
