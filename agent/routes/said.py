"""Values a question says in its own words, read against a route's parameters: a year for a
parameter of years, a count of items or a span in its unit ("20 entries", "the last 7 days")
for the parameter named for it, and a subject or optional value its example shows, said whole
("a series called Ubuntu Weekly Recipe", "only the a11y category")."""

import re

from agent.routes.forms import CJK_RE
from agent.routes.slots import Slot, words_of
from agent.routes.words import usable
from agent.vocabulary import plural_stem

# A count of items asked for, and the parameters taking one
COUNT_SAID_RE = re.compile(
    r"(?<![\d.])(\d{1,3})\s*(?:entries|items|posts|articles|results|stories|\u6761|\u7bc7)", re.I
)
COUNT_PARAMS = frozenset({"count", "limit", "num", "size"})
# A span of time said as a count of its unit ("the last 7 days", "最近3天"), by the parameter
# named for the unit
SPAN_SAID = {
    "day": re.compile(
        r"(?<![\d.])(\d{1,3})\s*(?:-\s*)?days?\b|(?<![\d.\u6708])(\d{1,3})\s*\u5929", re.I
    ),
    "hour": re.compile(
        r"(?<![\d.])(\d{1,3})\s*(?:-\s*)?(?:hours?|hrs?)\b|(?<![\d.])(\d{1,3})\s*\u5c0f\u65f6", re.I
    ),
    "week": re.compile(
        r"(?<![\d.])(\d{1,2})\s*(?:-\s*)?weeks?\b|(?<![\d.])(\d{1,2})\s*(?:\u5468|\u661f\u671f)",
        re.I,
    ),
}
YEAR_RE = re.compile(r"(?:19|20)\d{2}")  # a year said as such: 2023
SAID_YEAR_RE = re.compile(r"(?<![\d\-/.])((?:19|20)\d{2})(?![\d\-/.])")  # not in a date


def of_year(slot: Slot) -> bool:
    """The parameter takes a year ("year", "Year, current year by default", "默认为当前年份"),
    not a date."""
    example = slot.example or ""  # not a month's: 2024-05
    default = slot.default or ""
    named = "year" in words_of(slot.name) or slot.description.lower().startswith("year")
    named = named or "\u5e74\u4efd" in default or default.lower() in ("current year", "this year")
    return named and (not example or YEAR_RE.fullmatch(example) is not None)


def _year_fill(slots: list[Slot], text: str, values: dict, sources: dict) -> None:
    """The one year a question says ("2019年那一年的文章") fills a parameter that takes a year."""
    years = set(SAID_YEAR_RE.findall(text))
    for slot in slots:
        if len(years) == 1 and slot.name not in values and of_year(slot):
            values[slot.name], sources[slot.name] = years.pop(), "number"


def _example_said(slots: list[Slot], text: str, values: dict, sources: dict) -> None:
    """A subject the question names in the words its example writes with dashes ("a series
    called Ubuntu Weekly Recipe": ``Ubuntu-Weekly-Recipe``) is that value: the question said it."""
    for slot in slots:
        words = re.split(r"[-_]", slot.example or "")
        if slot.name in values or not slot.subject or len(words) < 2 or not all(words):
            continue
        spoken = r"[\s\-_]+".join(re.escape(w) for w in words)
        if re.search(rf"(?<![\w-]){spoken}(?![\w-])", text, re.I):
            values[slot.name], sources[slot.name] = slot.example, "marked"


def _example_named(
    slots: list[Slot], text: str, excluded: set[str], values: dict, sources: dict
) -> None:
    """An optional parameter whose example's value the question says whole ("only the a11y
    category", 黑客工具分类, "company articles only") takes it: a value the catalog shows
    working. Not a word any question says (news, all), the route's own words, nor its
    default."""
    for slot in slots:
        value = slot.example or ""
        if slot.name in values or not slot.optional or "/" in value or value == slot.default:
            continue
        if CJK_RE.search(value):
            said = len(value) >= 2 and value in text
        else:
            said = (
                len(value) >= 3
                and usable(value, excluded)
                and re.search(rf"(?<![\w\-/.]){re.escape(value)}(?![\w\-/])", text, re.I)
            )
        if said:
            values[slot.name], sources[slot.name] = value, "marked" if slot.subject else "option"


def _count_fill(slots: list[Slot], text: str, values: dict, sources: dict) -> None:
    """How many items the question asks for ("20 entries each time", "每次 30 条") fills a
    parameter named for a count of them."""
    said = COUNT_SAID_RE.search(text)
    for slot in slots:
        if said and slot.name not in values and set(words_of(slot.name)[-1:]) & COUNT_PARAMS:
            values[slot.name], sources[slot.name] = said.group(1), "option"
            return
    for slot in slots:
        unit = plural_stem((words_of(slot.name) or [""])[-1])
        spans = {a or b for a, b in SPAN_SAID[unit].findall(text)} if unit in SPAN_SAID else ()
        if slot.name not in values and len(spans) == 1:
            values[slot.name], sources[slot.name] = spans.pop(), "option"


def said_fill(
    slots: list[Slot], text: str, excluded: set[str], values: dict, sources: dict
) -> None:
    """Fill what the question says in its own words (see the module)."""
    _year_fill(slots, text, values, sources)
    _example_said(slots, text, values, sources)
    _example_named(slots, text, excluded, values, sources)
    _count_fill(slots, text, values, sources)
