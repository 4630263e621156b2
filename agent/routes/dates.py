"""A date the question names, written as a date parameter takes it ("福建日报2025年10月1号那期" is
``20251001`` for a ``:date`` documented as `YYYYMMDD`)."""

import re
from datetime import date

from agent.routes.slots import Slot

# The format a description gives a date in, or its example shows
FORMAT_RE = re.compile(r"(?i)yyyy([-/.]?)mm\1dd")
EXAMPLE_RE = re.compile(r"(?:19|20)\d\d([-/.]?)(?:0[1-9]|1[0-2])\1(?:0[1-9]|[12]\d|3[01])")
MONTHS = str.split("jan feb mar apr may jun jul aug sep oct nov dec")
_MONTH = r"(?P<name>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_YEAR = r"(?P<y>(?:19|20)\d\d)"
_DAY = r"(?P<d>\d{1,2})"
# The dates a question may say: 2025年10月1日 (or 号), 2025-10-01, 2025/10/1, October 1, 2025,
# 1 October 2025
SAID_RES = (
    re.compile(rf"{_YEAR}\s*[年\-/.]\s*(?P<m>\d{{1,2}})\s*[月\-/.]\s*{_DAY}\s*[日号號]?"),
    re.compile(rf"(?i)\b{_MONTH}\s+{_DAY}(?:st|nd|rd|th)?,?\s+{_YEAR}\b"),
    re.compile(rf"(?i)\b{_DAY}(?:st|nd|rd|th)?\s+{_MONTH},?\s+{_YEAR}\b"),
)


def date_fill(slots: list[Slot], text: str, values: dict, sources: dict) -> None:
    """Fill the first date parameter left open with the date said, in its format."""
    said = date_said(text)
    if said is None:
        return
    for slot in slots:
        if slot.name in values:
            continue
        separator = _separator(slot)
        if separator is not None:
            values[slot.name] = said.strftime(f"%Y{separator}%m{separator}%d")
            sources[slot.name] = "option"
            return


def date_said(text: str) -> date | None:
    for pattern in SAID_RES:
        if match := pattern.search(text):
            found = match.groupdict()
            month = (
                int(found["m"]) if found.get("m") else MONTHS.index(found["name"][:3].lower()) + 1
            )
            try:
                return date(int(found["y"]), month, int(found["d"]))
            except ValueError:
                return None
    return None


def _separator(slot: Slot) -> str | None:
    """The separator of the date format the parameter takes ("" for `YYYYMMDD`), or None
    when it takes no date."""
    if found := FORMAT_RE.search(slot.description):
        return found.group(1)
    if slot.example and (found := EXAMPLE_RE.fullmatch(slot.example)):
        return found.group(1)
    return None
