"""``manage.py search_routes "QUESTION"``: what route search returns for a question, with scores."""

import json
import unicodedata

from django.core.management.base import BaseCommand, CommandError

from catalog.search import SearchQuestionInvalid, SearchResult, search_catalog

MAX_LIMIT = 100


def _columns(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def _cell(text: str, width: int) -> str:
    """``text`` on one line, cut to fit ``width`` terminal columns with a space after it.

    Columns, not characters: a CJK character takes two, and tables line up only so.
    """
    text = " ".join(text.split())
    used = sum(_columns(ch) for ch in text)
    if used < width:
        return text + " " * (width - used)
    kept, used = [], 0
    for ch in text:
        if used + _columns(ch) > width - 2:
            break
        kept.append(ch)
        used += _columns(ch)
    return "".join(kept) + "\u2026" + " " * (width - used - 1)


class Command(BaseCommand):
    help = (
        "Rank catalog platforms and routes for a question, as the agent's first step does. "
        "Prints platforms then routes with scores, or with --json a list of route objects."
    )

    def add_arguments(self, parser):
        parser.add_argument("question", help="the question, in any language")
        parser.add_argument("--json", action="store_true", help="print routes as a JSON list")
        parser.add_argument("--limit", type=int, default=10, help="routes to show (1-100)")
        parser.add_argument("--platforms", type=int, default=5, help="platforms to show (1-100)")

    def handle(self, *args, question: str, limit: int, platforms: int, **options):
        for label, value in (("--limit", limit), ("--platforms", platforms)):
            if not 1 <= value <= MAX_LIMIT:
                raise CommandError(f"{label} must be between 1 and {MAX_LIMIT}, not {value}")
        try:
            result = search_catalog(question, limit=limit, platform_limit=platforms)
        except SearchQuestionInvalid as exc:
            raise CommandError(f"cannot search: {exc}") from None
        if options["json"]:
            self.stdout.write(json.dumps(self._routes_json(result), ensure_ascii=False, indent=2))
        else:
            self._print_table(result)

    def _routes_json(self, result: SearchResult) -> list[dict]:
        return [
            {
                "namespace": hit.namespace,
                "route": hit.path,
                "name": hit.name,
                "example": hit.example,
                "score": hit.score,
                "platform_score": hit.platform_score,
                "route_id": hit.route_id,
                "reasons": list(hit.reasons),
            }
            for hit in result.routes
        ]

    def _print_table(self, result: SearchResult) -> None:
        if not result.platforms and not result.routes:
            self.stdout.write("No platform or route matches this question.")
            return
        self.stdout.write("terms: " + (", ".join(result.terms) or "(none; names only)"))
        self.stdout.write("\nPlatforms")
        self.stdout.write(f"  #  {'score':>8}  {_cell('namespace', 18)}{_cell('name', 24)}why")
        for rank, hit in enumerate(result.platforms, 1):
            self.stdout.write(
                f"{rank:>3}  {hit.score:>8.2f}  {_cell(hit.namespace, 18)}{_cell(hit.name, 24)}"
                + "; ".join(hit.reasons)
            )
        self.stdout.write("\nRoutes")
        self.stdout.write(f"  #  {'score':>8}  {_cell('route', 44)}{_cell('name', 26)}example")
        for rank, hit in enumerate(result.routes, 1):
            self.stdout.write(
                f"{rank:>3}  {hit.score:>8.2f}  {_cell(hit.path, 44)}{_cell(hit.name, 26)}"
                + hit.example
            )
