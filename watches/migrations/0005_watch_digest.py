"""The per-person digest choice (``WatchDigest``), and the hourly schedule that sends the digests
that are due (``watches.tasks.digests_send``)."""

from datetime import UTC, datetime, timedelta

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def _next_hour() -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)


def schedule_add(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.update_or_create(
        name="watches-digests",
        defaults={
            "func": "watches.tasks.digests_send",
            "schedule_type": "H",
            "repeats": -1,
            "next_run": _next_hour(),
        },
    )


def schedule_remove(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name="watches-digests").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("watches", "0004_watch_feed_digest"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [
        migrations.CreateModel(
            name="WatchDigest",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("frequency", models.CharField(choices=[("off", "no digest"), ("daily", "daily"), ("weekly", "weekly")], default="off", max_length=10)),
                ("covered_until", models.DateTimeField(default=django.utils.timezone.now)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("owner", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="watch_digest", to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "indexes": [models.Index(condition=models.Q(("frequency", "off"), _negated=True), fields=["covered_until"], name="watch_digest_due")],
            },
        ),
        migrations.RunPython(schedule_add, schedule_remove),
    ]  # fmt: skip
