"""The run of a retelling (``briefs.translation``): the original brief's stored data in place of
rewrite, platform, route and fetch.

The summarize node then sees what it saw for the original: the items the original cited (those
housekeeping has not removed), its fetches as coverage rows (each attempt counted again, so the
coverage says "(2 attempts)" as it did), the values it asked for, its query, keywords and time
window, and its "as of" (the items are as of then, not now). Only the language differs.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from agent.context import RunContext
from agent.question import Rewrite, TimeWindow
from briefs.coverage import Attempted
from briefs.language import language_family
from briefs.models import Brief

METHOD_STORED = "stored"  # the query_rewritten step's method: read from the original brief


def retelling_load(ctx: RunContext) -> datetime:
    """Fill ``ctx`` from the original brief; the original's "as of"."""
    original = Brief.objects.get(pk=ctx.brief.translation_of_id)
    ctx.rewrite = Rewrite(
        query=original.query or original.question,
        language=language_family(ctx.brief.language),
        keywords=[str(k) for k in original.keywords if isinstance(k, str | int)],
        window=TimeWindow(
            original.window_label or "latest", original.window_start, original.window_end
        ),
        method=METHOD_STORED,
    )
    ctx.fetched_item_ids = [
        c["item_id"]
        for c in original.citations
        if isinstance(c, dict) and isinstance(c.get("item_id"), int)
    ]
    coverage = original.coverage if isinstance(original.coverage, dict) else {}
    stored = (coverage.get("succeeded") or []) + (coverage.get("failed") or [])
    rows = [r for r in stored if isinstance(r, dict)]
    tried = [str(p) for p in coverage.get("tried") or []]
    rows.sort(key=lambda r: tried.index(r.get("path")) if r.get("path") in tried else len(tried))
    ctx.attempted = [a for row in rows for a in attempts_of(row)]
    ctx.answer_paths = [str(r.get("path", "")) for r in coverage.get("succeeded") or []]
    ctx.needs = [n for n in original.needs if isinstance(n, dict)]
    return original.as_of or timezone.now()


def attempts_of(row: dict) -> list[Attempted]:
    """A stored coverage row (``agent.summary.draft.coverage_rows``) as the attempts it
    counts, in the order the original tried its paths."""
    stored_until = row.get("circuit_until")
    until = parse_datetime(stored_until) if isinstance(stored_until, str) else None
    age = row.get("fetch_age_s")
    last = Attempted(
        path=str(row.get("path", "")),
        outcome=str(row.get("outcome", "")),
        items=row["items"] if isinstance(row.get("items"), int) else 0,
        message=str(row.get("message", "")),
        fetch_age_s=age if isinstance(age, int) else None,
        reason=str(row.get("reason", "")),
        circuit_until=until,
        circuit_open=bool(row.get("circuit_open")),
    )
    count = row.get("attempts")
    return [last] * (count if isinstance(count, int) and 0 < count <= 10 else 1)
