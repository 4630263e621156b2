from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from catalog.importer import (
    CatalogSourceError,
    ImportReport,
    catalog_import,
    catalog_read_file,
)
from fetching.catalog_download import catalog_fetch


class Command(BaseCommand):
    help = (
        "Converge the route catalog on an RSSHub instance (base URL, reads /api/namespace) "
        "or a namespace JSON file (plain or gzip). Never deletes; never touches curation."
    )

    def add_arguments(self, parser):
        parser.add_argument("source", help="RSSHub base URL or path to a namespace JSON file")

    def handle(self, *args, source: str, **options):
        try:
            if source.startswith(("http://", "https://")):
                data = catalog_fetch(source, access_key=settings.RSSHUB_ACCESS_KEY)
            else:
                data = catalog_read_file(Path(source))
            report = catalog_import(data)
        except CatalogSourceError as exc:
            raise CommandError(f"catalog import refused, nothing written: {exc}") from None
        self._print(report)

    def _print(self, report: ImportReport) -> None:
        for label, counts in (("platforms", report.platforms), ("routes", report.routes)):
            self.stdout.write(
                f"{label}: {counts.added} added, {counts.updated} updated, "
                f"{counts.removed} removed upstream, {counts.unchanged} unchanged"
            )
        for line in report.skipped:
            self.stderr.write(f"skipped {line}")
        if not report.changed:
            self.stdout.write("no changes")
