"""``manage.py housekeep [--dry-run] [--max-seconds N]``: prune what runs write, table by table."""

from django.core.management.base import BaseCommand, CommandError

from housekeeping.lock import HousekeepingBusy
from housekeeping.services import TableResult, housekeep_run


class Command(BaseCommand):
    help = (
        "Remove fetch attempts, step logs, circuit changes, webhook deliveries, usage days and "
        "item text past their age (HOUSEKEEP_* settings). Briefs are never removed."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Count what would go; change nothing."
        )
        parser.add_argument(
            "--max-seconds",
            type=float,
            default=None,
            help="Stop between two batches after this long (the next run goes on).",
        )

    def handle(self, *args, dry_run: bool, max_seconds: float | None, **options):
        verb = "would remove" if dry_run else "removed"
        width = 30

        def line(result: TableResult) -> None:
            self.stdout.write(
                f"{result.table:<{width}} {verb} {result.rows:>10,}  ({result.seconds:.2f} s)"
            )

        try:
            report = housekeep_run(dry_run=dry_run, max_seconds=max_seconds, on_table=line)
        except HousekeepingBusy:
            raise CommandError(
                "Another housekeeping run holds the lock; try again later."
            ) from None
        total = sum(r.rows for r in report.tables)
        self.stdout.write(
            f"{'total':<{width}} {verb} {total:>10,}  ({report.seconds:.2f} s, {report.status})"
        )
