"""Schedule the dispatcher (watches.tasks.dispatch) every minute, on the minute: watch slots are
whole minutes, and django-q looks at its schedules every 30 s."""

from datetime import UTC, datetime, timedelta

from django.db import migrations


def _next_minute() -> datetime:
    return datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)


def schedule_add(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.update_or_create(
        name="watches-dispatch",
        defaults={
            "func": "watches.tasks.dispatch",
            "schedule_type": "I",
            "minutes": 1,
            "repeats": -1,
            "next_run": _next_minute(),
        },
    )


def schedule_remove(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name="watches-dispatch").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("watches", "0001_initial"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]
    operations = [migrations.RunPython(schedule_add, schedule_remove)]
