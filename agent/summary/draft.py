"""A brief in the making: the items it may cite (``SourceItem``, chosen by ``items_select``),
the ``Draft`` the summarize node (``agent.summarize``) returns, and the citation and coverage
lines every kind of brief shares (the fetches it reports, ``Attempted``, and their rows:
``briefs.coverage``).

A citation number that is not one of the given items is removed (``citations_validate``).
Nothing here invents a fact, a number or a time that no item holds: every time printed is an
item's own ``published_at`` or the run's "as of".
"""

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agent.question import TimeWindow
from agent.summary.folding import stories_fold
from agent.summary.subject import fold
from briefs import reasons
from briefs.coverage import Attempted, coverage_heading, coverage_rows, row_explanation

if TYPE_CHECKING:  # outcome reads the attempts this module defines
    from agent.summary.outcome import Verdict

MAX_ITEMS = 30  # items offered to the summary (and cited at most)
PER_SOURCE = 8
TITLE_WEIGHT = 2  # a keyword in an item's title counts this many times one in its text
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
CITATION_RE = re.compile(r"\[(\d{1,4})\]")


@dataclass(frozen=True)
class SourceItem:
    """An item as the summary sees it; ``n`` is its citation number."""

    n: int
    item_id: int
    title: str
    link: str
    summary: str
    published_at: datetime | None
    path: str
    source: str  # the platform's name


@dataclass
class Draft:
    body: str
    citations: list[dict] = field(default_factory=list)
    method: str = "extractive"
    agreements: list[dict] = field(default_factory=list)  # agent.summary.agreement_text
    verdict: "Verdict | None" = None  # the run's outcome, set by the summarize node


def _relevance(item: SourceItem, keywords: list[str]) -> int:
    """A keyword in the title weighs more than one only in the text."""
    title, text = fold(item.title), fold(item.summary)
    return sum(TITLE_WEIGHT if fold(k) in title else int(fold(k) in text) for k in keywords)


def items_select(
    candidates: list[SourceItem], *, window: TimeWindow, keywords: list[str]
) -> tuple[list[SourceItem], bool]:
    """Pick what the summary gets: items inside the window (all of them when none is), relevant
    first, then newest; the items of one story (``agent.summary.folding``) next to each other,
    where its best-ranked item stands; numbered 1..n. Returns the items and whether the window
    held any."""
    inside = [i for i in candidates if _in_window(i, window)]
    in_window = bool(inside) or window.start is None
    pool = inside or candidates
    pool = sorted(
        pool,
        key=lambda i: (_relevance(i, keywords), (i.published_at or EPOCH).timestamp()),
        reverse=True,
    )
    chosen, per_source = [], {}
    for item in pool:
        if per_source.get(item.path, 0) < PER_SOURCE:
            per_source[item.path] = per_source.get(item.path, 0) + 1
            chosen.append(item)
        if len(chosen) == MAX_ITEMS:
            break
    ranked = [item for story in stories_fold(chosen) for item in story.items]
    return renumbered(ranked), in_window


def _in_window(item: SourceItem, window: TimeWindow) -> bool:
    if window.start is None or item.published_at is None:
        return window.start is None
    end_ok = window.end is None or item.published_at <= window.end
    return item.published_at >= window.start and end_ok


def renumbered(items: list[SourceItem]) -> list[SourceItem]:
    """The items numbered 1..n in their order: their citation numbers."""
    return [_renumber(item, n) for n, item in enumerate(items, start=1)]


def _renumber(item: SourceItem, n: int) -> SourceItem:
    return SourceItem(
        n,
        item.item_id,
        item.title,
        item.link,
        item.summary,
        item.published_at,
        item.path,
        item.source,
    )


def time_text(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else _("time not given")


def citations_of(items: list[SourceItem], numbers: set[int] | None = None) -> list[dict]:
    return [
        {
            "n": i.n,
            "item_id": i.item_id,
            "title": i.title,
            "link": i.link,
            "path": i.path,
            "source": i.source,
            "published_at": i.published_at.isoformat() if i.published_at else None,
        }
        for i in items
        if numbers is None or i.n in numbers
    ]


def escape_markdown(text: str) -> str:
    """Item text is data: keep it from forming markdown links, images, html or headings."""
    return re.sub(r"([\\`*_{}\[\]<>()#!|])", r"\\\1", " ".join(text.split()))


def coverage_markdown(attempted: list[Attempted], *, egress_down: bool = False) -> str:
    """The coverage section: each path, what happened in words, and under a failure the raw
    message whole (up to ``MESSAGE_LIMIT``, cut after a word)."""
    lines = ["", coverage_heading(), ""]
    for row in coverage_rows(attempted, egress_down=egress_down):
        notes = []
        if row["attempts"] > 1:
            notes.append(attempts_count(row["attempts"]))
        if row.get("fetch_age_s") is not None:
            notes.append(_("from a fetch %(age)d s ago") % {"age": row["fetch_age_s"]})
        said = escape_markdown(row_explanation(row))
        if notes:  # Chinese takes full-width parentheses: the catalog says which
            said = _("%(explanation)s (%(notes)s)") % {
                "explanation": said,
                "notes": _(", ").join(notes),
            }
        lines.append(f"- `{row['path']}`: {said}")
        if row["message"] and not row["ok"]:
            # A message the agent wrote (a known reason) reads in the brief's language;
            # RSSHub's own words stay as it wrote them.
            message = escape_markdown(reasons.reason_translate(row["message"]))
            detail = _("Details: %(message)s") % {"message": message}
            lines.append(f"  - {detail}")
    return "\n".join(lines)


def attempts_count(n: int) -> str:
    return ngettext("%(n)d attempt", "%(n)d attempts", n) % {"n": n}


def items_count(n: int) -> str:
    return ngettext("%(n)d item", "%(n)d items", n) % {"n": n}


def items_by_source(items: list[SourceItem]) -> OrderedDict[str, list[SourceItem]]:
    groups: OrderedDict[str, list[SourceItem]] = OrderedDict()
    for item in items:
        groups.setdefault(f"{item.source} · {item.path}", []).append(item)
    return groups


def items_markdown(groups: OrderedDict[str, list[SourceItem]], level: str = "###") -> list[str]:
    """Each source as a heading, then its items with citation and time."""
    lines: list[str] = []
    untitled = _("(untitled)")
    for heading, group in groups.items():
        lines += ["", f"{level} {escape_markdown(heading)}", ""]
        lines += [
            f"- {escape_markdown(i.title) or untitled} [{i.n}] ({time_text(i.published_at)})"
            for i in group
        ]
    return lines


def citations_validate(body: str, items: list[SourceItem]) -> tuple[str, set[int]]:
    """Remove citations of numbers that are not given items; return the body and the numbers
    it still cites."""
    given = {i.n for i in items}
    cited: set[int] = set()

    def keep(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if n in given:
            cited.add(n)
            return match.group(0)
        return ""

    return CITATION_RE.sub(keep, body), cited
