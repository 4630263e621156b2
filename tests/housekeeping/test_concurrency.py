"""Two housekeeping runs at once, on PostgreSQL with a connection per thread: each row goes once.

Runs are kept apart by the lock; the batches do not rely on it either: each counts what its own
statement removed, so two passes over the same rows still add up to the rows there were.
"""

import io
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, connections

from briefs.models import Brief, RunStep
from fetching.models import FetchAttempt
from housekeeping.batches import Pass
from housekeeping.lock import HousekeepingBusy, advisory_lock, claimed_row_lock
from housekeeping.models import HousekeepingRun
from housekeeping.prune_briefs import steps_prune
from housekeeping.services import housekeep_run
from tests.housekeeping.rows import attempt_at, brief_finished

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.fail("these tests need PostgreSQL (DATABASE_URL)", pytrace=False)


def in_threads(count: int, work: Callable[[], object]) -> list[object]:
    """Run ``work`` in ``count`` threads released together; each result, or the exception."""
    barrier = threading.Barrier(count)
    results: list[object] = [None] * count

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = work()
        except Exception as exc:  # the test reads it
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a run never ended"
    return results


def test_two_runs_at_once_remove_each_row_once(owner, settings):
    settings.HOUSEKEEP_BATCH_SIZE = 100
    for _ in range(300):
        attempt_at(days=40)
    for _ in range(20):
        brief_finished(owner, days=20, steps=6)
    results = in_threads(2, housekeep_run)
    reports = [r for r in results if not isinstance(r, HousekeepingBusy)]
    assert all(not isinstance(r, Exception) or isinstance(r, HousekeepingBusy) for r in results)
    assert sum(r.removed["fetching_fetchattempt"] for r in reports) == 300
    assert sum(r.removed["briefs_runstep"] for r in reports) == 120
    assert not FetchAttempt.objects.exists() and not RunStep.objects.exists()


def test_two_passes_over_the_same_steps_count_each_row_once(owner):
    for _ in range(40):
        brief_finished(owner, days=20, steps=5)

    def one_pass() -> int:
        from django.utils import timezone

        run = Pass(now=timezone.now(), batch_size=25, cited_reader=frozenset)
        return sum(steps_prune(run))

    results = in_threads(2, one_pass)
    assert all(isinstance(r, int) for r in results), results
    assert sum(results) == 200
    summaries = Brief.objects.values_list("steps_summary", flat=True)
    assert all(s["steps"] == 5 for s in summaries), "a summary was written after its steps went"


@contextmanager
def held_elsewhere(lock: Callable) -> Iterator[None]:
    """``lock`` held by another thread (its own connection) for the block."""
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        try:
            with lock():
                held.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(timeout=30), "the holder never got the lock"
        yield
    finally:
        release.set()
        thread.join(timeout=30)


@pytest.mark.parametrize("lock", [advisory_lock, claimed_row_lock])
def test_the_lock_is_refused_while_another_connection_holds_it(lock):
    with held_elsewhere(lock), pytest.raises(HousekeepingBusy), lock():
        pass
    with lock():
        pass  # released by its holder: the next run gets it


def test_the_command_does_nothing_while_another_run_holds_the_lock():
    attempt_at(days=40)
    with held_elsewhere(advisory_lock), pytest.raises(CommandError, match="Another housekeeping"):
        call_command("housekeep", stdout=io.StringIO())
    assert FetchAttempt.objects.count() == 1
    assert not HousekeepingRun.objects.exists()
