"""What housekeeping records about itself: one row per run, and the lease that keeps two runs
apart on SQLite (PostgreSQL uses a session advisory lock instead, ``housekeeping.lock``)."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class RunStatus(models.TextChoices):
    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")
    # The run stopped at its time limit between two batches; the next run goes on from there.
    STOPPED = "stopped", _("stopped at its time limit")
    FAILED = "failed", _("failed")


class HousekeepingRun(models.Model):
    """One housekeeping run that held the lock (dry runs are not recorded)."""

    started_at = models.DateTimeField(default=timezone.now, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.RUNNING)
    # {table label: rows removed (or, for item text, cleared)}, in the order the steps ran.
    removed = models.JSONField(default=dict, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        verbose_name = _("housekeeping run")
        verbose_name_plural = _("housekeeping runs")
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"housekeeping {self.started_at:%Y-%m-%d %H:%M} {self.status}"


class HousekeepingLease(models.Model):
    """The claimed row: a run holds ``name`` while ``held_until`` is in the future."""

    name = models.CharField(max_length=50, unique=True)
    holder = models.CharField(max_length=36, blank=True)
    held_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("housekeeping lease")
        verbose_name_plural = _("housekeeping leases")

    def __str__(self) -> str:
        return f"{self.name} held until {self.held_until}"
