"""A person's preferences, and the invitations that let a new person in.

The profile holds what a person chose once and expects kept: the zone their times are shown in,
the interface language, the language of their briefs when the ask form leaves it blank. Their
email address is the user's own ``email`` (watches write to it; password resets find it).

An invitation is a secret URL made by staff: one use, until it expires. Only the SHA-256 digest
of its secret is kept (``sharing.link_secrets``): the URL is shown once, to the staff member who
made it, and a lookup by digest says nothing of how close a guess came.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# The zone names the dashboard accepts are at most this long (briefs.middleware.zone_named).
ZONE_NAME_MAX_LENGTH = 64


class Profile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    time_zone = models.CharField(_("time zone"), max_length=ZONE_NAME_MAX_LENGTH, blank=True)
    interface_language = models.CharField(_("interface language"), max_length=10, blank=True)
    # Blank: each brief in its question's language (briefs.language).
    brief_language = models.CharField(_("brief language"), max_length=10, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return str(self.user)


class Invitation(models.Model):
    digest = models.CharField(max_length=64, unique=True)
    note = models.CharField(
        _("note"), max_length=200, blank=True, help_text=_("Whom it is for; only staff see it.")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="invitations_made",
    )  # fmt: skip
    created_at = models.DateTimeField(_("made"), default=timezone.now)
    expires_at = models.DateTimeField(_("expires"))
    used_at = models.DateTimeField(_("used"), null=True, blank=True)
    # The account it made; the row stays (as "used") when that account is deleted.
    used_by = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="invitation",
    )  # fmt: skip

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        constraints = [
            # An account comes from a used invitation only.
            models.CheckConstraint(
                condition=Q(used_by__isnull=True) | Q(used_at__isnull=False),
                name="invitation_used_by_when_used",
            )
        ]

    def __str__(self) -> str:
        return self.note or f"#{self.pk}"

    @property
    def is_open(self) -> bool:
        return self.used_at is None and self.expires_at > timezone.now()
