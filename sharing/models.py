"""Ways to read briefs without signing in: the owner's feed key and share links of one brief.

Both hold a secret that is the whole credential. The secret is kept in clear because its owner
is shown the URL again (a feed reader's subscription, a link to copy); requests look it up by its
SHA-256 ``digest`` (``sharing.link_secrets``), so the time a lookup takes says nothing about how
close a guess came to a real secret.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from briefs.models import Brief

SECRET_MAX_LENGTH = 64


def secret_hint(secret: str) -> str:
    """The first characters of a secret, enough to tell two apart in a list."""
    return f"{secret[:6]}…" if secret else ""


class FeedKey(models.Model):
    """The secret in the URL of the owner's feed of all their briefs; rotating it replaces it."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="feed_key"
    )
    secret = models.CharField(max_length=SECRET_MAX_LENGTH)
    digest = models.CharField(max_length=64, unique=True)
    rotated_at = models.DateTimeField(default=timezone.now, help_text=_("when the secret was made"))

    class Meta:
        verbose_name = _("feed key")
        verbose_name_plural = _("feed keys")

    def __str__(self) -> str:
        return f"{self.owner} {secret_hint(self.secret)}"


class BriefShare(models.Model):
    """A read-only link to one brief. Revoking keeps the row; a brief has at most one live link."""

    brief = models.ForeignKey(Brief, on_delete=models.CASCADE, related_name="shares")
    secret = models.CharField(max_length=SECRET_MAX_LENGTH)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("share link")
        verbose_name_plural = _("share links")
        constraints = [
            models.UniqueConstraint(
                fields=["brief"], condition=Q(revoked_at__isnull=True), name="brief_share_one_live"
            )
        ]

    def __str__(self) -> str:
        return f"{self.brief_id} {secret_hint(self.secret)}"

    @property
    def is_live(self) -> bool:
        return self.revoked_at is None
