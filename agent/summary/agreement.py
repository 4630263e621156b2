"""Where the sources of one story agree and where they differ.

A folded story (``agent.summary.folding``) told by two or more *outlets* (an item's ``source``;
one outlet's two feeds are one source, never a second opinion) is checked fact by fact. Each
outlet's items state:

- **figures** (``facts.quantities``): compared within one *kind*: their unit (``$2 billion`` and
  ``20亿美元`` are one kind), or for a bare count the thing counted ("3,000 jobs", "3000人";
  people, staff, workers and 人/名 are one kind). A hedge widens a figure: "over 3,000" and
  "3,000多" are 3,000 to 1.5 times it, "nearly" 0.85 to 1 times, "about"/"约" ±10%, "up to"
  anything below; a figure written with a scale word is what rounds to it; every figure has
  ``SLACK`` of room for rounding ("3.2 billion" and "3,210,000,000" are one figure);
- **days**: a date (``2026-12-01``, "December 1", "12月1日"), a weekday ("Tuesday", "周二";
  compatible with any date that falls on it), a relative day ("yesterday", resolved against
  the item's own time);
- **actors** in a role: who led a round (led by X, 由X领投), who buys (X acquires Y, acquired by
  X, X收购), who won (X won, won by X, X夺冠). Two names are one actor when one holds the other
  ("Lightspeed" in "Lightspeed Venture Partners").

A kind stated by two outlets *differs* when each states a value of it the other does not (so
one outlet giving an extra figure of the same kind is not a contradiction); otherwise the
values they share are *agreed*. What is not read (a quotation, an unnamed role) is never a
difference: the check flags what it can show.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from agent.summary.dates import EN_DAY_MONTH, EN_MONTH_DAY, ISO_DATE, MONTHS, ZH_DATE
from agent.summary.draft import SourceItem
from agent.summary.facts import STOP_WORDS, fold, stem
from agent.summary.figures import NUMBER_WORDS, Quantity, quantities

TEXT_CHARS = 2000  # of an item's text: as much as the support check reads
SLACK = Decimal("0.01")  # relative room every figure has for rounding
ROUNDING = Decimal("0.9")  # share of a written figure's rounding tolerance taken as compatible
KIND_NUMBER, KIND_DATE, KIND_ACTOR = "number", "date", "actor"

# --- figures -----------------------------------------------------------------------------------

# Words before a figure and the range they make of it, as (low, high) factors.
HEDGES_BEFORE = {
    "more than": ("1", "1.5"), "over": ("1", "1.5"), "at least": ("1", "1.5"),
    "upwards of": ("1", "1.5"), "in excess of": ("1", "1.5"), "超过": ("1", "1.5"),
    "逾": ("1", "1.5"), "超": ("1", "1.5"), "nearly": ("0.85", "1"), "almost": ("0.85", "1"),
    "close to": ("0.85", "1"), "近": ("0.85", "1"), "将近": ("0.85", "1"),
    "接近": ("0.85", "1"), "about": ("0.9", "1.1"), "around": ("0.9", "1.1"),
    "roughly": ("0.9", "1.1"), "approximately": ("0.9", "1.1"), "some": ("0.9", "1.1"),
    "约": ("0.9", "1.1"), "大约": ("0.9", "1.1"), "up to": ("0", "1"),
    "as many as": ("0", "1"), "less than": ("0", "1"), "fewer than": ("0", "1"),
    "under": ("0", "1"), "不到": ("0", "1"), "不足": ("0", "1"), "最多": ("0", "1"),
}  # fmt: skip
HEDGES_AFTER = {
    "多": ("1", "1.5"), "余": ("1", "1.5"), "以上": ("1", "1.5"), "+": ("1", "1.5"),
    "plus": ("1", "1.5"), "左右": ("0.9", "1.1"), "以下": ("0", "1"),
}  # fmt: skip
_BEFORE_RE = re.compile(rf"(?:{'|'.join(map(re.escape, HEDGES_BEFORE))})\s*$")
_AFTER_RE = re.compile(rf"^\s*({'|'.join(map(re.escape, HEDGES_AFTER))})")
# What a bare count counts, folded to one name across wordings and languages.
COUNTED = {
    "people": "people", "person": "people", "employee": "people", "worker": "people",
    "staff": "people", "job": "people", "人": "people", "名": "people", "位": "people",
    "user": "user", "用户": "user", "unit": "unit", "台": "unit", "部": "unit", "辆": "unit",
    "vehicle": "unit", "car": "unit", "store": "store", "门店": "store", "家": "store",
}  # fmt: skip
ZH_COUNTERS = "人名位台部辆家个件架吨条次起款座所只"
_EN_NEXT = re.compile(r"^\s*(?:(?:more|additional|new|other|of|its|their)\s+)*([a-z]+)")
_ZH_NEXT = re.compile(r"^\s*(?:多|余)?\s*([\u4e00-\u9fff]{1,2})")


@dataclass(frozen=True)
class Figure:
    """A figure as an outlet states it: its kind, the range it allows, and how it is written."""

    kind: str
    low: Decimal
    high: Decimal
    text: str

    def fits(self, other: Figure) -> bool:
        return self.low <= other.high and other.low <= self.high


def figures_of(text: str) -> list[Figure]:
    """The figures of ``text`` with their kinds and ranges (see the module's note); number
    words ("two people") and ordinals are left out: they are how a story is told, not its
    facts."""
    visible = unicodedata.normalize("NFKC", text).casefold()
    found, cursor = [], 0
    for quantity in quantities(text):
        written = quantity.text.casefold()
        at = visible.find(written, cursor)
        if at < 0 or written in NUMBER_WORDS or re.search(r"\d(?:st|nd|rd|th)$", written):
            continue
        cursor = at + len(written)
        before, after = visible[max(0, at - 16) : at], visible[cursor : cursor + 24]
        kind = f"unit:{quantity.unit}" if quantity.unit else _counted(after)
        found.append(_figure(quantity, kind, before, after))
    return found


def _counted(after: str) -> str:
    zh = _ZH_NEXT.match(after)
    if zh:
        word = zh.group(1)
        word = word[0] if word[0] in ZH_COUNTERS else word
        return f"count:{COUNTED.get(word, word)}"
    en = _EN_NEXT.match(after)
    word = en.group(1) if en else ""
    if not word or word in STOP_WORDS:
        return "count:"
    word = stem(word)
    return f"count:{COUNTED.get(word, word)}"


def _figure(quantity: Quantity, kind: str, before: str, after: str) -> Figure:
    low_f, high_f = Decimal(1), Decimal(1)
    hedge = _BEFORE_RE.search(before.rstrip(" $€£¥"))
    tail = _AFTER_RE.match(after)
    if hedge:
        low_f, high_f = map(Decimal, HEDGES_BEFORE[hedge.group(0).strip()])
    elif tail:
        low_f, high_f = map(Decimal, HEDGES_AFTER[tail.group(1)])
    # A rounded figure is what rounds to it, short of the half-way mark: "1亿" is not 5000万.
    # The figure's own rounding: the narrower side of the range it was read with (the hedges
    # that widen one side are applied above, from the words around it).
    rounding = min(quantity.value - quantity.low, quantity.high - quantity.value)
    room = rounding * ROUNDING + abs(quantity.value) * SLACK
    value = quantity.value
    return Figure(kind, value * low_f - room, value * high_f + room, quantity.text)


# --- days --------------------------------------------------------------------------------------

WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6, "周一": 0, "周二": 1, "周三": 2, "周四": 3, "周五": 4, "周六": 5, "周日": 6,
    "星期一": 0, "星期二": 1, "星期三": 2, "星期四": 3, "星期五": 4, "星期六": 5,
    "星期日": 6, "星期天": 6, "周天": 6,
}  # fmt: skip
_WEEKDAY_RE = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|(星期[一二三四五六日天]|周[一二三四五六日天])",
    re.I,
)
RELATIVE = {"yesterday": -1, "today": 0, "tomorrow": 1, "昨天": -1, "昨日": -1, "今天": 0,
            "今日": 0, "明天": 1, "前天": -2}  # fmt: skip
_RELATIVE_RE = re.compile(r"\b(yesterday|today|tomorrow)\b|(昨天|昨日|今天|今日|明天|前天)", re.I)


@dataclass(frozen=True)
class Day:
    """A day an outlet states: a date (``year`` None when not written; ``default_year`` is the
    item's), or only a weekday (``month`` 0)."""

    year: int | None
    month: int
    day: int
    weekday: int
    default_year: int
    text: str

    def fits(self, other: Day) -> bool:
        if not self.month or not other.month:
            return self._weekday() == other._weekday()
        same = (self.month, self.day) == (other.month, other.day)
        return same and (self.year is None or other.year is None or self.year == other.year)

    def _weekday(self) -> int:
        if not self.month:
            return self.weekday
        try:
            return date(self.year or self.default_year, self.month, self.day).weekday()
        except ValueError:
            return -1


def days_of(text: str, published: datetime | None) -> list[Day]:
    """The days ``text`` states, read as ``agent.summary.dates`` reads them, plus weekdays."""
    year = (published or datetime.now(UTC)).year
    found = []
    for y, m, d in ISO_DATE.findall(text) + ZH_DATE.findall(text):
        found.append((y, int(m), d))
    for m, d, y in EN_MONTH_DAY.findall(text):
        found.append((y, MONTHS[m.lower().rstrip(".")], d))
    for d, m, y in EN_DAY_MONTH.findall(text):
        found.append((y, MONTHS[m.lower().rstrip(".")], d))
    days = [Day(int(y) if y else None, m, int(d), -1, year, f"{m}/{d}") for y, m, d in found]
    days = [d for d in days if 1 <= d.month <= 12 and 1 <= d.day <= 31]
    for match in _WEEKDAY_RE.finditer(text):
        word = match.group(0)
        days.append(Day(None, 0, 0, WEEKDAYS[word.lower()], year, word))
    if published:
        for match in _RELATIVE_RE.finditer(text):
            word = match.group(0)
            moment = published.date() + timedelta(days=RELATIVE[word.lower()])
            days.append(Day(moment.year, moment.month, moment.day, -1, year, word))
    return days


def day_text(day: Day) -> str:
    """A day as the brief writes it: ``2026-12-01``, ``12-01`` without a year, or the weekday
    as written."""
    if not day.month:
        return day.text
    head = f"{day.year}-" if day.year else ""
    return f"{head}{day.month:02d}-{day.day:02d}"


# --- actors in roles ---------------------------------------------------------------------------

_NAME = r"((?:[A-Z][\w&.'-]*\s?){1,4})"
_ZH_NAME = r"([\u4e00-\u9fffA-Za-z0-9]{2,12}?)"
ROLE_PATTERNS = (
    ("lead", re.compile(rf"\bled by (?:the )?{_NAME}")),
    ("lead", re.compile(rf"{_NAME}\s(?:led|leads|is leading) the\b")),
    ("acquirer", re.compile(rf"\b(?:acquired|bought|purchased) by {_NAME}")),
    ("acquirer", re.compile(rf"{_NAME}\s(?:has |will |agreed to |is to |to )?(?:acquire|acquires|acquired|buy|buys|bought)\b")),  # noqa: E501
    ("winner", re.compile(rf"\bwon by {_NAME}")),
    ("winner", re.compile(rf"{_NAME}\s(?:won|wins|has won)\b")),
    ("lead", re.compile(rf"由{_ZH_NAME}领投")),
    ("lead", re.compile(rf"(?:^|[，。；、\s]){_ZH_NAME}领投")),  # noqa: RUF001
    ("acquirer", re.compile(rf"被{_ZH_NAME}(?:以.{{0,12}})?收购")),
    ("acquirer", re.compile(rf"(?:^|[，。；、\s]){_ZH_NAME}(?:宣布|拟|将|已)?(?:以.{{0,12}}?)?收购")),  # noqa: E501, RUF001
    ("winner", re.compile(rf"(?:^|[，。；、\s]){_ZH_NAME}(?:夺冠|获胜|夺得冠军|赢得)")),  # noqa: RUF001
)  # fmt: skip
NOT_ACTORS = frozenset(["the", "it", "they", "he", "she", "we", "which", "who", "and", "that"])


@dataclass(frozen=True)
class Actor:
    """Who an outlet names in a role (folded ``name``; ``text`` as written)."""

    kind: str
    name: str
    text: str

    def fits(self, other: Actor) -> bool:
        return self.name in other.name or other.name in self.name


def actors_of(text: str) -> list[Actor]:
    """The actors ``text`` names in the roles of ``ROLE_PATTERNS``."""
    found = []
    for role, pattern in ROLE_PATTERNS:
        for match in pattern.finditer(text):
            written = match.group(1).strip(" .,'")
            name = fold(written)
            if name and name not in NOT_ACTORS:
                found.append(Actor(f"role:{role}", name, written))
    return found


# --- one story's table -------------------------------------------------------------------------

Fact = Figure | Day | Actor


@dataclass(frozen=True)
class Said:
    """One outlet's telling of a fact: the outlet, what it says, the items saying it."""

    source: str
    text: str
    items: tuple[int, ...]


@dataclass(frozen=True)
class Agreement:
    kind: str  # number, date or actor
    text: str
    items: tuple[int, ...]


@dataclass(frozen=True)
class Difference:
    kind: str
    said: tuple[Said, ...]


@dataclass(frozen=True)
class StoryTable:
    """A story's agreements and differences; ``items`` are its citation numbers."""

    items: tuple[int, ...]
    agreements: tuple[Agreement, ...]
    differences: tuple[Difference, ...]

    def as_dict(self) -> dict:
        return {
            "items": list(self.items),
            "agreements": [
                {"kind": a.kind, "text": a.text, "items": list(a.items)} for a in self.agreements
            ],
            "differences": [
                {
                    "kind": d.kind,
                    "said": [
                        {"source": s.source, "text": s.text, "items": list(s.items)} for s in d.said
                    ],
                }
                for d in self.differences
            ],
        }


@dataclass
class _Outlet:
    name: str
    items: list[int]
    facts: list[tuple[int, Fact]]


def outlet_key(item: SourceItem) -> str:
    """Who tells an item: its source's name, folded; its path's first segment without one."""
    return fold(item.source) or item.path.strip("/").split("/", 1)[0]


def outlets_of(items: Sequence[SourceItem]) -> list[_Outlet]:
    """The story's items grouped by outlet, each with the facts its items state."""
    outlets: dict[str, _Outlet] = {}
    for item in items:
        outlet = outlets.setdefault(outlet_key(item), _Outlet(item.source or item.path, [], []))
        outlet.items.append(item.n)
        text = f"{item.title}\n{(item.summary or '')[:TEXT_CHARS]}"
        facts: list[Fact] = [*figures_of(text), *days_of(text, item.published_at)]
        outlet.facts += [(item.n, f) for f in (*facts, *actors_of(text))]
    return list(outlets.values())


def _kind_of(fact: Fact) -> str:
    return "date" if isinstance(fact, Day) else fact.kind


def _label(fact: Fact) -> str:
    return day_text(fact) if isinstance(fact, Day) else fact.text


def _public_kind(fact: Fact) -> str:
    if isinstance(fact, Figure):
        return KIND_NUMBER
    return KIND_DATE if isinstance(fact, Day) else KIND_ACTOR


def story_table(items: Sequence[SourceItem]) -> StoryTable | None:
    """The table of a story told by two outlets or more; ``None`` for one outlet."""
    outlets = outlets_of(items)
    if len(outlets) < 2:
        return None
    kinds = sorted({_kind_of(f) for o in outlets for _, f in o.facts})
    agreements: list[Agreement] = []
    differences: list[Difference] = []
    for kind in kinds:
        stating = [(o, [(n, f) for n, f in o.facts if _kind_of(f) == kind]) for o in outlets]
        stating = [(o, facts) for o, facts in stating if facts]
        if len(stating) < 2:
            continue
        conflict = any(
            _unmatched(a, b) and _unmatched(b, a)
            for i, (_, a) in enumerate(stating)
            for _, b in stating[i + 1 :]
        )
        if conflict:
            differences.append(_difference(stating))
        else:
            agreements += _agreed(stating)
    return StoryTable(tuple(i.n for i in items), tuple(agreements), tuple(differences))


def _unmatched(mine: list[tuple[int, Fact]], theirs: list[tuple[int, Fact]]) -> bool:
    """Whether one of ``mine`` fits none of ``theirs``."""
    return any(not any(f.fits(g) for _, g in theirs) for _, f in mine)  # type: ignore[arg-type]


def _difference(stating: list[tuple[_Outlet, list[tuple[int, Fact]]]]) -> Difference:
    said = []
    for outlet, facts in stating:
        labels = list(dict.fromkeys(_label(f) for _, f in facts))
        numbers = tuple(sorted({n for n, _ in facts}))
        said.append(Said(outlet.name, ", ".join(labels), numbers))
    return Difference(_public_kind(stating[0][1][0][1]), tuple(said))


def _agreed(stating: list[tuple[_Outlet, list[tuple[int, Fact]]]]) -> list[Agreement]:
    """Each fact of the first outlet stating the kind that another outlet states too."""
    agreed = []
    first, others = stating[0][1], stating[1:]
    for n, fact in first:
        backing = [m for _, facts in others for m, g in facts if fact.fits(g)]  # type: ignore[arg-type]
        if backing:
            label = _label(fact)
            if any(a.text == label for a in agreed):
                continue
            agreed.append(Agreement(_public_kind(fact), label, tuple(sorted({n, *backing}))))
    return agreed
