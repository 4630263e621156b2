"""The RSSHub route catalog: platforms (RSSHub namespaces) and their routes, with route health.

Three kinds of field live side by side and are written by different hands:
- upstream fields come from RSSHub's ``/api/namespace`` and are rewritten by ``import_catalog``;
- curated fields (enabled, priority, aliases, note, fresh_seconds) belong to staff and no
  import touches them;
- health fields are written by the fetching app, one ``UPDATE`` per fetch attempt.
"""

from django.core.validators import MaxValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalog.health import CircuitState, HealthState, route_health_state


class UpstreamState(models.TextChoices):
    PRESENT = "present", _("present")
    REMOVED = "removed", _("removed upstream")


class Platform(models.Model):
    namespace = models.CharField(max_length=100, unique=True)
    # Upstream.
    name = models.CharField(max_length=300)
    url = models.CharField(max_length=500, blank=True)
    lang = models.CharField(max_length=20, blank=True)
    categories = models.JSONField(default=list, blank=True)
    description = models.TextField(blank=True)
    translations = models.JSONField(
        default=dict, blank=True, help_text=_("Names and descriptions in other languages.")
    )
    upstream_state = models.CharField(
        max_length=10, choices=UpstreamState.choices, default=UpstreamState.PRESENT
    )
    # Curated.
    aliases = models.JSONField(
        default=list, blank=True, help_text=_("Other names people use, e.g. B站 for bilibili.")
    )
    enabled = models.BooleanField(default=True)
    priority = models.IntegerField(default=0, help_text=_("Higher is preferred in search."))
    note = models.TextField(blank=True)

    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("platform")
        verbose_name_plural = _("platforms")
        ordering = ["namespace"]

    def __str__(self) -> str:
        return f"{self.name} ({self.namespace})"


class Route(models.Model):
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="routes")
    # Upstream. ``key`` is the route key relative to the namespace; ``path`` the full template.
    key = models.CharField(max_length=500)
    path = models.CharField(max_length=600, unique=True)
    name = models.CharField(max_length=500)
    description = models.TextField(blank=True)
    example = models.CharField(max_length=1000, blank=True)
    url = models.CharField(max_length=500, blank=True)
    parameters = models.JSONField(default=dict, blank=True)
    features = models.JSONField(default=dict, blank=True)
    categories = models.JSONField(default=list, blank=True)
    radar = models.JSONField(default=list, blank=True)
    translations = models.JSONField(default=dict, blank=True)
    view = models.SmallIntegerField(null=True, blank=True)
    require_config = models.BooleanField(
        default=False, help_text=_("Needs a mandatory RSSHub config variable.")
    )
    config_variables = models.JSONField(default=list, blank=True)
    require_browser = models.BooleanField(default=False)
    anti_crawler = models.BooleanField(default=False)
    nsfw = models.BooleanField(default=False)
    import_disabled_reason = models.CharField(
        max_length=300,
        blank=True,
        help_text=_("Why a fresh import brings this route in disabled (from its features)."),
    )
    upstream_state = models.CharField(
        max_length=10, choices=UpstreamState.choices, default=UpstreamState.PRESENT
    )
    # Curated.
    enabled = models.BooleanField(default=True)
    priority = models.IntegerField(default=0, help_text=_("Higher is preferred in search."))
    note = models.TextField(blank=True)
    fresh_seconds = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MaxValueValidator(24 * 3600)],
        help_text=_(
            "Serve this route's feeds from the last fetch for this many seconds (longer than "
            "the default window only; empty: the default)."
        ),
    )
    # Health (written by fetching.circuit, one UPDATE per attempt; states in catalog.health).
    attempts = models.PositiveIntegerField(default=0)
    successes = models.PositiveIntegerField(default=0)
    consecutive_failures = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(null=True, blank=True, help_text=_("EWMA of latency."))
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error_class = models.CharField(max_length=30, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    newest_item_at = models.DateTimeField(null=True, blank=True)
    circuit = models.CharField(
        max_length=10, choices=CircuitState.choices, default=CircuitState.CLOSED
    )
    circuit_open_until = models.DateTimeField(null=True, blank=True)
    circuit_probe_at = models.DateTimeField(
        null=True, blank=True, help_text=_("When the half-open probe was claimed.")
    )

    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("route")
        verbose_name_plural = _("routes")
        ordering = ["path"]
        indexes = [models.Index(fields=["platform", "enabled"])]

    def __str__(self) -> str:
        return self.path

    @property
    def success_rate(self) -> float | None:
        return self.successes / self.attempts if self.attempts else None

    @property
    def health_state(self) -> HealthState:
        """A one-word summary for staff (``catalog.health``)."""
        return route_health_state(self)


class CircuitChange(models.Model):
    """One row per change of a route's circuit state, for statistics and alerts."""

    route = models.ForeignKey(Route, on_delete=models.CASCADE, related_name="circuit_changes")
    from_state = models.CharField(max_length=10, choices=CircuitState.choices)
    to_state = models.CharField(max_length=10, choices=CircuitState.choices)
    reason = models.CharField(max_length=300, blank=True)
    open_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("circuit change")
        verbose_name_plural = _("circuit changes")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.route_id}: {self.from_state} -> {self.to_state}"
