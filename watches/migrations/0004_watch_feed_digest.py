"""Watch feed secrets become a SHA-256 digest and a six-character hint (as feed keys and share
links are looked up): each existing secret is hashed, so the feed URLs already handed out keep
working. Each watch also gets the nonce its unsubscribe links are signed over."""

import hashlib
import secrets

from django.db import migrations, models

import watches.models


def secrets_hash(apps, schema_editor) -> None:
    Watch = apps.get_model("watches", "Watch")
    for watch in Watch.objects.only("pk", "feed_secret").iterator():
        Watch.objects.filter(pk=watch.pk).update(
            feed_digest=hashlib.sha256(watch.feed_secret.encode("ascii")).hexdigest(),
            feed_hint=watch.feed_secret[:6],
            unsubscribe_nonce=secrets.token_urlsafe(16),
        )


class Migration(migrations.Migration):
    dependencies = [
        ("watches", "0003_watch_skipped"),
    ]

    operations = [
        migrations.AddField(
            model_name="watch",
            name="feed_digest",
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name="watch",
            name="feed_hint",
            field=models.CharField(blank=True, max_length=8),
        ),
        migrations.AddField(
            model_name="watch",
            name="unsubscribe_nonce",
            field=models.CharField(max_length=32, null=True),
        ),
        migrations.AddField(
            model_name="watch",
            name="skip_told_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        # Irreversible: a digest gives no secret back to put into the old column.
        migrations.RunPython(secrets_hash, elidable=False),
        migrations.RemoveField(model_name="watch", name="feed_secret"),
        migrations.AlterField(
            model_name="watch",
            name="feed_digest",
            field=models.CharField(blank=True, max_length=64, null=True, unique=True),
        ),
        migrations.AlterField(
            model_name="watch",
            name="unsubscribe_nonce",
            field=models.CharField(
                default=watches.models.unsubscribe_nonce_new, max_length=32, unique=True
            ),
        ),
    ]
