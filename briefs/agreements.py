"""A brief's stored agreement tables read back (``Brief.agreements``): the shape the agent wrote
them in (``agent.summary.agreement.StoryTable.as_dict``), whatever an older or damaged row holds.
Read by the API, the terminal, the MCP server and the watches; written by the agent
(``agent.summary.agreement_text.brief_tables``).
"""


def _numbers(value: object) -> list[int]:
    if not isinstance(value, list):
        return []
    return [n for n in value if isinstance(n, int) and not isinstance(n, bool)]


def _said(value: object) -> dict:
    said = value if isinstance(value, dict) else {}
    return {
        "source": str(said.get("source") or ""),
        "text": str(said.get("text") or ""),
        "items": _numbers(said.get("items")),
    }


def tables_read(value: object) -> list[dict]:
    """A brief's stored tables in a fixed shape (``StoryTable.as_dict``), whatever an older or
    damaged row holds: what is not a table is left out."""
    tables = []
    for table in value if isinstance(value, list) else []:
        if not isinstance(table, dict):
            continue
        agreements = [a for a in table.get("agreements") or [] if isinstance(a, dict)]
        differences = [d for d in table.get("differences") or [] if isinstance(d, dict)]
        tables.append({
            "items": _numbers(table.get("items")),
            "agreements": [
                {"kind": str(a.get("kind") or ""), "text": str(a.get("text") or ""),
                 "items": _numbers(a.get("items"))}
                for a in agreements
            ],
            "differences": [
                {"kind": str(d.get("kind") or ""),
                 "said": [_said(s) for s in d.get("said") or []]}
                for d in differences
            ],
        })  # fmt: skip
    return tables
