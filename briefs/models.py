"""Briefs (a question and its cited answer), the numbered step log of each run, LLM accounting."""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalog.search_terms import MAX_QUESTION_CHARS  # one limit on questions, the search's own

NEED_KEYS = ("parameter", "description", "format")  # what a needs_input brief asks, per value


class BriefStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    SUCCEEDED = "succeeded", _("succeeded")
    FAILED = "failed", _("failed")
    CANCELLED = "cancelled", _("cancelled")


FINISHED_STATUSES = (BriefStatus.SUCCEEDED, BriefStatus.FAILED, BriefStatus.CANCELLED)


class BriefOutcome(models.TextChoices):
    """What the reader got, apart from how the run ended (``agent.summary.outcome`` decides it)."""

    ANSWERED = "answered", _("answered")
    PARTIAL = "partial", _("partial")
    NO_DATA = "no_data", _("no data")
    OFF_TOPIC = "off_topic", _("off topic")
    NEEDS_INPUT = "needs_input", _("needs input")


class OutcomeReason(models.TextChoices):
    """Why a ``no_data`` brief has nothing: the sources answered empty, or none could be read."""

    EMPTY = "empty", _("not found")
    UNREACHABLE = "unreachable", _("can't query")


class Brief(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="briefs"
    )
    follow_up_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="follow_ups"
    )
    question = models.TextField(max_length=MAX_QUESTION_CHARS)
    # A run of a watch (``watches``): ``delta`` says what was new since its previous run,
    # {"since": ISO time | None, "new_items": n, "repeated_items": m}; null for other briefs.
    watch = models.ForeignKey(
        "watches.Watch", null=True, blank=True, on_delete=models.SET_NULL, related_name="briefs"
    )
    delta = models.JSONField(null=True, blank=True)
    # A retelling of another brief in another language (``briefs.translation``): written from
    # that brief's stored items, coverage and time, never fetching again.
    translation_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="translations"
    )
    offline = models.BooleanField(default=False, help_text=_("Asked to run without a model."))
    refresh = models.BooleanField(
        default=False, help_text=_("Asked to fetch anew, even a source fetched a moment ago.")
    )
    # The language the brief is written in, decided when it is asked (``briefs.language``):
    # ``en`` or ``zh-hans``, the site's own codes, so a page renders the brief in it.
    language = models.CharField(max_length=10, blank=True)
    # What the run made of the question.
    query = models.TextField(blank=True)
    keywords = models.JSONField(default=list, blank=True)
    window_start = models.DateTimeField(null=True, blank=True)
    window_end = models.DateTimeField(null=True, blank=True)
    window_label = models.CharField(max_length=50, blank=True)
    # The outcome.
    status = models.CharField(
        max_length=10, choices=BriefStatus.choices, default=BriefStatus.QUEUED, db_index=True
    )
    mode = models.CharField(max_length=200, blank=True, help_text=_("offline, or the model used"))
    body = models.TextField(blank=True)
    citations = models.JSONField(default=list, blank=True)
    # Per story told by two outlets or more: what they agree on and where they differ, with
    # item numbers (agent.summary.agreement_text.brief_tables).
    agreements = models.JSONField(default=list, blank=True)
    coverage = models.JSONField(default=dict, blank=True)
    usage = models.JSONField(default=dict, blank=True)
    timings = models.JSONField(default=dict, blank=True)
    as_of = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    # Empty while queued or running, and for failed or cancelled runs (null in the API).
    outcome = models.CharField(
        max_length=12, choices=BriefOutcome.choices, blank=True, db_index=True
    )
    outcome_reason = models.CharField(
        max_length=12, choices=OutcomeReason.choices, blank=True, help_text=_("for no_data")
    )
    # needs_input: what the question did not give, [{parameter, description, format}].
    needs = models.JSONField(default=list, blank=True)
    # Run bookkeeping.
    attempts = models.PositiveSmallIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    step_seq = models.PositiveIntegerField(default=0, help_text=_("seq of the last step"))
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Written once by housekeeping when it removes the step log of a finished brief.
    steps_pruned_at = models.DateTimeField(null=True, blank=True)
    steps_summary = models.JSONField(
        default=dict, blank=True, help_text=_("What the removed step log held (housekeeping).")
    )

    class Meta:
        verbose_name = _("brief")
        verbose_name_plural = _("briefs")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["owner", "-created_at"]),
            # Housekeeping finds briefs whose steps may go here; pruned briefs leave the index.
            models.Index(
                fields=["finished_at"],
                condition=models.Q(steps_pruned_at__isnull=True),
                name="brief_steps_unpruned",
            ),
        ]
        constraints = [
            # One live retelling per brief and language: a second reader asking for it gets the
            # first (a failed or cancelled one leaves room for another try).
            models.UniqueConstraint(
                fields=["translation_of", "language"],
                condition=models.Q(translation_of__isnull=False)
                & ~models.Q(status__in=["failed", "cancelled"]),
                name="brief_translation_per_language",
            )
        ]

    def __str__(self) -> str:
        return self.question[:80]

    def get_absolute_url(self) -> str:
        return reverse("brief-detail", args=[self.pk])

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED_STATUSES

    def outcome_payload(self) -> dict:
        """``outcome``, ``reason`` and ``needs`` as the API, webhooks and ``ask --json`` give
        them: null when unset, each need as {parameter, description, format}."""
        needs = self.needs if isinstance(self.needs, list) else []
        return {
            "outcome": self.outcome or None,
            "reason": self.outcome_reason or None,
            "needs": [
                {key: str(need.get(key) or "") for key in NEED_KEYS}
                for need in needs
                if isinstance(need, dict)
            ],
        }

    def delta_payload(self) -> dict | None:
        """What a watch's run found new, as the API and webhooks give it: {since (ISO or null),
        new_items, repeated_items}; None for a brief that is not a watch's run (or not yet)."""
        delta = self.delta if isinstance(self.delta, dict) else None
        if delta is None:
            return None
        since = delta.get("since")

        def count(key: str) -> int:
            value = delta.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        return {
            "since": since if isinstance(since, str) else None,
            "new_items": count("new_items"),
            "repeated_items": count("repeated_items"),
        }

    @staticmethod
    def group_name_of(brief_id: int) -> str:
        """The channel layer group of a brief's steps (``[A-Za-z0-9._-]`` only): the step log
        rings it, live watchers listen to it."""
        return f"brief.{brief_id}"

    @property
    def group_name(self) -> str:
        return Brief.group_name_of(self.pk)


class RunStep(models.Model):
    """One numbered entry of a brief's run; ``briefs.steps`` documents the kinds and payloads."""

    brief = models.ForeignKey(Brief, on_delete=models.CASCADE, related_name="steps")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=40)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("run step")
        verbose_name_plural = _("run steps")
        ordering = ["brief", "seq"]
        constraints = [models.UniqueConstraint(fields=["brief", "seq"], name="step_seq_unique")]

    def __str__(self) -> str:
        return f"{self.brief_id}#{self.seq} {self.kind}"


class TokenUsage(models.Model):
    """LLM tokens one user spent on one UTC day; the daily budget is checked against it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    day = models.DateField()
    tokens = models.PositiveBigIntegerField(default=0)
    calls = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("token usage")
        verbose_name_plural = _("token usage")
        constraints = [models.UniqueConstraint(fields=["user", "day"], name="token_usage_per_day")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.day}: {self.tokens}"


class LLMBreaker(models.Model):
    """Circuit breaker state per endpoint and model, shared by every worker through the database."""

    key = models.CharField(max_length=300, unique=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    open_until = models.DateTimeField(null=True, blank=True)
    probe_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("model breaker")
        verbose_name_plural = _("model breakers")

    def __str__(self) -> str:
        return self.key


# --- The integration API: tokens, daily quotas, webhooks -----------------------------------------


class ApiToken(models.Model):
    """A named API token of one user. Only the SHA-256 digest of the secret is stored;
    ``briefs.tokens.service`` documents the format and why a fast hash suffices for a random
    secret."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    # The first characters of the secret, shown in lists so people can tell tokens apart.
    prefix = models.CharField(max_length=12)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}...)"


class BriefQuotaDay(models.Model):
    """Briefs one user created through the quota on one UTC day (``briefs.quotas``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    day = models.DateField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("daily brief quota")
        verbose_name_plural = _("daily brief quotas")
        constraints = [models.UniqueConstraint(fields=["user", "day"], name="brief_quota_per_day")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.day}: {self.count}"


class UsageLimits(models.Model):
    """Staff's limits for one user or one group, in place of the settings (``briefs.quotas``).

    A blank field keeps the setting. A user's own row wins field by field; otherwise the most
    generous of their groups' rows does (a group raises its members' limits, or lowers them when
    it is their only one)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
        related_name="usage_limits",
    )  # fmt: skip
    group = models.OneToOneField(
        "auth.Group", null=True, blank=True, on_delete=models.CASCADE, related_name="usage_limits"
    )
    briefs_per_day = models.PositiveIntegerField(null=True, blank=True)
    briefs_per_minute = models.PositiveIntegerField(null=True, blank=True)
    forced_refreshes_per_hour = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        verbose_name = _("usage limits")
        verbose_name_plural = _("usage limits")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(user__isnull=True) ^ models.Q(group__isnull=True),
                name="usage_limits_user_or_group",
            )
        ]

    def __str__(self) -> str:
        return f"user {self.user_id}" if self.user_id else f"group {self.group_id}"


class Webhook(models.Model):
    """A URL of one user that receives a signed JSON event when one of their briefs finishes."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks"
    )
    url = models.CharField(max_length=2000)
    description = models.CharField(max_length=200, blank=True)
    # Kept in clear: signing needs it. Shown once, when the webhook is created.
    secret = models.CharField(max_length=100)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.url


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    DELIVERING = "delivering", _("delivering")
    SUCCEEDED = "succeeded", _("succeeded")
    FAILED = "failed", _("failed")


class WebhookDelivery(models.Model):
    """One event for one webhook and its delivery log; written by ``briefs.webhooks``."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    # The log outlives the brief: deleting a brief keeps what was sent about it.
    brief = models.ForeignKey(Brief, null=True, blank=True, on_delete=models.SET_NULL)
    event = models.CharField(max_length=40)
    event_id = models.UUIDField(unique=True)
    body = models.TextField(help_text=_("The exact JSON sent on every attempt."))
    status = models.CharField(
        max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["webhook", "brief", "event"], name="webhook_delivery_once"
            )
        ]
        indexes = [
            models.Index(fields=["webhook", "-created_at"]),
            models.Index(fields=["created_at"], name="delivery_created_at"),
        ]

    def __str__(self) -> str:
        return f"{self.event} -> {self.webhook_id}: {self.status}"
