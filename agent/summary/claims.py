"""The writer contract: a model's brief keeps only sentences that its cited items back.

Every sentence or bullet of the answer must carry at least one citation ``[n]`` of a given item;
a sentence without one is removed (``uncited``, or ``invalid_citation`` when it cited only
numbers that are not items). A sentence that states a date or time none of its cited items
carries (in its published time, in the run's zone or UTC, or in its own text) is removed
(``date``). Dates are read as the writer writes them: ISO (``2025-03-03``), English
(``March 3``, ``3 March 2025``), Chinese (``3月3日``, ``2025年3月3日``), a year after "in"/"since"
or before 年, clock times (``14:05``), and relative days (``yesterday``, ``昨天``) resolved
against the run's time. Headings are removed (the framing is the brief's own), and so are
links, images, bare URLs and HTML (``markup``): a claim is text and citations.

``claims_check`` never raises; it reports what it kept and what it dropped, by reason.
"""

from __future__ import annotations

import re
import zoneinfo
from collections import Counter
from dataclasses import dataclass, field
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
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"  # noqa: E501
ISO_DATE = re.compile(r"\b((?:19|20)\d{2})[-/.](\d{1,2})[-/.](\d{1,2})\b")
EN_MONTH_DAY = re.compile(
    rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+((?:19|20)\d{{2}})\b)?", re.I
)
EN_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+((?:19|20)\d{{2}})\b)?", re.I
)
ZH_DATE = re.compile(r"(?:((?:19|20)\d{2})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
YEAR = re.compile(
    r"(?:\b(?:in|since|by|until|during|from)\s+((?:19|20)\d{2})\b|((?:19|20)\d{2})\s*年(?!\s*\d{1,2}\s*月))",
    re.I,
)
CLOCK = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
RELATIVE_DAYS = {
    "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "昨天": -1, "昨日": -1,
    "前天": -2, "今天": 0, "今日": 0, "明天": 1,
}  # fmt: skip
RELATIVE = re.compile(
    r"\b(yesterday|today|tonight|tomorrow)\b|(昨天|昨日|前天|今天|今日|明天)", re.I
)

HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
BULLET = re.compile(r"^(\s*(?:[-*+]|\d{1,3}[.)])\s+|\s*>\s*)")
IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)")
URL = re.compile(r"<?\b(?:https?|ftp|mailto|javascript|data):[^\s<>()]*>?", re.I)
HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>|<!--.*?-->", re.S)
# A sentence ends at . ! ? (then space) or at a CJK full stop, exclamation or question mark,
# unless the dot closes an abbreviation.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[\u3002\uff01\uff1f])")
ABBREVIATION = re.compile(
    r"(?:\b[A-Z]\.|\b(?:Mr|Mrs|Ms|Dr|St|vs|etc|Inc|Ltd|Co|Jr|Sr|No|Fig|e\.g|i\.e|approx))\.?$"
)
LEADING_CITATIONS = re.compile(r"^((?:\[\d{1,4}\]\s*)+[.,;\u3002]?)\s*(.*)$", re.DOTALL)

REASON_UNCITED = "uncited"
REASON_INVALID_CITATION = "invalid_citation"
REASON_DATE = "date"
REASON_HEADING = "heading"
REASON_MARKUP = "markup"


@dataclass
class ClaimsReport:
    """What ``claims_check`` kept of a model's brief, and what it dropped and why."""

    body: str
    cited: set[int]
    produced: int  # sentences and bullets the writer wrote
    kept: int
    dropped: Counter = field(default_factory=Counter)  # reason -> sentences (markup: pieces)
    invalid_numbers: list[int] = field(default_factory=list)

    def as_payload(self) -> dict:
        return {"produced": self.produced, "kept": self.kept, **dict(sorted(self.dropped.items()))}


@dataclass(frozen=True)
class _Day:
    year: int | None
    month: int
    day: int

    def matches(self, other: date) -> bool:
        same_day = (self.month, self.day) == (other.month, other.day)
        return same_day and self.year in (None, other.year)


def claims_check(body: str, items: list[SourceItem], *, now: datetime) -> ClaimsReport:
    """Keep the sentences of ``body`` that cite a given item and state no date it lacks."""
    by_n = {item.n: item for item in items}
    report = ClaimsReport(body="", cited=set(), produced=0, kept=0)
    lines = []
    for line in body.replace("\r\n", "\n").split("\n"):
        lines.append(_line(line, by_n, now, report))
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    report.body = text
    report.invalid_numbers = sorted(set(report.invalid_numbers))
    return report


def _line(line: str, by_n: dict[int, SourceItem], now: datetime, report: ClaimsReport) -> str:
    if not line.strip():
        return ""
    if HEADING.match(line):
        report.produced += 1
        report.dropped[REASON_HEADING] += 1
        return ""
    prefix_match = BULLET.match(line)
    prefix = prefix_match.group(1) if prefix_match else ""
    text = _unmarked(line[len(prefix) :], report)
    kept = [k for s in sentences_split(text) if (k := _kept(s, by_n, now, report))]
    return f"{prefix}{' '.join(kept)}" if kept else ""


def _unmarked(text: str, report: ClaimsReport) -> str:
    """The text with images, links (to their text), URLs and HTML removed, each counted."""
    for pattern, replacement in ((IMAGE, ""), (LINK, r"\1"), (HTML_TAG, ""), (URL, "")):
        text, count = pattern.subn(replacement, text)
        report.dropped[REASON_MARKUP] += count
    if not report.dropped[REASON_MARKUP]:
        del report.dropped[REASON_MARKUP]
    return " ".join(text.split())


def sentences_split(text: str) -> list[str]:
    """Sentences of one line; a citation written after the full stop joins its sentence."""
    pieces: list[str] = []
    for piece in SENTENCE_END.split(text):
        piece = piece.strip()
        leading = LEADING_CITATIONS.match(piece) if pieces else None
        if leading:  # "fell. [1] Then..." : the [1] belongs to "fell."
            pieces[-1] = f"{pieces[-1]} {leading.group(1).strip()}"
            piece = leading.group(2).strip()
        if not piece:
            continue
        if pieces and ABBREVIATION.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return pieces


def _kept(sentence: str, by_n: dict[int, SourceItem], now: datetime, report) -> str:
    """The sentence without citations of numbers that are not items, or "" when dropped."""
    report.produced += 1
    numbers = [int(n) for n in CITATION_RE.findall(sentence)]
    cited = [by_n[n] for n in numbers if n in by_n]
    invalid = [n for n in numbers if n not in by_n]
    report.invalid_numbers.extend(invalid)
    if not cited:
        report.dropped[REASON_INVALID_CITATION if invalid else REASON_UNCITED] += 1
        return ""
    if not dates_backed(sentence, cited, now=now):
        report.dropped[REASON_DATE] += 1
        return ""
    report.kept += 1
    report.cited.update(item.n for item in cited)
    if not invalid:
        return sentence
    return CITATION_RE.sub(lambda m: m.group(0) if int(m.group(1)) in by_n else "", sentence)


# --- dates ----------------------------------------------------------------------------------


def dates_backed(sentence: str, cited: list[SourceItem], *, now: datetime) -> bool:
    """Whether every date and time the sentence states is carried by one of ``cited``."""
    text = CITATION_RE.sub(" ", sentence)
    zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    days, years, clocks = _stated(text, now.astimezone(zone).date())
    if not (days or years or clocks):
        return True
    carried_days, carried_clocks = _carried(cited, zone)
    text_days = _text_days(cited)
    carried_years = {d.year for d in carried_days} | {d.year for d in text_days if d.year}
    carried_years |= {int(y) for item in cited for y in re.findall(r"(?:19|20)\d{2}", _text(item))}
    for day in days:
        if not any(day.matches(d) for d in carried_days) and not any(
            _same(day, t) for t in text_days
        ):
            return False
    return years <= carried_years and clocks <= carried_clocks | _text_clocks(cited)


def _stated(text: str, today: date) -> tuple[list[_Day], set[int], set[tuple[int, int]]]:
    days = _days_in(text)
    for match in RELATIVE.finditer(text):
        word = (match.group(1) or match.group(2)).lower()
        moment = today + timedelta(days=RELATIVE_DAYS[word])
        days.append(_Day(moment.year, moment.month, moment.day))
    years = {int(m.group(1) or m.group(2)) for m in YEAR.finditer(text)}
    clocks = {(int(h), int(m)) for h, m in CLOCK.findall(text)}
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


def _text_days(cited: list[SourceItem]) -> list[_Day]:
    return [d for item in cited for d in _days_in(_text(item))]


def _text_clocks(cited: list[SourceItem]) -> set[tuple[int, int]]:
    found = (CLOCK.findall(_text(item)) for item in cited)
    return {(int(h), int(m)) for pairs in found for h, m in pairs}


def _same(stated: _Day, written: _Day) -> bool:
    same_day = (stated.month, stated.day) == (written.month, written.day)
    return same_day and (stated.year is None or written.year in (None, stated.year))
