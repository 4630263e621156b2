"""Schedule the daily housekeeping run (housekeeping.tasks.housekeep) at 03:30 UTC, a quiet hour."""

from datetime import UTC, datetime, timedelta

from django.db import migrations


def _next_half_past_three() -> datetime:
    now = datetime.now(UTC)
    at = now.replace(hour=3, minute=30, second=0, microsecond=0)
    return at if at > now else at + timedelta(days=1)


def schedule_add(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.update_or_create(
        name="housekeeping-daily",
        defaults={
            "func": "housekeeping.tasks.housekeep",
            "schedule_type": "D",
            "repeats": -1,
            "next_run": _next_half_past_three(),
        },
    )


def schedule_remove(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name="housekeeping-daily").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("housekeeping", "0001_initial"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]
    operations = [migrations.RunPython(schedule_add, schedule_remove)]
