"""Measure the support check on a file of labelled sentences: precision and recall of "kept".

Each non-blank line of FILE is a JSON object, as in ``eval/support-dev.jsonl``::

    {"id": "en-swap-01", "lang": "en", "sentence": "Xiaomi raised $2 billion [1].",
     "items": [{"title": "...", "text": "...", "link": "https://...",
                "published": "2026-11-30T08:00:00Z", "source": "outlet name"}, ...],
     "label": "supported", "kind": "number"}

The items are numbered from 1 in their order; the sentence's ``[n]`` cite them. ``lang`` is the
brief's language (``zh`` or ``en``); ``label`` says whether the items the sentence cites support
it; ``kind`` names what the line tests (swap, number, entity, partial, date, paraphrase,
translation, instruction, copy...). The sentence goes through the writer contract
(``agent.summary.claims``) exactly as a model's brief does, in the brief's language, with the
newest item's time as the run's time.

A sentence is *kept* when every sentence of the line stays as written. The label judges the
sentence with its own citations, so a sentence the check re-cited to another item was found
unsupported as cited: it counts as not kept (and is counted under ``recited``, with the item it
now cites), unless ``--recited-as-kept`` says otherwise. Precision: of the kept, the share
labelled supported; recall: of the supported, the share kept. Both are given over all lines, by
language and by kind, with what was dropped, by reason.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.core.management.base import BaseCommand

from agent.management.eval_lines import eval_lines_read, json_object, score_text
from agent.summary.claims import claims_check
from agent.summary.draft import SourceItem
from agent.summary.support import REASON_RECITED

LABELS = ("supported", "unsupported")
LANGUAGES = ("zh", "en")
ITEM_FIELDS = ("title", "text", "link", "source")


@dataclass(frozen=True)
class SupportCase:
    line: int
    id: str
    lang: str
    sentence: str
    items: tuple[SourceItem, ...]
    supported: bool
    kind: str


@dataclass
class SupportOutcome:
    case: SupportCase
    kept: bool
    reason: str = ""  # the first reason a sentence of the line was dropped for
    recited: list[int] = field(default_factory=list)  # the items a re-cited line now cites
    dropped: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict:
        case = self.case
        return {
            "line": case.line, "id": case.id, "lang": case.lang, "kind": case.kind,
            "label": LABELS[0] if case.supported else LABELS[1], "kept": self.kept,
            "correct": self.kept == case.supported, "reason": self.reason,
            "recited_to": self.recited, "sentence": case.sentence,
        }  # fmt: skip


def _text(data: dict, name: str, *, required: bool = True) -> str:
    value = data.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ValueError(f'"{name}" must be a non-empty string')
    return value


def _item(data: object, n: int) -> SourceItem:
    if not isinstance(data, dict):
        raise ValueError(f"item {n} is not a JSON object")
    values = {}
    for name in ITEM_FIELDS:
        value = data.get(name, "")
        if not isinstance(value, str):
            raise ValueError(f'item {n}: "{name}" must be a string')
        values[name] = value
    return SourceItem(
        n, n, values["title"], values["link"], values["text"], _published(data.get("published"), n),
        "/eval", values["source"],
    )  # fmt: skip


def _published(value: object, n: int) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ValueError(f'item {n}: "published" must be an ISO time with a zone, or null')
    return moment.astimezone(UTC)


def case_parse(text: str, line: int) -> SupportCase:
    """One line of the file; ``ValueError`` saying what is wrong with it."""
    data = json_object(text)
    lang, label = data.get("lang"), data.get("label")
    if lang not in LANGUAGES:
        raise ValueError(f'"lang" must be one of {", ".join(LANGUAGES)}')
    if label not in LABELS:
        raise ValueError(f'"label" must be one of {", ".join(LABELS)}')
    items = data.get("items")
    if not isinstance(items, list) or not items:
        raise ValueError('"items" must be a non-empty list')
    return SupportCase(
        line=line,
        id=_text(data, "id"),
        lang=lang,
        sentence=_text(data, "sentence"),
        items=tuple(_item(item, n) for n, item in enumerate(items, start=1)),
        supported=label == "supported",
        kind=_text(data, "kind"),
    )


def cases_read(path: str) -> list[SupportCase]:
    """Every line of the file; ``CommandError`` naming the first bad line."""
    return eval_lines_read(path, case_parse, what="sentences")


def case_judge(case: SupportCase, *, recited_as_kept: bool = False) -> SupportOutcome:
    """The line's sentence through the writer contract, as a model's brief would go."""
    dated = [i.published_at for i in case.items if i.published_at]
    now = max(dated) if dated else datetime.now(UTC)
    report = claims_check(case.sentence, list(case.items), now=now, language=case.lang)
    reasons = [r for r in report.dropped if r != REASON_RECITED]
    recited = sorted(report.cited) if report.dropped.get(REASON_RECITED) else []
    kept = report.sentences > 0 and report.kept == report.sentences
    kept = kept and (recited_as_kept or not recited)
    return SupportOutcome(case, kept, reasons[0] if reasons else "", recited, report.dropped)


def scores_of(outcomes: list[SupportOutcome]) -> dict:
    """Precision and recall of "kept" against the labels, with the counts behind them."""
    kept = [o for o in outcomes if o.kept]
    supported = [o for o in outcomes if o.case.supported]
    hits = sum(o.case.supported for o in kept)

    def share(part: int, whole: int) -> float | None:
        return round(part / whole, 4) if whole else None

    return {
        "lines": len(outcomes),
        "supported": len(supported),
        "kept": len(kept),
        "kept_supported": hits,
        "recited": sum(bool(o.recited) for o in outcomes),
        "precision": share(hits, len(kept)),
        "recall": share(hits, len(supported)),
    }


def report_of(outcomes: list[SupportOutcome]) -> dict:
    """The whole report: overall, by language, by kind, and drops by reason."""
    dropped: Counter = Counter()
    for outcome in outcomes:
        dropped.update(outcome.dropped)

    def by(key) -> dict:
        groups: dict[str, list[SupportOutcome]] = {}
        for outcome in outcomes:
            groups.setdefault(key(outcome.case), []).append(outcome)
        return {name: scores_of(group) for name, group in sorted(groups.items())}

    return {
        "totals": scores_of(outcomes),
        "by_lang": by(lambda case: case.lang),
        "by_kind": by(lambda case: case.kind),
        "dropped": dict(sorted(dropped.items())),
        "lines": [o.as_dict() for o in outcomes],
    }


class Command(BaseCommand):
    help = (
        "Run the support check on a JSON-lines file of labelled sentences and print precision "
        "and recall of kept sentences, overall, by language and by kind, and drops by reason."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="JSON lines: id, lang, sentence, items, label, kind")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print one JSON object"
        )
        parser.add_argument(
            "--recited-as-kept",
            action="store_true",
            help="count a sentence re-cited to another item as kept",
        )

    def handle(self, *args, file: str, as_json: bool, recited_as_kept: bool, **options):
        cases = cases_read(file)
        outcomes = [case_judge(case, recited_as_kept=recited_as_kept) for case in cases]
        report = report_of(outcomes)
        if as_json:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        for line in report["lines"]:
            if not line["correct"]:
                verdict = "kept" if line["kept"] else f"dropped ({line['reason'] or 'recited'})"
                self.stdout.write(
                    f"line {line['line']} {line['id']}: {line['label']}, {verdict}: "
                    f"{line['sentence'][:120]}"
                )
        self.stdout.write(f"\n{'':<14}{'lines':>6}{'kept':>6}{'precision':>11}{'recall':>8}")
        self._row("all", report["totals"])
        for name, scores in report["by_lang"].items():
            self._row(f"lang {name}", scores)
        for name, scores in report["by_kind"].items():
            self._row(f"kind {name}", scores)
        dropped = ", ".join(f"{k} {v}" for k, v in report["dropped"].items()) or "none"
        self.stdout.write(f"\ndropped by reason: {dropped}")

    def _row(self, label: str, s: dict) -> None:
        self.stdout.write(
            f"{label[:14]:<14}{s['lines']:>6}{s['kept']:>6}"
            f"{score_text(s['precision']):>11}{score_text(s['recall']):>8}"
        )
