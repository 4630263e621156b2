"""Watches: a question that reruns on a schedule, and the record of each of its runs.

Each run is an ordinary ``Brief`` (``Brief.watch`` points back here, ``Brief.delta`` says what
was new); ``WatchRun`` keeps what only a watch needs: which slot the run was for, and whether its
end has been handled (notifications) and seen (the unread count).
"""

import secrets
from datetime import time

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.timezone import now as time_now
from django.utils.translation import gettext_lazy as _

from catalog.search_terms import MAX_QUESTION_CHARS
from watches.schedules import DAILY, HOURLY, WEEKLY, ZONE_NAME_MAX_LENGTH, Slot, zone_of

DEFAULT_TIME = time(8, 0)
DEFAULT_ZONE = "UTC"
# Runs in a row ending no_data after which a watch is failing (its owner told once).
NO_DATA_FAILING = 3


def unsubscribe_nonce_new() -> str:
    """What a watch's unsubscribe links are signed over (``watches.unsubscribe``): 128 random
    bits, made anew when the feed is rotated or the owner resumes the watch."""
    return secrets.token_urlsafe(16)


class Schedule(models.TextChoices):
    HOURLY = HOURLY, _("hourly")
    DAILY = DAILY, _("daily")
    WEEKLY = WEEKLY, _("weekly")


class Weekday(models.IntegerChoices):
    """ISO 8601 weekdays."""

    MONDAY = 1, _("Monday")
    TUESDAY = 2, _("Tuesday")
    WEDNESDAY = 3, _("Wednesday")
    THURSDAY = 4, _("Thursday")
    FRIDAY = 5, _("Friday")
    SATURDAY = 6, _("Saturday")
    SUNDAY = 7, _("Sunday")


class Watch(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="watches"
    )
    question = models.TextField(max_length=MAX_QUESTION_CHARS)
    schedule = models.CharField(max_length=10, choices=Schedule.choices, default=Schedule.DAILY)
    # Daily and weekly: the local time of the run; hourly: only its minute counts.
    time_of_day = models.TimeField(default=DEFAULT_TIME)
    weekday = models.PositiveSmallIntegerField(
        choices=Weekday.choices, null=True, blank=True, help_text=_("weekly schedules only")
    )
    timezone = models.CharField(max_length=ZONE_NAME_MAX_LENGTH, default=DEFAULT_ZONE)
    active = models.BooleanField(default=True, help_text=_("A paused watch does not run."))
    offline = models.BooleanField(default=False, help_text=_("Run without a model."))
    notify_email = models.BooleanField(default=False)
    notify_only_new = models.BooleanField(
        default=True, help_text=_("Notify only when a run found something new.")
    )
    last_run_at = models.DateTimeField(null=True, blank=True)
    next_run_at = models.DateTimeField()
    # Runs in a row that ended no_data; at NO_DATA_FAILING the watch is failing (and its owner
    # told, once) until a run brings data again (told again).
    no_data_streak = models.PositiveSmallIntegerField(default=0)
    failing = models.BooleanField(default=False)
    # The last run the owner's limits refused (``briefs.admission``): when, and which limit, in
    # English as ``QuotaExceeded.quota`` names it; the watch page says it in the reader's words.
    skipped_at = models.DateTimeField(null=True, blank=True)
    skip_reason = models.CharField(max_length=40, blank=True)
    # Whoever has the feed's URL reads the watch's briefs: rotating it cuts them off. Only the
    # SHA-256 digest of its secret is kept (``sharing.link_secrets``; the URL is shown once, when
    # made) and its first characters, to tell addresses apart. None: no address made yet.
    feed_digest = models.CharField(max_length=64, unique=True, null=True, blank=True)
    feed_hint = models.CharField(max_length=8, blank=True)
    # Unsubscribe links name the watch through this, never by id; a new one voids them all.
    unsubscribe_nonce = models.CharField(max_length=32, unique=True, default=unsubscribe_nonce_new)
    # When the owner was last emailed that a scheduled run was refused (once a day at most).
    skip_told_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=time_now)
    updated_at = models.DateTimeField(default=time_now)

    class Meta:
        verbose_name = _("watch")
        verbose_name_plural = _("watches")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["owner", "-created_at"]),
            # The dispatcher's every-minute question: which active watches are due.
            models.Index(fields=["next_run_at"], condition=Q(active=True), name="watch_due"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(weekday__isnull=True) | Q(weekday__gte=1, weekday__lte=7),
                name="watch_weekday_iso",
            ),
            models.CheckConstraint(
                condition=~Q(schedule=WEEKLY) | Q(weekday__isnull=False),
                name="watch_weekly_has_weekday",
            ),
        ]

    def __str__(self) -> str:
        return self.question[:80]

    @property
    def skip_shown(self) -> bool:
        """The last scheduled run was refused by the owner's limits (none ran since)."""
        if self.skipped_at is None:
            return False
        return self.last_run_at is None or self.skipped_at >= self.last_run_at

    @property
    def slot(self) -> Slot:
        zone = zone_of(self.timezone) or zone_of(DEFAULT_ZONE)
        weekday = self.weekday if self.schedule == WEEKLY else None
        return Slot(self.schedule, self.time_of_day, weekday, zone)


class WatchRun(models.Model):
    """One run of a watch: its brief, the slot it ran for (None: run on demand), and when its
    end was handled and seen."""

    watch = models.ForeignKey(Watch, on_delete=models.CASCADE, related_name="runs")
    brief = models.OneToOneField("briefs.Brief", on_delete=models.CASCADE, related_name="watch_run")
    due_at = models.DateTimeField(null=True, blank=True, help_text=_("the slot it ran for"))
    created_at = models.DateTimeField(default=time_now, help_text=_("when it was claimed"))
    settled_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)
    read_at = models.DateTimeField(null=True, blank=True)
    # The items the run's brief listed, as ``watches.items.Mark`` JSON: what later runs know.
    items = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name = _("watch run")
        verbose_name_plural = _("watch runs")
        ordering = ["-created_at", "-id"]
        constraints = [
            # A slot runs once, whatever number of dispatchers claimed at the same moment.
            models.UniqueConstraint(fields=["watch", "due_at"], name="watch_run_once_per_slot")
        ]
        indexes = [
            models.Index(fields=["watch", "-created_at"]),
            models.Index(fields=["created_at"], condition=Q(settled_at__isnull=True),
                         name="watch_run_unsettled"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.watch_id} -> brief {self.brief_id}"


class DigestFrequency(models.TextChoices):
    OFF = "off", _("no digest")
    DAILY = "daily", _("daily")
    WEEKLY = "weekly", _("weekly")


class WatchDigest(models.Model):
    """A person's digest email: what is new across all their watches, daily or weekly. One row
    per person, made when they first choose; none means no digest."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="watch_digest"
    )
    frequency = models.CharField(
        max_length=10, choices=DigestFrequency.choices, default=DigestFrequency.OFF
    )
    # Where the last digest's period ended (or the choice was made): the next one covers the
    # runs after it, and is due one period later. Claimed by a conditional update on it.
    covered_until = models.DateTimeField(default=time_now)
    updated_at = models.DateTimeField(default=time_now)

    class Meta:
        verbose_name = _("watch digest")
        verbose_name_plural = _("watch digests")
        indexes = [
            models.Index(
                fields=["covered_until"], condition=~Q(frequency="off"), name="watch_digest_due"
            )
        ]

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.frequency}"
