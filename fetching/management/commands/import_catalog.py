from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from catalog.importer import (
    CatalogSourceError,
    ImportReport,
    catalog_import,
    catalog_read_file,
)
from fetching.catalog_download import catalog_fetch, catalog_import_from_instances


class Command(BaseCommand):
    help = (
        "Converge the route catalog on every enabled RSSHub instance (no SOURCE: each one's "
        "/api/namespace, recording which instance serves which namespace), on one RSSHub base "
        "URL, or on a namespace JSON file (plain or gzip). Never deletes; never touches curation."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "source",
            nargs="?",
            default="",
            help="RSSHub base URL or path to a namespace JSON file (default: every instance)",
        )

    def handle(self, *args, source: str, **options):
        if not source:
            return self._from_instances()
        try:
            if source.startswith(("http://", "https://")):
                data = catalog_fetch(source, access_key=settings.RSSHUB_ACCESS_KEY)
            else:
                data = catalog_read_file(Path(source))
            report = catalog_import(data)
        except CatalogSourceError as exc:
            raise CommandError(f"catalog import refused, nothing written: {exc}") from None
        self._print(report)

    def _from_instances(self) -> None:
        try:
            report, found = catalog_import_from_instances()
        except CatalogSourceError as exc:
            raise CommandError(f"catalog import refused, nothing written: {exc}") from None
        self._print(report)
        for instance_id, namespaces in found.served.items():
            label = found.labels[instance_id]
            self.stdout.write(f"{label}: {len(namespaces)} namespaces served")
        for label, reason in found.failed.items():
            self.stderr.write(f"{label} not read (keeps what the last import found): {reason}")

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
