"""Which items of a run a watch has reported before: the same GUID, the same link once
normalised, or the same story told by another source (``agent.summary.folding``).

Items are compared as ``Mark``s, the little of an item a watch keeps per run: its GUID, its
normalised link, its title and the opening of its text (what folding reads), and its time.
Pure functions: ``watches.delta`` loads and stores the marks.
"""

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit

from agent.summary.folding import OPENING_CHARS, stories_fold

# Query parameters that say who shared a link or how it was reached, never what it is.
TRACKING_PREFIXES = ("utm_", "_hs", "mtm_", "pk_")
TRACKING_PARAMS = frozenset(
    {
        "fbclid", "gclid", "gclsrc", "dclid", "msclkid", "yclid", "twclid", "igshid", "mc_cid",
        "mc_eid", "mkt_tok", "ref_src", "spm", "scm", "spm_id_from", "vd_source", "share_source",
        "share_medium", "share_plat", "share_from", "share_tag", "isappinstalled", "wfr",
    }
)  # fmt: skip
DEFAULT_PORTS = {"http": 80, "https": 443}
MARK_TEXT_MAX = 300  # titles are kept to this many characters


@dataclass(frozen=True)
class Mark:
    """An item as a watch remembers it. ``at`` is its published time (ISO) when it has one."""

    _TEXT = ("guid", "link", "title", "summary")

    guid: str
    link: str
    title: str
    summary: str
    at: str | None = None

    def as_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: object) -> "Mark | None":
        if not isinstance(raw, dict):
            return None
        text = {k: raw.get(k) if isinstance(raw.get(k), str) else "" for k in cls._TEXT}
        at = raw.get("at") if isinstance(raw.get("at"), str) else None
        return cls(**text, at=at)


def mark_of(*, guid: str, link: str, title: str, summary: str, at: str | None) -> Mark:
    return Mark(
        guid=guid.strip()[:MARK_TEXT_MAX],
        link=link_normalise(link),
        title=title[:MARK_TEXT_MAX],
        summary=summary[:OPENING_CHARS],
        at=at,
    )


def link_normalise(link: str) -> str:
    """The link as compared: no scheme, host in lower case without its default port, no
    trailing slash, no fragment, tracking parameters removed and the rest sorted. "" for
    something that is not an http(s) link."""
    try:
        parts = urlsplit(link.strip())
        port = parts.port
    except ValueError:
        return ""
    if parts.scheme.lower() not in DEFAULT_PORTS or not parts.hostname:
        return ""
    host = parts.hostname.lower()
    if port and port != DEFAULT_PORTS[parts.scheme.lower()]:
        host = f"{host}:{port}"
    path = parts.path.rstrip("/")
    params = [
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if not _tracking(key)
    ]
    query = urlencode(sorted(params))
    return f"{host}{path}" + (f"?{query}" if query else "")


def _tracking(key: str) -> bool:
    key = key.lower()
    return key in TRACKING_PARAMS or key.startswith(TRACKING_PREFIXES)


@dataclass(frozen=True)
class Split:
    """Which of a run's items are new (their positions), and how many stories are new and how
    many were reported before."""

    new: tuple[int, ...]
    new_stories: int
    repeated_stories: int


def split_known(current: Sequence[Mark], known: Sequence[Mark], *, fold: int) -> Split:
    """Group ``current`` into stories (folded titles, or a shared GUID or link), and mark a
    story repeated when any of its items matches a known one: by GUID or link among all of
    ``known``, by a folded title among its first ``fold`` (the newest, as the caller orders)."""
    guids = {m.guid for m in known if m.guid}
    links = {m.link for m in known if m.link}
    recent = list(known[:fold])
    groups = _stories(list(current) + recent)
    new: list[int] = []
    new_stories = repeated = 0
    for members in groups:
        mine = [i for i in members if i < len(current)]
        if not mine:
            continue
        seen = len(mine) < len(members) or any(
            (current[i].guid and current[i].guid in guids)
            or (current[i].link and current[i].link in links)
            for i in mine
        )
        if seen:
            repeated += 1
        else:
            new_stories += 1
            new.extend(mine)
    return Split(tuple(sorted(new)), new_stories, repeated)


@dataclass(frozen=True)
class _At:
    """A mark with its position, as folding sees it."""

    title: str
    summary: str
    position: int


def _stories(marks: list[Mark]) -> list[list[int]]:
    """Positions of ``marks`` grouped into stories: what ``stories_fold`` folds, joined with
    marks sharing a GUID or a link."""
    parent = list(range(len(marks)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        a, b = root(i), root(j)
        if a != b:
            parent[max(a, b)] = min(a, b)

    folded = stories_fold([_At(m.title, m.summary, i) for i, m in enumerate(marks)])
    for story in folded:
        for item in story.items[1:]:
            join(story.lead.position, item.position)
    for key in ("guid", "link"):
        first: dict[str, int] = {}
        for i, mark in enumerate(marks):
            value = getattr(mark, key)
            if value:
                join(i, first.setdefault(value, i))
    groups: dict[int, list[int]] = {}
    for i in range(len(marks)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())
