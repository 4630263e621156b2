"""What fetching stores: feeds (one concrete path each), their items, and every attempt."""

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalog.health import CircuitState, HealthState, health_state
from fetching.instance_url import MAX_LENGTH, InstanceURLRefused, instance_host, instance_url_clean


class Outcome(models.TextChoices):
    """The error taxonomy of DESIGN.md 2.3: every attempt ends in exactly one of these."""

    OK = "ok", _("ok")
    NOT_MODIFIED = "not_modified", _("not modified")
    EMPTY = "empty", _("empty")
    NOT_FOUND = "not_found", _("not found")
    AUTH_REQUIRED = "auth_required", _("auth required")
    NEEDS_CONFIG = "needs_config", _("needs config")
    NEEDS_BROWSER = "needs_browser", _("needs browser")
    NOT_A_FEED = "not_a_feed", _("not a feed")
    TOO_LARGE = "too_large", _("too large")
    PARSE_ERROR = "parse_error", _("parse error")
    PARSE_TIMEOUT = "parse_timeout", _("parse timeout")
    RATE_LIMITED = "rate_limited", _("rate limited")
    TIMEOUT = "timeout", _("timeout")
    UPSTREAM_ERROR = "upstream_error", _("upstream error")
    RSSHUB_UNAVAILABLE = "rsshub_unavailable", _("RSSHub unavailable")
    REJECTED = "rejected", _("rejected")


# Transient failures may succeed on retry; semantic ones will not until something changes.
TRANSIENT_OUTCOMES = frozenset(
    {
        Outcome.RATE_LIMITED,
        Outcome.TIMEOUT,
        Outcome.UPSTREAM_ERROR,
        Outcome.RSSHUB_UNAVAILABLE,
        Outcome.PARSE_TIMEOUT,
    }
)
SUCCESS_OUTCOMES = frozenset({Outcome.OK, Outcome.NOT_MODIFIED})


class Feed(models.Model):
    """One concrete RSSHub path (a route template with its parameters filled)."""

    path = models.CharField(max_length=1000, unique=True)
    route = models.ForeignKey(
        "catalog.Route", null=True, blank=True, on_delete=models.SET_NULL, related_name="feeds"
    )
    title = models.CharField(max_length=500, blank=True)
    link = models.CharField(max_length=2000, blank=True)
    etag = models.CharField(max_length=500, blank=True)
    last_modified = models.CharField(max_length=100, blank=True)
    # When RSSHub last answered for it (refreshed at most daily): housekeeping keeps its items'
    # keys while it is fetched.
    last_fetched_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("feed")
        verbose_name_plural = _("feeds")

    def __str__(self) -> str:
        return self.path


class Item(models.Model):
    feed = models.ForeignKey(Feed, on_delete=models.CASCADE, related_name="items")
    guid_hash = models.CharField(max_length=64)
    guid = models.CharField(max_length=2000, blank=True)
    title = models.CharField(max_length=1000, blank=True)
    # The feed gave no title: ``title`` is the first words of the summary.
    title_derived = models.BooleanField(default=False)
    link = models.CharField(max_length=2000, blank=True)
    summary = models.TextField(blank=True)
    author = models.CharField(max_length=500, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    first_seen_at = models.DateTimeField(default=timezone.now)
    # When an answer of its feed last listed it (refreshed at most daily): housekeeping ages the
    # item's text from here.
    last_seen_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("item")
        verbose_name_plural = _("items")
        constraints = [
            models.UniqueConstraint(fields=["feed", "guid_hash"], name="item_unique_per_feed")
        ]
        indexes = [
            models.Index(fields=["feed", "-published_at"]),
            # Housekeeping finds text to clear here; an item whose text is cleared leaves it.
            models.Index(
                fields=["last_seen_at"], condition=~models.Q(summary=""), name="item_text_age"
            ),
        ]

    def __str__(self) -> str:
        return self.title or self.link or self.guid_hash


class ItemTranslation(models.Model):
    """An item's title in another language than its own, as a model wrote it for a brief in
    that language (``agent.translate``). One per item and language, so a second brief citing the
    item, or a watch's next run, reads it here instead of asking the model again."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="translations")
    language = models.CharField(max_length=10)  # the agent's family: "zh" or "en"
    title = models.CharField(max_length=1000)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("item translation")
        verbose_name_plural = _("item translations")
        constraints = [
            models.UniqueConstraint(
                fields=["item", "language"], name="item_translation_per_language"
            )
        ]

    def __str__(self) -> str:
        return f"{self.item_id} {self.language}: {self.title[:60]}"


def instance_base_url_validate(value: str) -> None:
    try:
        instance_url_clean(value)
    except InstanceURLRefused as exc:
        raise ValidationError(str(exc)) from None


class HealthFields(models.Model):
    """What every attempt updates on the row it is credited to (``fetching.circuit``, one
    ``UPDATE`` per attempt): the same names as ``catalog.Route``'s health, so one rule writes
    them all."""

    attempts = models.PositiveIntegerField(default=0)
    successes = models.PositiveIntegerField(default=0)
    consecutive_failures = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(null=True, blank=True, help_text=_("EWMA of latency."))
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error_class = models.CharField(max_length=30, blank=True)
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        abstract = True


class RSSHubInstance(HealthFields):
    """One RSSHub instance fetches may go to (``fetching.instances`` holds the rules).

    Staff curate them in the admin; ``RSSHUB_URLS`` (or ``RSSHUB_URL``) seeds rows
    ``from_environment``, which follow the environment until staff edit them. The access key is
    stored here and never shown back: the admin says only whether one is set. Health is the
    instance's own (a refused connection, a hang, its own 5xx, its key refused): an attempt
    that says something about a route counts as a success here, since the instance answered.
    ``platforms``: the namespaces the last catalog import found on it (``catalog_read_at``);
    before any import every namespace may be sent to it.
    """

    name = models.CharField(
        max_length=100,
        blank=True,
        help_text=_("Shown to everyone (steps, banner, status); the address only to staff."),
    )
    base_url = models.CharField(
        max_length=MAX_LENGTH, unique=True, validators=[instance_base_url_validate]
    )
    access_key = models.CharField(max_length=500, blank=True)
    priority = models.IntegerField(default=0, help_text=_("Higher is tried first."))
    enabled = models.BooleanField(default=True)
    notes = models.TextField(blank=True)
    # Seeded from RSSHUB_URLS: enabled while listed there, its key RSSHUB_ACCESS_KEY; an edit in
    # the admin makes the row the staff's (both False), and the environment leaves it alone.
    from_environment = models.BooleanField(default=False)
    key_from_environment = models.BooleanField(default=False)
    # Reachability: the last /healthz probe (the banner, the status API, a failover).
    reachable = models.BooleanField(null=True, blank=True)
    reachability_checked_at = models.DateTimeField(null=True, blank=True)
    circuit = models.CharField(
        max_length=10, choices=CircuitState.choices, default=CircuitState.CLOSED
    )
    circuit_open_until = models.DateTimeField(null=True, blank=True)
    circuit_probe_at = models.DateTimeField(null=True, blank=True)
    platforms = models.ManyToManyField(
        "catalog.Platform", blank=True, related_name="rsshub_instances"
    )
    catalog_read_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-priority", "id"]
        verbose_name = _("RSSHub instance")
        verbose_name_plural = _("RSSHub instances")

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        """What people see: the name, else a number (the address is for staff only)."""
        return self.name or f"RSSHub {self.pk}"

    @property
    def host(self) -> str:
        return instance_host(self.base_url)


class InstanceCircuitChange(models.Model):
    """One row per change of an instance's circuit state (``catalog.CircuitChange`` for routes)."""

    instance = models.ForeignKey(
        RSSHubInstance, on_delete=models.CASCADE, related_name="circuit_changes"
    )
    from_state = models.CharField(max_length=10, choices=CircuitState.choices)
    to_state = models.CharField(max_length=10, choices=CircuitState.choices)
    reason = models.CharField(max_length=300, blank=True)
    open_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("instance circuit change")
        verbose_name_plural = _("instance circuit changes")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.instance_id}: {self.from_state} -> {self.to_state}"


class RouteInstanceHealth(HealthFields):
    """A route's health on one instance: the attempts that counted against (or for) the route,
    split by the instance that answered. A route broken on one instance (its IP banned there,
    a cookie or a browser missing) keeps being sent to another (``fetching.instances``)."""

    route = models.ForeignKey(
        "catalog.Route", on_delete=models.CASCADE, related_name="instance_health"
    )
    instance = models.ForeignKey(
        RSSHubInstance, on_delete=models.CASCADE, related_name="route_health"
    )

    class Meta:
        verbose_name = _("route health on an instance")
        verbose_name_plural = _("route health on instances")
        constraints = [
            models.UniqueConstraint(
                fields=["route", "instance"], name="route_instance_health_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.route_id} on {self.instance_id}"

    @property
    def health_state(self) -> HealthState:
        """The route's state on this instance (no circuit of its own: ``catalog.health``)."""
        return health_state(
            attempts=self.attempts,
            successes=self.successes,
            consecutive_failures=self.consecutive_failures,
        )


class FetchAttempt(models.Model):
    path = models.CharField(max_length=1000)
    route = models.ForeignKey(
        "catalog.Route",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="fetch_attempts",
    )
    feed = models.ForeignKey(
        Feed, null=True, blank=True, on_delete=models.SET_NULL, related_name="attempts"
    )
    # The instance that was asked (None: nothing was sent, or a client given by the caller).
    instance = models.ForeignKey(
        RSSHubInstance,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="fetch_attempts",
    )
    # A string reference: briefs depends on fetching, never the other way round.
    brief_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    outcome = models.CharField(max_length=30, choices=Outcome.choices)
    transient = models.BooleanField(default=False)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    message = models.CharField(max_length=500, blank=True)
    latency_ms = models.PositiveIntegerField(default=0)
    items_new = models.PositiveIntegerField(default=0)
    items_seen = models.PositiveIntegerField(default=0)
    retry_after = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("fetch attempt")
        verbose_name_plural = _("fetch attempts")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["route", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.path}: {self.outcome}"


class PathFetch(models.Model):
    """How one path was last fetched, shared by every worker (``fetching.flight`` holds the rules).

    ``claim_token`` / ``claim_until``: the single-flight claim, taken by compare-and-set and
    expiring by itself, so a fetcher that crashed holds its path for one claim lifetime at most
    (with ``REDIS_URL`` the claim lives in Redis and these stay empty). ``answered_at`` and the
    fields after it: how the last fetch of the path ended, whoever made it. A success or a
    semantic failure is served from here within the path's freshness window; a transient failure
    only to the runs that were waiting for that very fetch.
    """

    path = models.CharField(max_length=1000, unique=True)
    claim_token = models.CharField(max_length=32, blank=True)
    claim_until = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=30, choices=Outcome.choices, blank=True)
    transient = models.BooleanField(default=False)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    message = models.CharField(max_length=500, blank=True)
    retry_after = models.PositiveIntegerField(null=True, blank=True)
    reason = models.CharField(max_length=20, blank=True)
    route = models.ForeignKey(
        "catalog.Route", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    feed = models.ForeignKey(
        Feed, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The feed's own <ttl>, in seconds (capped): how long its publisher says it stays fresh.
    ttl_seconds = models.PositiveIntegerField(null=True, blank=True)
    # The instance that answered the last fetch (a served answer says where it came from).
    instance = models.ForeignKey(
        RSSHubInstance, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # When a run last fetched the path by force (``refresh``), across all users: one forced
    # fetch per ``FORCED_REFRESH_PATH_SECONDS``, taken by compare-and-set (``fetching.flight``).
    forced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("path fetch")
        verbose_name_plural = _("path fetches")

    def __str__(self) -> str:
        return self.path


class RSSHubEgress(models.Model):
    """Whether one RSSHub instance can reach the internet, as its last canary check found.

    Keyed by the instance's base URL (never its access key), so each instance has its own row.
    ``down_since`` set: the instance's egress is down, network-level failures are no route's
    fault, and the recovery check (every minute) clears it. ``check_claimed_at`` is the
    compare-and-set claim that keeps checks to one per instance per minute across all workers;
    ``checked_at`` is when the last check finished, so ``checked_at < check_claimed_at`` means a
    check is under way. ``fetching.egress`` holds the rules.
    """

    base_url = models.CharField(max_length=500, unique=True)
    down_since = models.DateTimeField(null=True, blank=True)
    check_claimed_at = models.DateTimeField(null=True, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    # True: the canary answered; False: it failed at the network level too; None: it said
    # nothing about the network (no canary to ask, RSSHub itself down, the canary route broken).
    last_check_ok = models.BooleanField(null=True, blank=True)
    last_check_path = models.CharField(max_length=1000, blank=True)
    last_check_message = models.CharField(max_length=500, blank=True)

    class Meta:
        verbose_name = _("RSSHub egress")
        verbose_name_plural = _("RSSHub egress")

    def __str__(self) -> str:
        return f"{self.base_url}: {'down' if self.down_since else 'up'}"
