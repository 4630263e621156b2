"""The pipe protocol between ingest and its parse worker: whole frames, or a clear end."""

import contextlib
import os
import time

import pytest

from fetching.frames import FRAME, FrameTimeout, frame_read, frame_write, read_exact


@pytest.fixture
def pipe():
    read_fd, write_fd = os.pipe()
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        with contextlib.suppress(OSError):  # closed by the test
            os.close(fd)


def test_a_frame_arrives_whole(pipe):
    read_fd, write_fd = pipe
    frame_write(write_fd, b"payload")
    assert frame_read(read_fd, deadline=time.monotonic() + 5) == b"payload"


def test_the_end_of_the_pipe_is_none_not_a_short_read(pipe):
    read_fd, write_fd = pipe
    os.write(write_fd, FRAME.pack(10) + b"short")
    os.close(write_fd)
    assert frame_read(read_fd) is None


def test_a_silent_writer_is_a_timeout_at_the_deadline(pipe):
    read_fd, _ = pipe
    with pytest.raises(FrameTimeout):
        read_exact(read_fd, 4, deadline=time.monotonic() + 0.05)


def test_a_frame_past_the_size_limit_ends_the_conversation(pipe):
    read_fd, write_fd = pipe
    frame_write(write_fd, b"x" * 100)
    assert frame_read(read_fd, max_size=99) is None
