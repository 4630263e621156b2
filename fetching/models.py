"""What fetching stores: feeds (one concrete path each), their items, and every attempt."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


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
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["route", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.path}: {self.outcome}"


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
