"""A brief can be a run of a watch (``watches``), with what was new since the watch's previous run."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("briefs", "0006_brief_refresh"),
        ("watches", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="brief",
            name="watch",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="briefs",
                to="watches.watch",
            ),
        ),
        migrations.AddField(
            model_name="brief",
            name="delta",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
