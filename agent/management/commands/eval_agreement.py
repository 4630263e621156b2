"""Measure the agreement check on hand-written story groups: precision and recall of flagged
differences.

Each non-blank line of FILE is a JSON object, as in ``eval/agreement-dev.jsonl``::

    {"id": "en-number-01", "lang": "en", "kind": "number", "differ": ["number"],
     "items": [{"title": "...", "text": "...", "source": "36kr",
                "published": "2026-12-01T09:00:00Z"}, ...]}

The items are one story, numbered from 1 in their order; ``differ`` names the kinds of fact
(``number``, ``date``, ``actor``) on which its outlets differ, ``[]`` when they agree or only
look alike. A flag is a (story, kind) the check reports as a difference: precision is the share
of flags the labels hold, recall the share of labelled differences flagged, over all lines and
by language.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from django.core.management.base import BaseCommand

from agent.management.eval_lines import eval_lines_read, json_object, score_text
from agent.summary.agreement import KIND_ACTOR, KIND_DATE, KIND_NUMBER, story_table
from agent.summary.draft import SourceItem

KINDS = (KIND_NUMBER, KIND_DATE, KIND_ACTOR)
LANGUAGES = ("zh", "en")


@dataclass(frozen=True)
class AgreementCase:
    line: int
    id: str
    lang: str
    kind: str
    differ: frozenset[str]
    items: tuple[SourceItem, ...]


def _string(data: dict, name: str, where: str) -> str:
    value = data.get(name, "")
    if not isinstance(value, str):
        raise ValueError(f'{where}"{name}" must be a string')
    return value


def _item(data: object, n: int) -> SourceItem:
    if not isinstance(data, dict):
        raise ValueError(f"item {n} is not a JSON object")
    where = f"item {n}: "
    published = data.get("published")
    try:
        moment = datetime.fromisoformat(published) if isinstance(published, str) else None
    except ValueError:
        moment = None
    if published is not None and (moment is None or moment.tzinfo is None):
        raise ValueError(f'{where}"published" must be an ISO time with a zone, or null')
    source = _string(data, "source", where)
    return SourceItem(
        n, n, _string(data, "title", where), "", _string(data, "text", where),
        moment.astimezone(UTC) if moment else None, f"/eval/{source}", source,
    )  # fmt: skip


def case_parse(text: str, line: int) -> AgreementCase:
    """One line of the file; ``ValueError`` saying what is wrong with it."""
    data = json_object(text)
    if data.get("lang") not in LANGUAGES:
        raise ValueError(f'"lang" must be one of {", ".join(LANGUAGES)}')
    differ = data.get("differ")
    if not isinstance(differ, list) or any(k not in KINDS for k in differ):
        raise ValueError(f'"differ" must be a list of {", ".join(KINDS)}')
    items = data.get("items")
    if not isinstance(items, list) or not 2 <= len(items) <= 5:
        raise ValueError('"items" must be a list of 2 to 5 items')
    return AgreementCase(
        line=line,
        id=_string(data, "id", ""),
        lang=data["lang"],
        kind=_string(data, "kind", ""),
        differ=frozenset(differ),
        items=tuple(_item(item, n) for n, item in enumerate(items, start=1)),
    )


def cases_read(path: str) -> list[AgreementCase]:
    """Every line of the file; ``CommandError`` naming the first bad line."""
    return eval_lines_read(path, case_parse, what="story groups")


def flags_of(case: AgreementCase) -> frozenset[str]:
    """The kinds of fact the check finds the case's outlets differ on."""
    table = story_table(case.items)
    return frozenset(d.kind for d in table.differences) if table else frozenset()


def scores_of(cases: list[AgreementCase], flags: dict[int, frozenset[str]]) -> dict:
    flagged = sum(len(flags[c.line]) for c in cases)
    labelled = sum(len(c.differ) for c in cases)
    hits = sum(len(flags[c.line] & c.differ) for c in cases)

    def share(part: int, whole: int) -> float | None:
        return round(part / whole, 4) if whole else None

    return {
        "groups": len(cases), "labelled": labelled, "flagged": flagged, "right": hits,
        "precision": share(hits, flagged), "recall": share(hits, labelled),
    }  # fmt: skip


def report_of(cases: list[AgreementCase]) -> dict:
    flags = {case.line: flags_of(case) for case in cases}
    by_lang = {
        lang: scores_of([c for c in cases if c.lang == lang], flags)
        for lang in LANGUAGES
        if any(c.lang == lang for c in cases)
    }
    wrong = [
        {"line": c.line, "id": c.id, "labelled": sorted(c.differ), "flagged": sorted(flags[c.line])}
        for c in cases
        if flags[c.line] != c.differ
    ]
    return {"totals": scores_of(cases, flags), "by_lang": by_lang, "wrong": wrong}


class Command(BaseCommand):
    help = (
        "Run the agreement check on a JSON-lines file of story groups and print precision and "
        "recall of flagged differences, overall and by language."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="JSON lines: id, lang, kind, differ, items")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print one JSON object"
        )

    def handle(self, *args, file: str, as_json: bool, **options):
        report = report_of(cases_read(file))
        if as_json:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        for line in report["wrong"]:
            self.stdout.write(
                f"line {line['line']} {line['id']}: labelled {line['labelled'] or 'none'}, "
                f"flagged {line['flagged'] or 'none'}"
            )
        self.stdout.write(
            f"\n{'':<10}{'groups':>7}{'labelled':>9}{'flagged':>8}{'precision':>11}{'recall':>8}"
        )
        self._row("all", report["totals"])
        for name, scores in report["by_lang"].items():
            self._row(f"lang {name}", scores)

    def _row(self, label: str, s: dict) -> None:
        self.stdout.write(
            f"{label:<10}{s['groups']:>7}{s['labelled']:>9}{s['flagged']:>8}"
            f"{score_text(s['precision']):>11}{score_text(s['recall']):>8}"
        )
