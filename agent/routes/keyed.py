"""A parameter taking extra keys written as a query (Telegram's and 贴吧's ``:routeParams``,
豆瓣's recommended lists), whose keys a table documents: each key, what it does, the values it
accepts and its default. The question asks for a key's value when it turns a switch from its
default ("skip the forwarded messages": ``includeFwd=0``; "只看主题帖": ``only_thread=1``) or
names a value its description lists by its label ("they recommend": ``curations=0``) or
says a number of a key accepting a range ("评分8分以上": ``score=8``) or marks a name of the
kind a key accepting any name is of ("只在显卡吧里搜": ``kw=显卡``); the parameter is written as
their query, in the table's order."""

import re
from typing import NamedTuple

from agent.routes.amounts import MINIMUM_SAID_RE
from agent.routes.enums import option_named
from agent.routes.listed import inline_values
from agent.routes.marked import marked_before
from agent.routes.markers import ZH_BEFORE_MARKERS
from agent.routes.queries import takes_query
from agent.routes.slots import Slot
from agent.routes.switches import SwitchSaid, switch_named
from agent.routes.tables import table_rows

# A table of a query's keys, by its headers: the key, what it does, what it accepts, its default
KEY_HEADERS = frozenset(("key", "parameter", "键", "参数", "额外参数"))
SAID_HEADERS = frozenset(("description", "含义", "说明", "描述"))
ACCEPT_HEADERS = ("accept", "接受", "可选值", "取值")
DEFAULT_HEADERS = ("default", "默认")
KEY_RE = re.compile(r"[A-Za-z]\w*")
# What a switch accepts: 0/1, true/false, or both
SWITCH_ACCEPTS_RE = re.compile(r"(?:0\s*/\s*1|true\s*/\s*false)(?:\s*/\s*true\s*/\s*false)?$", re.I)
# A switch of which items a feed keeps, by what its description starts with (not how they are
# shown: "Show media tags in the title")
ITEMS_SWITCH_RE = re.compile(r"include|exclude|only|只看|只|仅|包含|是否包含", re.I)
# A parameter's description that says it takes extra keys
EXTRA_RE = re.compile(r"额外参数|extra param", re.I)
# What a key accepting any name says it accepts: 任意名称, "any name"
ANY_NAME_RE = re.compile(r"任意|any\b", re.I)
# A range of numbers accepted: 0-10, 0.0-10.0
RANGE_RE = re.compile(r"(\d+(?:\.\d+)?)\s*[-~\u2013]\s*(\d+(?:\.\d+)?)$")
# What a ranged key does that is a rating: the least one said ("8分以上") is its value
RATING_RE = re.compile(r"评分|分数|score|rating", re.I)
# Words of what a ranged key does that say no thing of it: 筛选评分 filters by 评分
FRAME_ZH_RE = re.compile(r"筛选|过滤|最低|最小|最高|最大|设置|指定")
CJK_RUN_RE = re.compile(r"[\u4e00-\u9fff]{2,}")


class KeyRow(NamedTuple):
    key: str
    does: str  # what it does: "Include forwarded messages", "只看主题帖", "筛选评分"
    accepts: str
    default: str


def key_rows(text: str) -> list[KeyRow]:
    """The rows of the table of a query's keys in ``text`` (of its tables, the first whose
    headers say key, meaning, accepted values and default); none when it has no such table."""
    for block in table_rows(text):
        rows = [[cell.strip(" `") for cell in row] for row in block]
        header = [cell.casefold() for cell in rows[0]]
        at = [
            next((i for i, c in enumerate(header) if c in KEY_HEADERS), -1),
            next((i for i, c in enumerate(header) if c in SAID_HEADERS), -1),
            next((i for i, c in enumerate(header) if c.startswith(ACCEPT_HEADERS)), -1),
            next((i for i, c in enumerate(header) if c.startswith(DEFAULT_HEADERS)), -1),
        ]
        if -1 in at:
            continue
        found = []
        for row in rows[1:]:
            if len(row) > max(at):
                key, does, accepts, default = (row[i] for i in at)
                key = key.replace("\\_", "_")
                if KEY_RE.fullmatch(key):
                    found.append(KeyRow(key, does, accepts, default.casefold()))
        return found
    return []


def switch_asked(row: KeyRow, said: SwitchSaid) -> str | None:
    """The value a switch of which items a feed keeps is asked for, when the question turns it
    from its default; None otherwise."""
    if not SWITCH_ACCEPTS_RE.match(row.accepts) or row.default not in ("0", "1", "true", "false"):
        return None
    # "For forwarded messages, show the forwarding source": what it shows, not of what
    parts = re.split(r"[,\uff0c;\uff1b(\uff08]", row.does)
    does = parts[1] if row.does.casefold().startswith("for ") and len(parts) > 1 else parts[0]
    if not ITEMS_SWITCH_RE.match(does.strip()) or not (words := switch_named(does)):
        return None
    turned = said.turned(words)
    if turned is None or turned == (row.default in ("1", "true")):
        return None
    return ("1" if turned else "0") if row.accepts.startswith("0") else str(turned).lower()


def number_asked(row: KeyRow, question: str) -> str | None:
    """The number the question says right after what a key accepting a range does ("评分8分以上"
    for 筛选评分, 0-10) or after the key itself ("score 8"); None when it says none in range."""
    accepted = RANGE_RE.match(row.accepts)
    if not accepted:
        return None
    low, high = float(accepted.group(1)), float(accepted.group(2))
    words = [*CJK_RUN_RE.findall(FRAME_ZH_RE.sub(" ", row.does)), row.key]
    said = [
        match.group(1)
        for word in words
        if (
            match := re.search(
                rf"{re.escape(word)}\s*(?:[:=]|在|是|为)?\s*(\d+(?:\.\d+)?)", question, re.I
            )
        )
    ]
    # a rating's least said without its name ("只要8分以上的")
    if RATING_RE.search(row.does) and (least := MINIMUM_SAID_RE.search(question)):
        said.append(next(g for g in least.groups() if g))
    return next((n for n in said if low <= float(n) <= high), None)


def listed_asked(row: KeyRow, question: str) -> str | None:
    """The value the question names of those a key's description lists with their labels
    ("`0`: Recommended, `1`: Not Recommended" and "only the games they recommend"); None when
    it names none."""
    choices = [(label, v) for label, v in inline_values(row.does) if label != v]
    value = option_named(question, choices, loose=False) if choices else None
    return value if value is not None and value in row.accepts else None


def name_asked(row: KeyRow, text: str) -> str | None:
    """The name the question marks with the kind a key accepting any name is of ("在名为 kw
    的贴吧中搜索", any name: 显卡 of "只在显卡吧里搜"), its platform's names blanked in
    ``text``; None when it marks none."""
    if not ANY_NAME_RE.match(row.accepts):
        return None
    kinds = tuple(m for m in ZH_BEFORE_MARKERS if m in row.does)
    named = marked_before(text, set(), kinds) if kinds else []
    return named[0] if named else None


def keyed_query_fill(
    slots: list[Slot], description: str, question: str, values: dict, sources: dict, text: str
) -> None:
    """An optional parameter taking a query of keys that a table lists (in its own description,
    or in the route's when it takes extra keys) is written as the keys the question asks a
    value of (``text``: the question with its platform's names blanked)."""
    said = SwitchSaid.of(question)
    for slot in slots:
        if slot.name in values or not slot.optional or slot.subject:
            continue
        rows = key_rows(slot.description) or (_takes_keys(slot) and key_rows(description))
        chosen = []
        for row in rows or []:
            value = switch_asked(row, said) or number_asked(row, question)
            value = value or listed_asked(row, question)
            # a name another parameter takes already is not said again ("原神吧": the forum)
            if value is None and (name := name_asked(row, text)) not in values.values():
                value = name
            if value is not None and value != row.default:
                chosen.append(f"{row.key}={value}")
        if chosen:
            values[slot.name], sources[slot.name] = "&".join(chosen), "option"


def _takes_keys(slot: Slot) -> bool:
    """The parameter takes extra keys as a query: so its example shows, or its name or
    description says (``:routeParams``, 额外参数, "extra parameters")."""
    return (
        takes_query(slot) or slot.name == "routeParams" or bool(EXTRA_RE.search(slot.description))
    )
