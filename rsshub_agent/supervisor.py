"""What `manage.py serve` becomes once everything runs: a process that watches RSSHub, Daphne and
the worker, and stops them all when one exits or when it is told to stop.

Why a module of its own, run by ``exec``. Setting up (migrations, the catalog import, the first
staff account) needs Django and its apps; watching does not. A supervisor that kept the setup's
interpreter held ~170 MB for the service's whole life, doing nothing but ``waitpid``. So `serve`
sets up, starts the children, and replaces its own image with this file (``os.execv``): the pid,
the children and the terminal stay; Django's memory goes. This module imports the standard library
only, and never the project's packages (a test holds it to that).

Hand-over. The children were started by `serve` with ``start_new_session``, so each leads its own
process group: Ctrl-C reaches this process once, and it stops each child deliberately. They are
still this process's children after the ``exec``, so ``waitpid`` sees them exit. `serve` blocks
SIGTERM and SIGINT before the ``exec`` (a blocked signal stays pending across it) and this module
unblocks them once its handlers are in place: a stop that arrives during the hand-over is not lost
and does not kill the supervisor without its children.

    python -P rsshub_agent/supervisor.py NAME=PID [NAME=PID ...]

(``-P``: the script's folder stays off ``sys.path``, so no project module shadows the standard
library's.)
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

POLL_SECONDS = 0.5
STOP_SECONDS = 10.0
HANDED_SIGNALS = {signal.SIGTERM, signal.SIGINT}


class ChildExited(Exception):
    def __init__(self, name: str, code: int) -> None:
        super().__init__(f"{name} exited with status {code}")


def _exit_code(pid: int) -> int | None:
    """The child's exit code (negative: killed by that signal), or None while it runs."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return 0  # reaped already: it is not running
    return os.waitstatus_to_exitcode(status) if done else None


def children_watch(children: dict[str, int], *, poll: float = POLL_SECONDS) -> None:
    """Return never; raise ``ChildExited`` naming the first child that exits."""
    while True:
        for name, pid in children.items():
            code = _exit_code(pid)
            if code is not None:
                del children[name]
                raise ChildExited(name, code)
        time.sleep(poll)


def children_stop(children: dict[str, int], *, seconds: float = STOP_SECONDS) -> None:
    """SIGTERM each child's process group, then SIGKILL what is left after ``seconds``."""
    for pid in children.values():
        _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + seconds
    for pid in children.values():
        while _exit_code(pid) is None:
            if time.monotonic() > deadline:
                _signal_group(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.05)


def _signal_group(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # gone between the check and the signal
        os.killpg(pid, signum)


def _stop_signal(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def children_parse(arguments: list[str]) -> dict[str, int]:
    children = {}
    for argument in arguments:
        name, _, pid = argument.rpartition("=")
        if not name or not pid.isdigit():
            raise SystemExit(f"supervisor: expected NAME=PID, got {argument!r}")
        children[name] = int(pid)
    return children


def main(arguments: list[str]) -> int:
    children = children_parse(arguments)
    for signum in HANDED_SIGNALS:
        signal.signal(signum, _stop_signal)
    code = 0
    try:
        # A stop that came during the hand-over is delivered here, by the unblocking itself.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HANDED_SIGNALS)
        children_watch(children)
    except ChildExited as exc:
        print(exc, file=sys.stderr, flush=True)
        code = 1
    except KeyboardInterrupt:
        print("\nstopping", flush=True)
    finally:
        # A second Ctrl-C must not leave children behind halfway through stopping them.
        for signum in HANDED_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        children_stop(children)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
