"""When a watch runs next: hourly at a minute, daily at a time, or weekly on a day at a time, in
the owner's IANA time zone.

The slots are wall-clock times in that zone, turned into aware UTC instants with ``zoneinfo``:

- A daily or weekly time that a spring-forward change skips (02:30 on the night the clock jumps
  from 02:00 to 03:00) runs when the clock shows it would have been: 03:30, as the time with the
  offset before the change. It still runs that day, once.
- A time that a fall-back change repeats (01:30 when 02:00 goes back to 01:00) runs at its first
  occurrence only: the next slot after that is the next day's.
- Hourly slots are real hours (every 60 minutes of UTC); the minute is read in the zone, so a
  zone half an hour off UTC gets its own minute. A change of the clock by whole hours moves no
  hourly slot.

``next_slot_after`` is strictly after the instant it is given: the dispatcher asks for the next
slot after *now*, so runs missed while the service was down collapse into the one that runs.
"""

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

HOURLY, DAILY, WEEKLY = "hourly", "daily", "weekly"
SCHEDULES = (HOURLY, DAILY, WEEKLY)
ZONE_NAME_MAX_LENGTH = 64


@dataclass(frozen=True)
class Slot:
    """A schedule: ``weekday`` is ISO (1 Monday .. 7 Sunday), only for weekly schedules; hourly
    schedules read only the minute of ``at``."""

    schedule: str
    at: time
    weekday: int | None
    zone: ZoneInfo


@lru_cache(maxsize=1)
def zone_names() -> frozenset[str]:
    return frozenset(available_timezones())


def zone_of(name: object) -> ZoneInfo | None:
    """The IANA zone called ``name`` (as listed by the system's time zone database), else None.
    Only listed names are looked up: a name is never taken as a path."""
    if not isinstance(name, str) or not name or len(name) > ZONE_NAME_MAX_LENGTH:
        return None
    if name not in zone_names():
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def next_slot_after(slot: Slot, after: datetime) -> datetime:
    """The first slot of ``slot`` strictly after ``after`` (aware), as aware UTC."""
    after = after.astimezone(UTC)
    if slot.schedule == HOURLY:
        return _next_hourly(slot, after)
    local_day = after.astimezone(slot.zone).date()
    for offset in range(9):  # a weekly slot is at most 7 days on, plus a skipped day's margin
        day = local_day + timedelta(days=offset)
        if slot.schedule == WEEKLY and day.isoweekday() != slot.weekday:
            continue
        moment = _on_day(day, slot.at, slot.zone)
        if moment > after:
            return moment
    raise AssertionError(f"no {slot.schedule} slot within 9 days of {after}")  # unreachable


def _on_day(day: date, at: time, zone: ZoneInfo) -> datetime:
    """``at`` on ``day`` in ``zone`` as UTC; fold=0 takes the offset in force before a change,
    which puts a skipped time after the jump and a repeated time at its first occurrence."""
    local = datetime.combine(day, at.replace(second=0, microsecond=0, tzinfo=zone, fold=0))
    return local.astimezone(UTC)


def _next_hourly(slot: Slot, after: datetime) -> datetime:
    top = after.replace(minute=0, second=0, microsecond=0)
    for hours in range(3):
        hour = top + timedelta(hours=hours)
        offset = hour.astimezone(slot.zone).utcoffset() or timedelta(0)
        # The local minute of `hour + m` is (m + offset minutes) mod 60.
        minute = (slot.at.minute - int(offset.total_seconds() // 60)) % 60
        moment = hour + timedelta(minutes=minute)
        if moment > after:
            return moment
    raise AssertionError(f"no hourly slot within 3 hours of {after}")  # unreachable
