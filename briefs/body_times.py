"""The times a brief's text states, in the reader's zone.

A brief is written once, by a worker that knows no reader, so its text states times in UTC:
``2026-12-01 02:12 UTC``, or ``02:12 UTC`` for a time on the day the text last named (the "as
of" line's "newest 02:12 UTC"). A page shows the text to one reader, whose zone is active
(``briefs.middleware``): each such time is rewritten in that zone, in the language's
``DATETIME_FORMAT`` or ``TIME_FORMAT``, which name the zone (``rsshub_agent/formats``).

A time alone stays a time alone while it falls on the same local day as the last full date
before it (or the brief's "as of"); when the zone moves it across midnight it gets its date.
Anything that is not a real time (``25:61 UTC``, ``2026-02-30 10:00 UTC``) is left as written.
The stored body, its markdown export and the API keep UTC.
"""

import re
from datetime import UTC, date, datetime, time

from django.utils import formats, timezone

BODY_TIME_RE = re.compile(
    r"(?<![\w:.-])(?:(\d{4})-(\d{2})-(\d{2})[ T])?(\d{2}):(\d{2}) UTC(?![\w+-])"
)


def body_times_local(text: str, *, reference: datetime | None) -> str:
    """``text`` with each UTC time in it in the active zone. ``reference`` (aware) dates a time
    given without a date until the text names a date itself; without it such a time stays."""
    zone = timezone.get_current_timezone()
    anchor = [reference.astimezone(UTC) if reference and reference.tzinfo else None]

    def local(match: re.Match[str]) -> str:
        day = _day(match, anchor[0])
        hour, minute = int(match.group(4)), int(match.group(5))
        if day is None or hour > 23 or minute > 59:
            return match.group(0)
        moment = datetime.combine(day, time(hour, minute), tzinfo=UTC)
        shown = moment.astimezone(zone)
        if match.group(1):
            anchor[0] = moment
        elif shown.date() == anchor[0].astimezone(zone).date():
            return formats.date_format(shown, "TIME_FORMAT")
        return formats.date_format(shown, "DATETIME_FORMAT")

    return BODY_TIME_RE.sub(local, text or "")


def _day(match: re.Match[str], anchor: datetime | None) -> date | None:
    if not match.group(1):
        return anchor.date() if anchor else None
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None
