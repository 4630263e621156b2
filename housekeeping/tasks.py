"""The daily housekeeping task (a django-q Schedule, ``housekeeping/migrations/0002``). Thin."""

import logging

from housekeeping.lock import HousekeepingBusy
from housekeeping.services import housekeep_run, housekeep_time_limit

log = logging.getLogger(__name__)


def housekeep() -> dict[str, int] | str:
    """Run housekeeping within the task's time limit; what it removed, for django-q's log."""
    try:
        report = housekeep_run(max_seconds=housekeep_time_limit())
    except HousekeepingBusy:
        log.info("housekeeping: another run holds the lock; nothing to do")
        return "busy"
    return report.removed
