"""The summarize node: items -> a brief whose every claim cites an item as ``[n]``.

The offline method is extractive: the newest relevant items, grouped by source, each with its
citation and time. The model's brief is accepted only after its citations are validated: a
number that is not one of the given items is removed, and a brief that cites nothing while items
exist is replaced by the extractive form. Nothing here invents a fact, a number or a time that
no item holds: every time printed is an item's own ``published_at`` or the run's "as of".
"""

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime

from briefs.agent.rewrite import TimeWindow

MAX_ITEMS = 30  # items offered to the summary (and cited at most)
PER_SOURCE = 8
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


@dataclass(frozen=True)
class Attempted:
    path: str
    outcome: str
    items: int
    message: str = ""


@dataclass
class Draft:
    body: str
    citations: list[dict] = field(default_factory=list)
    method: str = "extractive"


def _relevance(item: SourceItem, keywords: list[str]) -> int:
    text = f"{item.title} {item.summary}".lower()
    return sum(1 for k in keywords if k.lower() in text)


def items_select(
    candidates: list[SourceItem], *, window: TimeWindow, keywords: list[str]
) -> tuple[list[SourceItem], bool]:
    """Pick what the summary gets: items inside the window (all of them when none is), relevant
    first, then newest; numbered 1..n. Returns the items and whether the window held any."""
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
    numbered = [_renumber(item, n) for n, item in enumerate(chosen, start=1)]
    return numbered, in_window


def _in_window(item: SourceItem, window: TimeWindow) -> bool:
    if window.start is None or item.published_at is None:
        return window.start is None
    end_ok = window.end is None or item.published_at <= window.end
    return item.published_at >= window.start and end_ok


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
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "time not given"


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


def _escape(text: str) -> str:
    """Item text is data: keep it from forming markdown links, images, html or headings."""
    return re.sub(r"([\\`*_{}\[\]<>()#!|])", r"\\\1", " ".join(text.split()))


SUCCESS = ("ok", "not_modified")


def coverage_rows(attempted: list[Attempted]) -> list[dict]:
    """One row per path tried: its last outcome, items, message and how many attempts."""
    rows: dict[str, dict] = {}
    for a in attempted:
        row = rows.setdefault(a.path, {"path": a.path, "attempts": 0})
        row.update(outcome=a.outcome, items=a.items, message=a.message[:300])
        row["attempts"] += 1
        row["ok"] = a.outcome in SUCCESS
    return list(rows.values())


def coverage_markdown(attempted: list[Attempted]) -> str:
    lines = ["", "## Coverage", ""]
    for row in coverage_rows(attempted):
        result = f"{row['items']} items" if row["ok"] else row["outcome"]
        tries = f", {row['attempts']} attempts" if row["attempts"] > 1 else ""
        detail = f": {_escape(row['message'][:120])}" if row["message"] and not row["ok"] else ""
        lines.append(f"- `{row['path']}`: {result}{tries}{detail}")
    return "\n".join(lines)


def brief_extractive(
    items: list[SourceItem],
    *,
    attempted: list[Attempted],
    window: TimeWindow,
    in_window: bool,
    as_of: datetime,
) -> Draft:
    """Newest relevant items grouped by source, each with its citation and time."""
    if not items:
        return brief_nothing(attempted=attempted, as_of=as_of)
    groups: OrderedDict[str, list[SourceItem]] = OrderedDict()
    for item in items:
        groups.setdefault(f"{item.source} · {item.path}", []).append(item)
    lines = [f"As of {time_text(as_of)}, {len(items)} items from {len(groups)} sources."]
    if not in_window:
        lines.append(
            f"None of the fetched items falls in the window asked for ({window.label}); "
            "these are the newest available."
        )
    for heading, group in groups.items():
        lines += ["", f"### {_escape(heading)}", ""]
        lines += [
            f"- {_escape(i.title) or '(untitled)'} [{i.n}] ({time_text(i.published_at)})"
            for i in group
        ]
    body = "\n".join(lines) + "\n" + coverage_markdown(attempted)
    return Draft(body=body, citations=citations_of(items), method="extractive")


# RSSHub's egress was down (fetching.egress): the sources did not fail, the way to them did.
UNREACHABLE_OPENING = (
    "As of {as_of}, RSSHub cannot reach the internet right now, so no source could be read. "
    "The sources themselves did not fail; ask again once RSSHub's network is back."
)


def brief_nothing(
    *, attempted: list[Attempted], as_of: datetime, unreachable: bool = False
) -> Draft:
    """The honest brief when nothing could be fetched: what was tried and why it failed.
    ``unreachable``: RSSHub could not reach the internet, which is said first and plainly."""
    if unreachable:
        opening = UNREACHABLE_OPENING.format(as_of=time_text(as_of))
    elif attempted:
        opening = (
            f"As of {time_text(as_of)}, I could not fetch anything to answer this question: "
            f"{len(coverage_rows(attempted))} sources were tried and none returned items."
        )
    else:
        opening = (
            f"As of {time_text(as_of)}, I found no source in the catalog that fits this "
            "question, so nothing was fetched."
        )
    return Draft(body=opening + "\n" + coverage_markdown(attempted), citations=[], method="none")


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
