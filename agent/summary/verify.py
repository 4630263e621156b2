"""A second opinion on a model's brief: the writer model says which sentences each cited item
supports (``CLAIMS_VERIFY=model``).

The offline support check (``agent.summary.claims``) stays the floor: this only ever removes.
The kept sentences are numbered and shown with their cited items; the model answers, as strict
JSON, ``{"items": [{"item": n, "sentences": [s, ...]}, ...]}``. A sentence stays when one of
the items it cites lists it; one that none of its items lists is dropped as
``model_unsupported``. An answer naming an item or a sentence that was not shown, or not of
that shape, is invalid (one repair turn, then the caller keeps the offline result).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent import llm
from agent.summary.claims import BULLET, ClaimsReport, sentences_split
from agent.summary.draft import CITATION_RE, SourceItem

REASON_MODEL = "model_unsupported"
MAX_SENTENCES = 200  # a kept brief has at most LLM_WRITER_MAX_SENTENCES; this bounds the answer

SYSTEM_VERIFY = (
    "You check a news brief against the feed items it cites. For each item, list the numbers of "
    "the brief's sentences that the item's text supports: every figure, name, date and claim of "
    "the sentence must be stated by that item. List a sentence under an item only when it is "
    "fully supported; when unsure, leave it out. Answer only by calling the function, with "
    "arguments that follow its schema."
)
VERIFY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "item": {"type": "integer"},
                    "sentences": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["item", "sentences"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["items"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Sentence:
    """A kept sentence of the brief: its number (from 1), line, and the items it cites."""

    n: int
    line: int
    text: str
    cites: frozenset[int]


def sentences_of(body: str) -> list[Sentence]:
    """The kept brief's sentences, numbered in order."""
    found: list[Sentence] = []
    for index, line in enumerate(body.split("\n")):
        prefix = BULLET.match(line)
        text = line[len(prefix.group(1)) :] if prefix else line
        for sentence in sentences_split(text):
            cites = frozenset(int(n) for n in CITATION_RE.findall(sentence))
            found.append(Sentence(len(found) + 1, index, sentence, cites))
    return found


def verify_prompt(sentences: Sequence[Sentence], items: Sequence[SourceItem]) -> str:
    """The items the brief cites, fenced as data, and its numbered sentences."""
    cited = {n for s in sentences for n in s.cites}
    shown = [i for i in items if i.n in cited]
    numbered = "\n".join(f"{s.n}. {s.text}" for s in sentences)
    return (
        f"{llm.fenced_items(shown)}\n\nThe brief's sentences, numbered:\n{numbered}\n\n"
        f"For each item n above, list the sentences (by number) that it supports."
    )


def verdict_read(answer: dict[str, Any], sentences: Sequence[Sentence]) -> dict[int, set[int]]:
    """Item -> the sentences the model says it supports; ``ValueError`` for an answer that is
    not of the schema's shape or names an item or sentence it was not shown."""
    rows = answer.get("items") if isinstance(answer, dict) else None
    if not isinstance(rows, list) or len(rows) > MAX_SENTENCES:
        raise ValueError('"items" must be a list of {"item", "sentences"} objects')
    shown = {n for s in sentences for n in s.cites}
    numbers = {s.n for s in sentences}
    verdict: dict[int, set[int]] = {}
    for row in rows:
        if not isinstance(row, dict) or set(row) != {"item", "sentences"}:
            raise ValueError('each entry must be an object with "item" and "sentences" only')
        item, listed = row["item"], row["sentences"]
        if not _integer(item) or item not in shown:
            raise ValueError(f"item {item!r} was not shown: only {sorted(shown)}")
        if not isinstance(listed, list) or len(listed) > MAX_SENTENCES:
            raise ValueError(f'"sentences" of item {item} must be a list of sentence numbers')
        for n in listed:
            if not _integer(n) or n not in numbers:
                raise ValueError(
                    f"sentence {n!r} does not exist: sentences are 1 to {len(numbers)}"
                )
        verdict.setdefault(item, set()).update(listed)
    return verdict


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def report_verified(
    report: ClaimsReport, sentences: Sequence[Sentence], verdict: dict[int, set[int]]
) -> ClaimsReport:
    """``report`` without the sentences no cited item of theirs supports, by the model's word."""
    rejected = {s.n for s in sentences if not any(s.n in verdict.get(n, ()) for n in s.cites)}
    if not rejected:
        return report
    lines = report.body.split("\n")
    kept_by_line: dict[int, list[str]] = {}
    for s in sentences:
        kept_by_line.setdefault(s.line, [])
        if s.n not in rejected:
            kept_by_line[s.line].append(s.text)
    for index, kept in kept_by_line.items():
        prefix = BULLET.match(lines[index])
        lines[index] = f"{prefix.group(1) if prefix else ''}{' '.join(kept)}" if kept else ""
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    dropped = report.dropped.copy()
    dropped[REASON_MODEL] += len(rejected)
    cited = {n for s in sentences if s.n not in rejected for n in s.cites}
    return ClaimsReport(
        body=body,
        cited=cited,
        produced=report.produced,
        kept=report.kept - len(rejected),
        dropped=dropped,
        invalid_numbers=list(report.invalid_numbers),
    )
