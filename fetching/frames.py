"""Length-prefixed frames over a pipe: how ingest and its parse worker talk, both ways.

Django-free on purpose: the parse worker (``fetching.feedparse``) imports it.
"""

from __future__ import annotations

import os
import select
import struct
import time

FRAME = struct.Struct(">I")  # the length of the payload that follows
CHUNK = 1 << 20


class FrameTimeout(Exception):
    """The other side sent nothing more before the deadline."""


def read_exact(fd: int, size: int, deadline: float | None = None) -> bytes | None:
    """Exactly ``size`` bytes, or None at end of file (the other side is gone).

    With a ``deadline`` (``time.monotonic()``), waits at most until then and raises
    ``FrameTimeout`` past it; without one, blocks as long as the other side lives."""
    poller = None
    if deadline is not None:
        poller = select.poll()  # not select(): fds above 1024 are normal in a busy server
        poller.register(fd, select.POLLIN)
    chunks: list[bytes] = []
    while size:
        if poller is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                raise FrameTimeout
        chunk = os.read(fd, min(size, CHUNK))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def frame_read(
    fd: int, *, max_size: int | None = None, deadline: float | None = None
) -> bytes | None:
    """One frame's payload, or None when the other side has gone away (or, given ``max_size``,
    announced a larger frame: a broken stream, which ends the conversation)."""
    header = read_exact(fd, FRAME.size, deadline)
    if header is None:
        return None
    (size,) = FRAME.unpack(header)
    if max_size is not None and size > max_size:
        return None
    return read_exact(fd, size, deadline)


def frame_write(fd: int, payload: bytes) -> None:
    """Write one frame; loops because a pipe may take it in parts."""
    view = memoryview(FRAME.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view) :]
