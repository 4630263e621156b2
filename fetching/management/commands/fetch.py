"""``python manage.py fetch PATH [--json] [--force] [--refresh]``: one path through the client
and the ingest."""

import json as jsonlib

from django.core.management.base import BaseCommand, CommandError

from fetching.services import FetchResult, fetch_path_sync


class Command(BaseCommand):
    help = (
        "Fetch one RSSHub path (e.g. /36kr/newsflashes) from the best RSSHub instance through the "
        "client and "
        "the ingest, record the attempt, and print the outcome. Exit status 0 for ok and "
        "not_modified, 1 otherwise. A path fetched within its freshness window is answered from "
        "that fetch unless --refresh is given."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="a path on RSSHub, starting with /")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--force", action="store_true", help="fetch even when the route's circuit is open"
        )
        parser.add_argument(
            "--refresh", action="store_true", help="fetch even within the freshness window"
        )

    def handle(self, *args, path: str, json: bool = False, force: bool = False, **options):
        result = fetch_path_sync(path, force=force, refresh=options.get("refresh", False))
        self.stdout.write(self._json(result) if json else self._line(result))
        if not result.ok:
            raise CommandError(f"{result.outcome}: {result.message}", returncode=1)

    @staticmethod
    def _json(result: FetchResult) -> str:
        return jsonlib.dumps(result.as_dict(), ensure_ascii=False)

    @staticmethod
    def _line(result: FetchResult) -> str:
        kind = "transient" if result.transient else "semantic"
        status = f"HTTP {result.http_status}" if result.http_status else "no HTTP answer"
        text = f"{result.outcome} {result.path}: {status}, {result.latency_ms} ms"
        if result.ok or result.outcome == "empty":
            text += f", {result.items_new} new / {result.items_seen} already stored items"
        else:
            text += f" ({kind}) {result.message}"
        if result.retry_after is not None:
            text += f"; retry after {result.retry_after} s"
        if result.fetch_age_s is not None:
            text += f" (no request: from a fetch {result.fetch_age_s} s ago)"
        if result.instance:
            text += f"; via {result.instance}"
            if result.failed_over:
                text += f" after {', '.join(result.failed_over)} failed"
        return text
