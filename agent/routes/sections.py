"""A site's section or a film's genre named by its word: where a route's description shows a
section's value as a segment of the site's address (BBC's "`business` for
`https://feeds.bbci.co.uk/news/business/rss.xml`"), "BBC technology news" reads
``/bbc/technology``; where a film route takes tags, 科幻片 is tagged 科幻. Read by
``agent.routes.params``."""

import re

from agent.routes.slots import Slot
from agent.routes.words import GENERIC, usable

# A backticked value in a description, and an address it shows
SHOWN_VALUE_RE = re.compile(r"`([a-z]+(?:[-_][a-z]+)*)`")
SHOWN_URL_RE = re.compile(r"https?://[^\s`<>)\]]+")
# A section's word as a question says it: "technology news", "the business section"
SECTION_SAID_RE = re.compile(r"\b([A-Za-z][a-z]+)\s+(?:news|section|channel|stories)\b", re.I)
# The form of a section's value in an address: words of small letters, hyphened
SECTION_FORM_RE = re.compile(r"[a-z]+(?:[-_][a-z]+)*")
# A kind of film by its genre: 科幻片, 动作片 (not 影片, 短片, 大片: a film, a short, a
# blockbuster; nor a word 的 or 了 ends)
GENRE_FILM_RE = re.compile(r"([^\W\d_a-zA-Z\u7684\u4e86\u5f71\u77ed\u5927]{2})\u7247")
FILM_ROUTE_RE = re.compile(r"\bmovies?\b|\u7535\u5f71", re.I)  # movie, 电影
TAGS_DESCRIBED_RE = re.compile(r"\u6807\u7b7e|\btags?\b", re.I)  # 标签, tag


def section_fill(
    slots: list[Slot], description: str, text: str, excluded: set[str], values: dict, sources: dict
) -> None:
    """Fill the open parameter whose example is a section's value, of a route whose description
    shows a value as a segment of an address, with the section the question names (``text``:
    the question without its platform's names)."""
    if not _section_shown(description or ""):
        return
    for slot in slots:
        if slot.name in values or not slot.optional or slot.choices:
            continue
        if not SECTION_FORM_RE.fullmatch(slot.example or ""):
            continue
        for match in SECTION_SAID_RE.finditer(text):
            word = match.group(1).casefold()
            if usable(word, excluded) and word not in GENERIC:
                values[slot.name], sources[slot.name] = word, "section"
                return


def _section_shown(description: str) -> bool:
    """The description shows a value that is a segment of an address it shows."""
    urls = SHOWN_URL_RE.findall(description)
    return any(f"/{value}/" in url for value in SHOWN_VALUE_RE.findall(description) for url in urls)


def genre_fill(
    slots: list[Slot], route: str, text: str, excluded: set[str], values: dict, sources: dict
) -> None:
    """Fill the open tags parameter of a film route (``route``: its path and name) with the
    genre a kind of film the question names is of: 科幻片 is tagged 科幻."""
    if not FILM_ROUTE_RE.search(route):
        return
    genres = [g for g in GENRE_FILM_RE.findall(text) if usable(g, excluded) and g not in GENERIC]
    for index, slot in enumerate(slots):
        open_ = slot.name not in values and slot.optional and not slot.choices
        if open_ and genres and TAGS_DESCRIBED_RE.search(slot.description):
            # only where the settings before it are given or default to a value ("默认不限制"
            # is none to write: the genre waits for a score said)
            if all(s.name in values or _written_default(s) for s in slots[:index]):
                values[slot.name], sources[slot.name] = genres[0], "option"
            return


def _written_default(slot: Slot) -> bool:
    """The parameter's default is a value to write in a path (``U``), not words ("不限制")."""
    return bool(slot.default) and slot.default.isascii()
