"""A brief's coverage: each path a run tried (``Attempted``), as the rows stored on the brief
(``coverage_rows``), each row in one line (``row_explanation``), and the body's coverage section
found again in whichever language it was written (``coverage_stripped``).

The store's own: the agent writes the rows and the section (``agent.summary.draft``), the pages,
the shared feeds and the API read them back.
"""

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from fetching.egress import EGRESS_REASON
from fetching.models import Outcome
from fetching.outcome_text import outcome_explanation
from fetching.plaintext import text_cut


@dataclass(frozen=True)
class Attempted:
    path: str
    outcome: str
    items: int
    message: str = ""
    fetch_age_s: int | None = None  # served from a fetch this old: no request was made
    reason: str = ""  # FetchResult.reason: a cause the class alone does not say
    circuit_until: datetime | None = None  # not asked: the route's circuit is open until then
    circuit_open: bool = False


SUCCESS = ("ok", "not_modified")
MESSAGE_LIMIT = 500  # the raw message kept on a coverage row, cut after a whole word


def coverage_rows(attempted: list[Attempted], *, egress_down: bool = False) -> list[dict]:
    """One row per path tried: its last outcome, items, message and how many attempts; the
    reason and the circuit's end only when the last attempt had them. ``egress_down``: the run
    found RSSHub without internet, so a row whose RSSHub did not answer is told by that cause,
    as the brief's body tells it (``fetching.outcome_text``)."""
    rows: dict[str, dict] = {}
    for a in attempted:
        row = rows.setdefault(a.path, {"path": a.path, "attempts": 0})
        row.update(outcome=a.outcome, items=a.items, message=text_cut(a.message, MESSAGE_LIMIT))
        for key in ("fetch_age_s", "reason", "circuit_open", "circuit_until"):
            row.pop(key, None)
        if a.fetch_age_s is not None:
            row["fetch_age_s"] = a.fetch_age_s
        if a.reason:
            row["reason"] = a.reason
        if a.circuit_open:
            row["circuit_open"] = True
            row["circuit_until"] = a.circuit_until.isoformat() if a.circuit_until else None
        row["attempts"] += 1
        row["ok"] = a.outcome in SUCCESS
        if egress_down and a.outcome == Outcome.RSSHUB_UNAVAILABLE and not a.reason:
            row["reason"] = EGRESS_REASON
    return list(rows.values())


def row_explanation(row: dict) -> str:
    """A coverage row (as stored on the brief) in one line: ``fetching.outcome_text``."""
    until = row.get("circuit_until")
    try:
        until = datetime.fromisoformat(until) if isinstance(until, str) else None
    except ValueError:
        until = None
    items = row.get("items")
    return outcome_explanation(
        row.get("outcome"), path=row.get("path"), items=items if isinstance(items, int) else 0,
        reason=str(row.get("reason") or ""), circuit_open=bool(row.get("circuit_open")),
        circuit_until=until if until and until.tzinfo else None,
    )  # fmt: skip


COVERAGE_HEADING_MARK = "## "


def coverage_heading() -> str:
    """The coverage section's heading, in the active language."""
    return COVERAGE_HEADING_MARK + _("Coverage")


def coverage_stripped(body: str) -> str:
    """The body without its coverage section (``agent.summary.draft.coverage_markdown``), in
    whichever language it was written: for a page that shows the coverage as a table of its own.
    Only the section's own lines go (its heading, then list entries of paths and their details)."""
    headings = set()
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            headings.add(coverage_heading())
    lines = (body or "").split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip() in headings]
    if not starts:
        return body
    start = end = starts[-1]
    end += 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(("- `", "  - "))):
        end += 1
    return "\n".join(lines[:start] + lines[end:]).rstrip() + "\n"
