"""One housekeeping run at a time, across every process and machine sharing the database.

PostgreSQL: a session advisory lock, taken without waiting. It is released when the run ends, and
by the server when the holder's connection goes (a killed worker), so nothing is left to expire.

SQLite has no advisory locks: a run claims a ``HousekeepingLease`` row by compare-and-set
(``held_until`` in the past -> now + lease), and renews the lease between steps. A run that died
holds the row until its lease runs out; the lease outlasts django-q's task timeout, after which no
worker still runs the task.

A second run that finds the lock taken does nothing and says so: the first one is doing the work.
"""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from housekeeping.models import HousekeepingLease

# pg_try_advisory_lock takes a 64-bit key; this one is "housekeep" in ASCII, to spot in pg_locks.
ADVISORY_KEY = int.from_bytes(b"housekeep"[-8:], "big")
LEASE_NAME = "housekeeping"


class HousekeepingBusy(Exception):
    """Another housekeeping run holds the lock."""


class Lease:
    """What a run holds; ``renew`` keeps a claimed row from expiring under a long run."""

    def renew(self) -> None:
        """Extend the hold (a no-op for the advisory lock, which lasts as long as the session)."""


def lease_duration() -> timedelta:
    return timedelta(seconds=settings.Q_CLUSTER["timeout"] + 60)


@contextmanager
def housekeeping_lock() -> Iterator[Lease]:
    """Hold the housekeeping lock for the block, or raise ``HousekeepingBusy`` at once."""
    lock = advisory_lock if connection.vendor == "postgresql" else claimed_row_lock
    with lock() as lease:
        yield lease


@contextmanager
def advisory_lock() -> Iterator[Lease]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [ADVISORY_KEY])
        if not cursor.fetchone()[0]:
            raise HousekeepingBusy
    try:
        yield Lease()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [ADVISORY_KEY])


class _ClaimedRow(Lease):
    def __init__(self, holder: str) -> None:
        self.holder = holder

    def renew(self) -> None:
        HousekeepingLease.objects.filter(name=LEASE_NAME, holder=self.holder).update(
            held_until=timezone.now() + lease_duration()
        )


@contextmanager
def claimed_row_lock() -> Iterator[Lease]:
    # The row exists once; concurrent first runs both reach the compare-and-set below.
    HousekeepingLease.objects.get_or_create(name=LEASE_NAME)
    holder = str(uuid.uuid4())
    now = timezone.now()
    claimed = (
        HousekeepingLease.objects.filter(name=LEASE_NAME)
        .exclude(held_until__gt=now)
        .update(holder=holder, held_until=now + lease_duration())
    )
    if not claimed:
        raise HousekeepingBusy
    try:
        yield _ClaimedRow(holder)
    finally:
        HousekeepingLease.objects.filter(name=LEASE_NAME, holder=holder).update(held_until=None)
