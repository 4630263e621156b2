"""A brief as a tool gives it: a JSON object for programs, and markdown for the model.

The answer is the brief's body as the dashboard exports it (``briefs.markdown``: no raw HTML, no
link but the cited items' own), each claim cited ``[n]``; each citation says where and when the
item was published. A brief that is not finished yet is given as its id and status only.
"""

from datetime import datetime
from typing import Any

from briefs.agreements import tables_read
from briefs.markdown import Citation, brief_markdown_export, citations_read, markdown_sanitise
from briefs.models import Brief, BriefOutcome
from mcp_server.caller import Caller


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _citation(c: Citation) -> dict:
    return {
        "n": c.n,
        "title": c.title,
        "link": c.url or None,
        "source": c.source,
        "path": c.path,
        "published_at": _iso(c.published_at),
    }


def _coverage_rows(rows: Any) -> list[dict]:
    kept = []
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict):
            kept.append(
                {
                    "path": str(row.get("path", "")),
                    "outcome": str(row.get("outcome", "")),
                    "items": row["items"] if isinstance(row.get("items"), int) else 0,
                    "message": str(row.get("message", "")),
                }
            )
    return kept


def _coverage(brief: Brief) -> dict:
    coverage = brief.coverage if isinstance(brief.coverage, dict) else {}
    return {
        "tried": [str(p) for p in coverage.get("tried") or []],
        "succeeded": _coverage_rows(coverage.get("succeeded")),
        "failed": _coverage_rows(coverage.get("failed")),
    }


def brief_pending_data(brief: Brief, *, caller: Caller) -> dict:
    """What a brief still running is: its id, status and where to watch it."""
    return {
        "id": brief.pk,
        "status": brief.status,
        "finished": False,
        "question": brief.question,
        "created_at": _iso(brief.created_at),
        "dashboard_url": caller.url(brief.get_absolute_url()),
    }


def brief_data(brief: Brief, *, caller: Caller) -> dict:
    """The brief as a JSON object: the answer, its outcome, citations, coverage and times."""
    if not brief.is_finished:
        return brief_pending_data(brief, caller=caller)
    citations = citations_read(brief.citations)
    return {
        "id": brief.pk,
        "status": brief.status,
        "finished": True,
        **brief.outcome_payload(),
        "question": brief.question,
        "answer": markdown_sanitise(brief.body, citations).strip(),
        "citations": [_citation(c) for c in citations],
        "agreements": tables_read(brief.agreements),
        "coverage": _coverage(brief),
        "as_of": _iso(brief.as_of),
        "mode": brief.mode,
        "follow_up_of": brief.follow_up_of_id,
        "error": brief.error,
        "created_at": _iso(brief.created_at),
        "finished_at": _iso(brief.finished_at),
        "dashboard_url": caller.url(brief.get_absolute_url()),
    }


def _coverage_line(coverage: dict) -> str:
    ok = [f"{r['path']} ({r['items']} items)" for r in coverage["succeeded"]]
    failed = [f"{r['path']} ({r['outcome']}: {r['message']})".strip() for r in coverage["failed"]]
    parts = [f"read {', '.join(ok)}" if ok else "no source could be read"]
    if failed:
        parts.append(f"failed {', '.join(failed)}")
    return "Coverage: " + "; ".join(parts) + "."


def _needs_lines(data: dict) -> list[str]:
    lines = ["", "The question lacks a value a source needs:"]
    for need in data.get("needs") or []:
        what = f": {need['description']}" if need.get("description") else ""
        how = f" (written as {need['format']})" if need.get("format") else ""
        lines.append(f"- {need['parameter']}{what}{how}")
    lines.append(f"Ask again with follow_up (id {data['id']}), giving it in the question.")
    return lines


def brief_markdown(brief: Brief, data: dict) -> str:
    """The brief as the model reads it: where it stands, then the answer and its sources."""
    if not data["finished"]:
        return (
            f"Brief {data['id']} is {data['status']}: not ready yet. Read it later with "
            f"get_brief (id {data['id']}), or watch it at {data['dashboard_url']}.\n"
        )
    head = [
        f"Brief {data['id']}: {data['status']}"
        + (f", outcome {data['outcome']}" if data["outcome"] else "")
        + (f" ({data['reason']})" if data["reason"] else "")
        + (f", as of {data['as_of']}" if data["as_of"] else "")
        + ".",
        f"Dashboard: {data['dashboard_url']}",
    ]
    if data["coverage"]["tried"]:
        head.append(_coverage_line(data["coverage"]))
    if data["error"]:
        head.append(f"Error: {data['error']}")
    if data["outcome"] == BriefOutcome.NEEDS_INPUT:
        head += _needs_lines(data)
    body = brief_markdown_export(
        question=brief.question, body=brief.body, citations=citations_read(brief.citations)
    )
    return "\n".join(head) + "\n\n" + body


def brief_row(brief: Brief, *, caller: Caller) -> dict:
    """One brief in a list: enough to choose which to read with get_brief."""
    return {
        "id": brief.pk,
        "question": brief.question,
        "status": brief.status,
        "outcome": brief.outcome or None,
        "reason": brief.outcome_reason or None,
        "created_at": _iso(brief.created_at),
        "finished_at": _iso(brief.finished_at),
        "dashboard_url": caller.url(brief.get_absolute_url()),
    }
