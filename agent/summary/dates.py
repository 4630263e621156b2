"""Dates and times a sentence states, and whether the items it cites carry them.

Dates are read as a writer writes them: ISO (``2025-03-03``), English (``March 3``,
``3 March 2025``), Chinese (``3月3日``, ``2025年3月3日``), a year after "in"/"since" or before 年,
clock times (``14:05``), and relative days (``yesterday``, ``昨天``) resolved against the run's
time. A cited item carries a date in its published time (in the run's zone or UTC) or in its
own text; a weekday when it is the weekday of such a day or its text names it; a year only in
its text when its text names one (an item of 2026 saying "opens at the end of 2027" does not back
"2026"). The patterns are also what ``agent.summary.figures`` blanks out before it reads numbers,
so a date is never mistaken for a figure.
"""

from __future__ import annotations

import re
import zoneinfo
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django.conf import settings

from agent.summary.draft import CITATION_RE, SourceItem

MONTHS = {
    m: n
    for n, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")],
        start=1,
    )
    for m in names
}  # fmt: skip
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?![a-z])\.?"  # noqa: E501
ISO_DATE = re.compile(r"\b((?:19|20)\d{2})[-/.](\d{1,2})[-/.](\d{1,2})\b")
EN_MONTH_DAY = re.compile(
    rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+((?:19|20)\d{{2}})\b)?", re.I
)
EN_DAY_MONTH = re.compile(
    rf"(?<![\d.])\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+((?:19|20)\d{{2}})\b)?",
    re.I,
)
ZH_DATE = re.compile(r"(?:((?:19|20)\d{2})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
YEAR = re.compile(
    r"(?:\b(?:in|since|by|until|during|from)\s+((?:19|20)\d{2})\b|((?:19|20)\d{2})\s*年(?!\s*\d{1,2}\s*月))",
    re.I,
)
CLOCK = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
ZH_CLOCK = re.compile(r"(?<!\d)([01]?\d|2[0-3])\s*[时點点]\s*([0-5]?\d)\s*分")
_DATE_PATTERNS = (
    ISO_DATE, EN_MONTH_DAY, EN_DAY_MONTH, ZH_DATE, YEAR, CLOCK, ZH_CLOCK,
    re.compile(rf"\b{_MONTH}|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I),
    re.compile(r"\d\s*[月日号]|周[一二三四五六日天]"),
)  # fmt: skip
WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6, "一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6,
}  # fmt: skip
EN_WEEKDAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)
ZH_WEEKDAY = re.compile(r"(?:星期|周|礼拜)([一二三四五六日天])")
RELATIVE_DAYS = {
    "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "昨天": -1, "昨日": -1,
    "前天": -2, "今天": 0, "今日": 0, "明天": 1,
}  # fmt: skip
RELATIVE = re.compile(
    r"\b(yesterday|today|tonight|tomorrow)\b|(昨天|昨日|前天|今天|今日|明天)", re.I
)


@dataclass(frozen=True)
class _Day:
    year: int | None
    month: int
    day: int

    def matches(self, other: date) -> bool:
        same_day = (self.month, self.day) == (other.month, other.day)
        return same_day and self.year in (None, other.year)


def dates_backed(sentence: str, cited: list[SourceItem], *, now: datetime) -> bool:
    """Whether every date and time the sentence states is carried by one of ``cited``."""
    text = CITATION_RE.sub(" ", sentence)
    zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    days, years, clocks = _stated(text, now.astimezone(zone).date())
    weekdays = _weekdays_in(text)
    if not (days or years or clocks or weekdays):
        return True
    carried_days, carried_clocks = _carried(cited, zone)
    if not weekdays <= _weekdays_carried(cited, carried_days):
        return False
    text_days = _text_days(cited)
    carried_years = set().union(*(_years_carried(item, zone) for item in cited))
    for day in days:
        if not any(day.matches(d) for d in carried_days) and not any(
            _same(day, t) for t in text_days
        ):
            return False
    return years <= carried_years and clocks <= carried_clocks | _text_clocks(cited)


def states_date(text: str) -> bool:
    """Whether a text states a date, a year, a month, a weekday or a clock time."""
    return any(p.search(text) for p in _DATE_PATTERNS)


def _stated(text: str, today: date) -> tuple[list[_Day], set[int], set[tuple[int, int]]]:
    days = _days_in(text)
    for match in RELATIVE.finditer(text):
        word = (match.group(1) or match.group(2)).lower()
        moment = today + timedelta(days=RELATIVE_DAYS[word])
        days.append(_Day(moment.year, moment.month, moment.day))
    years = {int(m.group(1) or m.group(2)) for m in YEAR.finditer(text)}
    clocks = _clocks_in(text)
    return days, years, clocks


def _days_in(text: str) -> list[_Day]:
    days = []
    for year, month, day in ISO_DATE.findall(text) + ZH_DATE.findall(text):
        days.append(_day(year, month, day))
    for month, day, year in EN_MONTH_DAY.findall(text):
        days.append(_day(year, MONTHS[month.lower().rstrip(".")], day))
    for day, month, year in EN_DAY_MONTH.findall(text):
        days.append(_day(year, MONTHS[month.lower().rstrip(".")], day))
    return [d for d in days if 1 <= d.month <= 12 and 1 <= d.day <= 31]


def _day(year: str, month: str | int, day: str) -> _Day:
    return _Day(int(year) if year else None, int(month), int(day))


def _carried(cited: list[SourceItem], zone) -> tuple[list[date], set[tuple[int, int]]]:
    """The days and clock times of the cited items' published times, local and UTC."""
    days, clocks = [], set()
    for item in cited:
        if item.published_at is None:
            continue
        for moment in (item.published_at.astimezone(zone), item.published_at.astimezone(UTC)):
            days.append(moment.date())
            clocks.add((moment.hour, moment.minute))
    return days, clocks


def _text(item: SourceItem) -> str:
    return f"{item.title} {item.summary}"


def _weekdays_in(text: str) -> set[int]:
    """The weekdays a text names (Monday = 0)."""
    return {WEEKDAYS[m.lower()] for m in EN_WEEKDAY.findall(text) + ZH_WEEKDAY.findall(text)}


def _weekdays_carried(cited: list[SourceItem], carried_days: list[date]) -> set[int]:
    """The weekdays of the items' published days, of the dates their texts give (a date without
    a year in its item's published year), and those their texts name."""
    found = {d.weekday() for d in carried_days}
    for item in cited:
        found |= _weekdays_in(_text(item))
        for day in _days_in(_text(item)):
            year = day.year or (item.published_at.year if item.published_at else None)
            try:
                found |= {date(year, day.month, day.day).weekday()} if year else set()
            except ValueError:  # 31 February
                continue
    return found


def _years_carried(item: SourceItem, zone) -> set[int]:
    """The years an item names; its published year only when its text names none (an item
    saying "opens by the end of 2027" does not back "2026" for being published in 2026)."""
    named = {int(y) for y in re.findall(r"(?<!\d)(?:19|20)\d{2}(?!\d)", _text(item))}
    if named or item.published_at is None:
        return named
    return {item.published_at.astimezone(zone).year, item.published_at.astimezone(UTC).year}


def _text_days(cited: list[SourceItem]) -> list[_Day]:
    return [d for item in cited for d in _days_in(_text(item))]


def _text_clocks(cited: list[SourceItem]) -> set[tuple[int, int]]:
    return set().union(*(_clocks_in(_text(item)) for item in cited))


def _clocks_in(text: str) -> set[tuple[int, int]]:
    """Clock times written ``14:05`` or ``14时05分``."""
    pairs = CLOCK.findall(text) + ZH_CLOCK.findall(text)
    return {(int(h), int(m)) for h, m in pairs}


def _same(stated: _Day, written: _Day) -> bool:
    same_day = (stated.month, stated.day) == (written.month, written.day)
    return same_day and (stated.year is None or written.year in (None, stated.year))
