"""Schedule the sweep that settles or re-enqueues briefs whose worker vanished (briefs.tasks)."""

from django.db import migrations


def schedule_add(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.update_or_create(
        name="briefs-recover",
        defaults={
            "func": "briefs.tasks.briefs_recover",
            "schedule_type": "I",
            "minutes": 5,
            "repeats": -1,
        },
    )


def schedule_remove(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name="briefs-recover").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("briefs", "0002_api_tokens_quotas_webhooks"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]
    operations = [migrations.RunPython(schedule_add, schedule_remove)]
