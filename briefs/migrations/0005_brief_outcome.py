"""An outcome on every brief, apart from its run status; succeeded briefs of before get one
from what they stored: citations (answered, or partial when a tried path failed), or none
(no_data: ``empty`` when some path answered without items, else ``unreachable``)."""

from django.db import migrations, models

BACKFILL_BATCH = 500
ANSWERED = ("ok", "not_modified", "empty")  # the source answered, with items or without


def _outcome_of(citations, coverage) -> tuple[str, str]:
    coverage = coverage if isinstance(coverage, dict) else {}
    rows = (coverage.get("succeeded") or []) + (coverage.get("failed") or [])
    answered = [r for r in rows if isinstance(r, dict) and r.get("outcome") in ANSWERED]
    if citations:
        return ("partial" if len(answered) < len(rows) else "answered"), ""
    return "no_data", ("empty" if answered else "unreachable")


def outcome_backfill(apps, schema_editor):
    Brief = apps.get_model("briefs", "Brief")
    rows = Brief.objects.filter(status="succeeded", outcome="")
    for brief in rows.only("id", "citations", "coverage").iterator(chunk_size=BACKFILL_BATCH):
        outcome, reason = _outcome_of(brief.citations, brief.coverage)
        Brief.objects.filter(pk=brief.pk).update(outcome=outcome, outcome_reason=reason)


class Migration(migrations.Migration):
    dependencies = [
        ("briefs", "0004_brief_steps_summary_and_retention_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="brief",
            name="needs",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="brief",
            name="outcome",
            field=models.CharField(
                blank=True,
                choices=[
                    ("answered", "answered"),
                    ("partial", "partial"),
                    ("no_data", "no data"),
                    ("off_topic", "off topic"),
                    ("needs_input", "needs input"),
                ],
                db_index=True,
                max_length=12,
            ),
        ),
        migrations.AddField(
            model_name="brief",
            name="outcome_reason",
            field=models.CharField(
                blank=True,
                choices=[("empty", "not found"), ("unreachable", "can't query")],
                help_text="for no_data",
                max_length=12,
            ),
        ),
        migrations.RunPython(outcome_backfill, migrations.RunPython.noop, elidable=True),
    ]
