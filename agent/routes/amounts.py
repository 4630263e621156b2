"""Amounts a question asks of a route's settings: how many items a feed gives ("the latest 20")
and the least a rating or score may be ("8分以上", "rated 8 or higher"). Read by
``agent.routes.settings``; a number said after "not" or "instead of" is none asked for."""

import re

from agent.routes.slots import Slot
from agent.vocabulary import NEGATED_RE

# A parameter for how many items a feed gives, as its description says ("Tag count, 10 by
# default", "Number of articles", 返回章节的数量); not a vote count to filter by
COUNT_DESCRIBED_RE = re.compile(r"^(?:\w+\s)?count\b|^number of \w+|条数|数量|前多少", re.I)
# How many the question asks for: "the latest 20", "top 50", "20 most recent", 最新 30 条
COUNT_SAID_RE = re.compile(
    r"\b(?:latest|last|top|first|newest|most\s+recent)\s+(\d{1,3})\b"
    r"|\b(\d{1,3})\s+(?:most\s+recent|latest|newest)\b"
    r"|(?:最新|最近|前)\s*(\d{1,3})\s*[条个篇项]",
    re.I,
)
# A parameter for the least rating, score or votes an item has: 最低评分, "minimum rating",
# "Filter papers by vote count"
MINIMUM_DESCRIBED_RE = re.compile(
    r"最低\s*(?:评分|分数|分)|(?:minimum|min\.?|lowest)\s+(?:rating|score|stars?|votes?|points?)"
    r"|\bfilter\b.*\bby\s+(?:up)?votes?\s+count",
    re.I,
)
# The least the question asks for: 8分以上, 7.5 分及以上, "8 or higher", "at least 8", "8+",
# "50 votes or more", "at least 30 upvotes"
MINIMUM_SAID_RE = re.compile(
    r"(\d{1,2}(?:\.\d)?)\s*分\s*(?:及|或)?以上"
    r"|(\d{1,3}(?:\.\d)?)\s*(?:(?:up)?votes\s+)?(?:\+|or\s+(?:higher|above|more|better))(?!\w)"
    r"|\b(?:at\s+least|above|over|min(?:imum)?)\s+(?:a\s+)?(?:rating\s+of\s+)?(\d{1,3}(?:\.\d)?)\b",
    re.I,
)


def amounts_fill(slots: list[Slot], question: str, values: dict, sources: dict) -> None:
    """Fill an optional parameter for how many items a feed gives, and one for the least
    rating an item has, with the amount the question asks (``sources``: "option")."""
    asked = NEGATED_RE.sub(" ", question)
    for described, said in (
        (COUNT_DESCRIBED_RE, COUNT_SAID_RE),
        (MINIMUM_DESCRIBED_RE, MINIMUM_SAID_RE),
    ):
        if not (found := said.search(asked)):
            continue
        amount = next(g for g in found.groups() if g)
        for slot in slots:
            open_ = slot.optional and slot.name not in values and not slot.choices
            if open_ and described.search(slot.description.strip()):
                if not slot.regex or re.fullmatch(slot.regex, amount):
                    values[slot.name], sources[slot.name] = amount, "option"
                break
