"""What a route's parameters take where the question says nothing: a setting its documented
default (a listed value's label said as one: "English by default" is ``en``) or its example's
value, a subject its default only beside a subject named; Hono's order kept (no optional left
out before a given one); else the subject parameters to ask for (``SubjectMissing``)."""

import re

from agent.routes.slots import Slot, value_format
from agent.unnamed import (
    ONE_OF_KIND_EN,
    ONE_OF_THEM_EN,
    ONE_OF_THEM_ZH,
    SEARCH_KINDS_EN,
    SETTING_KINDS_EN,
    UNNAMED_ZH,
)
from briefs import reasons
from catalog.segment import zh_simplified
from fetching.paths import RoutePathRejected

# What a site's settings are called, whatever a parameter's description says: "有个栏目"
SECTIONS_ZH = frozenset(str.split("栏目 板块 版块 分类 频道 类别 类型 专栏 排序"))
# An optional setting said as one the asker has in mind but does not name: "one particular
# section", "the image style I prefer", "in my own language" (KIND stands for its kinds)
PARTICULAR_EN = (
    r"\b(?:some|certain|particular|specific)\s+(?:[\w.'-]+\s+){0,2}?(?:KIND)\b",
    r"\b(?:my|our)\s+(?:own\s+)?(?:KIND)\b",
    r"\b(?:the|my|our|a|an|one)\s+(?:[\w.'-]+\s+){0,2}?(?:KIND)\s+(?:that\s+)?(?:i|we)\s+"
    r"(?:prefer|like|use|want|follow|read|need|pick|chose|choose|care|applied|apply|attend"
    r"|study|studied|work|belong|watch|track|love)\b",
)
SECTIONS_EN = SETTING_KINDS_EN | {"cate", "type", "channel", "tab"}
OPEN_KINDS_EN = SECTIONS_EN | {"language", "style", "region", "city", "forum"}
# What an asker calls a site's section: its kinds, and a field or a department of it
SECTION_NAMES_EN = SETTING_KINDS_EN | {"field", "fields", "department", "departments"}
PARTICULAR_ZH = ("某个", "某一", "某种", "有个", "其中一个")
NOT_NAMED = frozenset({"option", "keywords", "default", "example"})  # sources that name no subject


class SubjectMissing(RoutePathRejected):
    """A required subject parameter has no value in the question; ``slots`` says which."""

    def __init__(self, slots: list[Slot]) -> None:
        self.slots = slots
        names = ", ".join(f":{s.name}" for s in slots)
        code, _sep, detail = reasons.SUBJECT_NO_VALUE.english(names=names).partition(": ")
        super().__init__(code, detail)

    def needs(self, *, route: str, source: str) -> list[dict[str, str]]:
        """What to ask for, in the shape of ``RunContext.needs``."""
        return [
            {
                "parameter": slot.name,
                "description": slot.description,
                "format": value_format(slot),
                "route": route,
                "source": source,
            }
            for slot in self.slots
        ]


def unsaid_fill(
    slots: list[Slot], values: dict[str, str], sources: dict[str, str], question: str = ""
) -> None:
    """Fill what the question left to defaults, keep Hono's order, or refuse the route: a
    required setting with no default that the question leaves open ("有个栏目我想订阅", "one of
    the exam types") is asked for, as a subject is, not read at its example."""
    named = any(s not in NOT_NAMED for s in sources.values())
    open_kinds = [
        s
        for s in slots
        if s.name not in values and (_left_open(s, question) or _particular(s, question))
    ]
    for slot in slots:
        if slot.name in values or slot.optional or slot in open_kinds:
            continue
        default = _listed_default(slot)  # a value, not a label ("默认为 政务公开 > 政策解读")
        if not slot.subject and (default or slot.example):
            values[slot.name] = default or slot.example
            sources[slot.name] = "default" if default else "example"
        elif slot.subject and slot.default and named:
            values[slot.name], sources[slot.name] = slot.default, "default"
    wanted = [s for s in slots if s.subject or s in open_kinds]
    missing = [s for s in wanted if (not s.optional or s in open_kinds) and s.name not in values]
    if missing:  # one with a default is asked for only when it alone is missing
        raise SubjectMissing([s for s in missing if not s.default] or missing)
    close_gaps(slots, values, sources)


def _left_open(slot: Slot, question: str) -> bool:
    """A required setting with no default whose kind the question says only as one it does not
    name: "有个栏目" (of 栏目代码), "one of the exam types", "one of them"."""
    if slot.subject or slot.optional or _listed_default(slot) or not question:
        return False
    folded = question.casefold()
    if ONE_OF_THEM_EN.search(folded) or ONE_OF_KIND_EN.search(folded):
        return True
    kinds = _zh_pairs(slot.description) | SECTIONS_ZH
    return any(f"{lead}{kind}" in question for lead in UNNAMED_ZH for kind in kinds) or any(
        lead in question for lead in ONE_OF_THEM_ZH
    )


def _particular(slot: Slot, question: str) -> bool:
    """A setting of a kind the question says it has one in mind of, unnamed: "some category",
    "one particular section", "the image style I prefer", "in my language", 某个分类."""
    if (slot.subject and not slot.optional) or not question:
        return False
    words = {slot.name.casefold(), *re.findall(r"[a-z]{4,}", slot.description.casefold())}
    zh_kinds = _zh_pairs(zh_simplified(slot.description))
    sections = bool(words & SECTIONS_EN) or bool(zh_kinds & SECTIONS_ZH)
    kinds = (
        (words & OPEN_KINDS_EN) | {slot.name.casefold()} | (SECTION_NAMES_EN if sections else set())
    )
    if words & SEARCH_KINDS_EN:  # "a keyword I care about" of a search's query
        kinds |= SEARCH_KINDS_EN
    if any(
        re.search(pattern.replace("KIND", "|".join(map(re.escape, sorted(kinds)))), question, re.I)
        for pattern in PARTICULAR_EN
    ):
        return True
    zh_kinds = (zh_kinds & SECTIONS_ZH) | (SECTIONS_ZH if sections else set())
    asked = zh_simplified(question)
    return any(f"{lead}{kind}" in asked for lead in PARTICULAR_ZH for kind in zh_kinds)


def _written_as_value(default: str, description: str) -> bool:
    """The description writes the default as a value, backquoted: "`all` by default"."""
    return f"`{default}`" in description


def _zh_pairs(text: str) -> set[str]:
    """Each two Chinese characters in a row of ``text``: the kinds a description may name."""
    runs = re.findall(r"[\u4e00-\u9fff]+", text)
    return {run[i : i + 2] for run in runs for i in range(len(run) - 1)}


def close_gaps(slots: list[Slot], values: dict[str, str], sources: dict[str, str]) -> None:
    """Hono lets trailing optionals go, not one before a given value: a setting takes its
    default there; otherwise the later optional values are dropped."""
    last = max((i for i, s in enumerate(slots) if s.name in values), default=0)
    for index, slot in enumerate(slots[:last]):
        if slot.name in values:
            continue
        default = _listed_default(slot)
        if not slot.subject and (default or slot.example):
            values[slot.name] = default or slot.example
            sources[slot.name] = "default" if default else "example"
            continue
        if slot.subject and default:  # "number of items (default = 1)" before a style said
            values[slot.name], sources[slot.name] = default, "default"
            continue
        for later in slots[index + 1 :]:
            if later.optional:
                values.pop(later.name, None)
                sources.pop(later.name, None)
        return


def defaults_dropped(slots: list[Slot], values: dict[str, str]) -> dict[str, str]:
    """``values`` without the optional ones at their documented default that end the path:
    Hono fills them the same ("most clicked in the last 24 hours" of 网易's 排行榜 is
    ``/163/news/rank``, not ``.../whole/click/day``)."""
    kept = dict(values)
    for slot in reversed(slots):
        if slot.name not in kept:
            continue
        default = _listed_default(slot)
        if not slot.optional or not default or kept[slot.name].casefold() != default.casefold():
            break
        del kept[slot.name]
    return kept


def _listed_default(slot: Slot) -> str | None:
    """A setting's documented default as the value to write: among listed values, the one it
    is or labels ("English by default" is ``en``), else none."""
    if not slot.default or not slot.choices:
        return slot.default
    said = slot.default.casefold()
    found = next((v for label, v in slot.choices if said in {label.casefold(), v.casefold()}), None)
    # a value written as one that the lists leave out ("`all` by default" of numbered sectors)
    return found or (slot.default if _written_as_value(slot.default, slot.description) else None)
