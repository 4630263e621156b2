"""Next-run times: hourly, daily and weekly slots in the owner's zone, across zones and across
daylight-saving changes (2026: New York springs forward on 8 March and falls back on
1 November; Berlin springs forward on 29 March)."""

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from watches.schedules import DAILY, HOURLY, WEEKLY, Slot, next_slot_after, zone_names, zone_of

NEW_YORK, BERLIN = ZoneInfo("America/New_York"), ZoneInfo("Europe/Berlin")
SHANGHAI, KOLKATA = ZoneInfo("Asia/Shanghai"), ZoneInfo("Asia/Kolkata")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def slots(slot: Slot, after: datetime, count: int) -> list[datetime]:
    found = []
    for _ in range(count):
        after = next_slot_after(slot, after)
        found.append(after)
    return found


def test_a_daily_slot_keeps_its_local_time_across_spring_forward():
    slot = Slot(DAILY, time(8, 0), None, NEW_YORK)
    assert slots(slot, utc(2026, 3, 6, 14), 3) == [
        utc(2026, 3, 7, 13),  # 08:00 EST (UTC-5)
        utc(2026, 3, 8, 12),  # 08:00 EDT (UTC-4): the same local time, an hour earlier in UTC
        utc(2026, 3, 9, 12),
    ]


def test_a_daily_slot_keeps_its_local_time_across_fall_back():
    slot = Slot(DAILY, time(8, 0), None, NEW_YORK)
    assert slots(slot, utc(2026, 10, 31, 0), 2) == [utc(2026, 10, 31, 12), utc(2026, 11, 1, 13)]


def test_a_time_the_clock_skips_runs_once_that_day_after_the_jump():
    slot = Slot(DAILY, time(2, 30), None, NEW_YORK)
    first, second = slots(slot, utc(2026, 3, 8, 0), 2)
    assert first == utc(2026, 3, 8, 7, 30)  # 03:30 EDT: 02:30 at the offset before the change
    assert first.astimezone(NEW_YORK).hour == 3
    assert second == utc(2026, 3, 9, 6, 30)  # 02:30 EDT the next day


def test_a_time_the_clock_repeats_runs_once_at_its_first_occurrence():
    slot = Slot(DAILY, time(1, 30), None, NEW_YORK)
    first, second = slots(slot, utc(2026, 11, 1, 0), 2)
    assert first == utc(2026, 11, 1, 5, 30)  # 01:30 EDT
    assert second == utc(2026, 11, 2, 6, 30)  # not 01:30 EST an hour later: the next day's


def test_the_same_local_time_is_a_different_instant_in_each_zone():
    after = utc(2026, 6, 1, 0)
    at = time(9, 0)
    assert next_slot_after(Slot(DAILY, at, None, SHANGHAI), after) == utc(2026, 6, 1, 1)
    assert next_slot_after(Slot(DAILY, at, None, BERLIN), after) == utc(2026, 6, 1, 7)
    assert next_slot_after(Slot(DAILY, at, None, NEW_YORK), after) == utc(2026, 6, 1, 13)


def test_a_daily_slot_is_on_the_local_day_not_the_utc_day():
    # 23:30 UTC on 1 June is 07:30 on 2 June in Shanghai: today's 08:00 there is still ahead.
    slot = Slot(DAILY, time(8, 0), None, SHANGHAI)
    assert next_slot_after(slot, utc(2026, 6, 1, 23, 30)) == utc(2026, 6, 2, 0)


def test_a_weekly_slot_falls_on_its_local_weekday():
    slot = Slot(WEEKLY, time(9, 0), 1, SHANGHAI)  # Mondays 09:00
    # Sunday 7 June 2026, 23:00 UTC is Monday 07:00 in Shanghai.
    assert next_slot_after(slot, utc(2026, 6, 7, 23)) == utc(2026, 6, 8, 1)
    assert next_slot_after(slot, utc(2026, 6, 8, 1)) == utc(2026, 6, 15, 1)


def test_a_weekly_slot_across_a_change_keeps_its_local_time():
    slot = Slot(WEEKLY, time(10, 0), 7, BERLIN)  # Sundays 10:00
    assert slots(slot, utc(2026, 3, 20, 0), 2) == [utc(2026, 3, 22, 9), utc(2026, 3, 29, 8)]


def test_hourly_slots_are_real_hours_across_a_change():
    slot = Slot(HOURLY, time(0, 0), None, NEW_YORK)
    found = slots(slot, utc(2026, 3, 8, 5, 30), 4)
    assert found == [utc(2026, 3, 8, h) for h in (6, 7, 8, 9)]
    assert [m.astimezone(NEW_YORK).hour for m in found] == [1, 3, 4, 5]  # 02:00 never existed


def test_hourly_slots_take_their_minute_in_a_half_hour_zone():
    slot = Slot(HOURLY, time(0, 15), None, KOLKATA)  # UTC+05:30: :15 local is :45 UTC
    assert next_slot_after(slot, utc(2026, 6, 1, 10, 0)) == utc(2026, 6, 1, 10, 45)
    assert next_slot_after(slot, utc(2026, 6, 1, 10, 45)) == utc(2026, 6, 1, 11, 45)


def test_the_next_slot_is_strictly_after_the_instant_given():
    slot = Slot(DAILY, time(8, 0), None, ZoneInfo("UTC"))
    assert next_slot_after(slot, utc(2026, 6, 1, 8)) == utc(2026, 6, 2, 8)


def test_after_days_away_the_next_slot_is_the_next_one_from_now():
    slot = Slot(HOURLY, time(0, 0), None, ZoneInfo("UTC"))
    assert next_slot_after(slot, utc(2026, 6, 5, 10, 20)) == utc(2026, 6, 5, 11)


@pytest.mark.parametrize(
    "name", ["", "Mars/Olympus", "../../etc/passwd", "/etc/localtime", "utc ", "x" * 65, 42, None]
)
def test_a_name_that_is_not_a_listed_zone_is_refused(name):
    assert zone_of(name) is None


def test_listed_zones_are_found():
    assert zone_of("Asia/Shanghai") == SHANGHAI
    assert zone_of("UTC") is not None


ZONES = sorted(zone_names())
SCHEDULE = st.sampled_from([HOURLY, DAILY, WEEKLY])
MOMENT = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 12, 31))


@settings(max_examples=300, deadline=None)
@given(
    schedule=SCHEDULE,
    zone=st.sampled_from(ZONES),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
    weekday=st.integers(1, 7),
    after=MOMENT,
)
def test_every_next_slot_is_after_within_its_period_and_at_its_local_time(
    schedule, zone, hour, minute, weekday, after
):
    tz = ZoneInfo(zone)
    slot = Slot(schedule, time(hour, minute), weekday if schedule == WEEKLY else None, tz)
    after = after.replace(tzinfo=UTC)
    moment = next_slot_after(slot, after)
    assert moment.tzinfo == UTC
    assert moment > after
    period = {HOURLY: timedelta(hours=1), DAILY: timedelta(days=1), WEEKLY: timedelta(days=7)}
    # A day with a change of the clock is up to a few hours longer (and some zones skipped
    # whole days when they crossed the date line).
    assert moment - after <= period[schedule] + timedelta(days=2 if schedule != HOURLY else 0)
    local = moment.astimezone(tz)
    if schedule == HOURLY:
        top = moment.replace(minute=0)
        offset_moved = tz.utcoffset(top.replace(tzinfo=None)) != local.utcoffset()
        assert local.minute == minute or offset_moved
        assert moment - timedelta(hours=1) <= after  # no slot was skipped
        return
    # The slot is the local time on its day; a time the clock skipped that day is the same
    # wall time read at the offset before the change (so it may show on the clock later).
    on_day = {
        day: datetime.combine(day, time(hour, minute), tzinfo=tz).astimezone(UTC)
        for day in (local.date(), local.date() - timedelta(days=1))
    }
    days = [day for day, instant in on_day.items() if instant == moment]
    assert days, f"{moment} is not {hour:02}:{minute:02} of a local day in {zone}"
    step = timedelta(days=7 if schedule == WEEKLY else 1)
    if schedule == WEEKLY:
        assert days[0].isoweekday() == weekday
    earlier = datetime.combine(days[0] - step, time(hour, minute), tzinfo=tz).astimezone(UTC)
    assert earlier <= after  # it is the next slot, not a later one
