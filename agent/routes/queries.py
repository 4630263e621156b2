"""A parameter written as a search's query ("district=wien-22-donaustadt&room=2"): the
pairs of its example whose value the question says are the query asked for ("flats in
Donaustadt", "postcode 1100" for ``plz[]=1100``). A route documents its filters that way when it
reads a site's search; the example lists the values a user would pick."""

import re
from collections import Counter

from agent.routes.slots import Slot

# A part of a value the question must say: a word of five letters or more, or a number of
# three digits or more (a postcode, a year), said whole
WORD_PART_RE = re.compile(r"[^\W\d_]{5,}|\d{3,}")


def query_fill(slots: list[Slot], question: str, values: dict, sources: dict) -> None:
    """Fill each parameter whose example is a query of two or more pairs with the pairs whose
    value has a part the question says and no other value of the example has."""
    said = {w.casefold() for w in re.findall(r"\w+", question)}
    for slot in slots:
        pairs = _pairs(slot.example or "")
        if slot.name in values or len(pairs) < 2:
            continue
        parts = {value: _parts(value) for _key, value in pairs}
        counts = Counter(p for value in dict.fromkeys(v for _k, v in pairs) for p in parts[value])
        chosen = [
            f"{key}={value}"
            for key, value in pairs
            if any(counts[p] == 1 and p in said for p in parts[value])
        ]
        if chosen:
            values[slot.name], sources[slot.name] = "&".join(dict.fromkeys(chosen)), "option"


def _pairs(example: str) -> list[tuple[str, str]]:
    if "=" not in example or "/" in example:
        return []
    pairs = [pair.partition("=") for pair in example.split("&")]
    return [(key, value) for key, sep, value in pairs if sep and key and value]


def _parts(value: str) -> set[str]:
    return {part.casefold() for part in WORD_PART_RE.findall(value)}
