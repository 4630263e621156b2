"""The process `manage.py serve` becomes once the service runs (rsshub_agent/supervisor.py): it
adopts the children `serve` started, holds no Django, and stops them all together."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Starts two children in sessions of their own, as `serve` does, prints their pids, then hands
# over exactly as `serve` does: signals blocked, exec into the supervisor with NAME=PID pairs.
HAND_OVER = textwrap.dedent(
    """
    import os, signal, subprocess, sys
    from rsshub_agent import supervisor
    children = [
        subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
        for code in sys.argv[1:]
    ]
    print(" ".join(str(c.pid) for c in children), flush=True)
    signal.pthread_sigmask(signal.SIG_BLOCK, supervisor.HANDED_SIGNALS)
    handed = [f"child{n}={c.pid}" for n, c in enumerate(children)]
    os.execv(sys.executable, [sys.executable, "-P", supervisor.__file__, *handed])
    """
)
SLEEPER = "import time; time.sleep(600)"
QUITTER = "import sys, time; time.sleep(0.2); sys.exit(3)"


def hand_over(*children: str) -> tuple[subprocess.Popen, list[int]]:
    process = subprocess.Popen(
        [sys.executable, "-c", HAND_OVER, *children],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids = [int(pid) for pid in process.stdout.readline().split()]
    assert supervising(process.pid), "the hand-over did not exec the supervisor"
    return process, pids


def supervising(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if b"supervisor.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return True
        time.sleep(0.02)
    return False


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_supervisor_imports_no_django_and_nothing_of_the_project():
    probe = (
        "import sys; import rsshub_agent.supervisor as s; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('django', 'numpy', 'catalog', 'fetching', 'briefs', 'agent', 'mcp')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]", f"the supervisor pulls in: {result.stdout}"


def test_it_stops_every_child_on_sigterm():
    process, pids = hand_over(SLEEPER, SLEEPER)
    try:
        os.kill(process.pid, signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        assert not any(alive(pid) for pid in pids), "a child outlived the supervisor"
    finally:
        for pid in pids:
            if alive(pid):
                os.killpg(pid, signal.SIGKILL)


def test_a_child_that_exits_stops_the_others_and_is_named():
    process, pids = hand_over(SLEEPER, QUITTER)
    try:
        assert process.wait(timeout=30) == 1, "a dead child must end the supervisor with 1"
        assert "child1 exited with status 3" in process.stderr.read()
        assert not alive(pids[0]), "the other child was left running"
    finally:
        for pid in pids:
            if alive(pid):
                os.killpg(pid, signal.SIGKILL)


def test_a_sigterm_during_the_hand_over_is_kept_not_lost():
    # The signal arrives while it is blocked (before the supervisor's handlers exist): it must
    # still stop the children once the supervisor runs.
    script = HAND_OVER.replace("handed = [", "os.kill(os.getpid(), signal.SIGTERM)\nhanded = [")
    process = subprocess.Popen(
        [sys.executable, "-c", script, SLEEPER],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids = [int(pid) for pid in process.stdout.readline().split()]
    try:
        assert process.wait(timeout=30) == 0
        assert not alive(pids[0]), "the child outlived a stop sent during the hand-over"
    finally:
        if alive(pids[0]):
            os.killpg(pids[0], signal.SIGKILL)
