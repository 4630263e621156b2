"""Reads for the dashboard's pages and its live stream. Every brief read is filtered by owner:
another user's brief is ``Brief.DoesNotExist`` here and a 404 (or a refused socket) above."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from django.db.models import Func, IntegerField, Prefetch, Q, QuerySet
from django.db.models.functions import Substr
from django.utils import timezone

from briefs.models import Brief, BriefStatus, RunStep, Webhook, WebhookDelivery

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

RECENT_BRIEFS = 8
FOLLOW_UP_CHOICES = 20
# Questions looked at to find FOLLOW_UP_CHOICES different ones: a bound, not a full scan.
FOLLOW_UP_SCAN = 200
# Enough of the body to find its first stories (the lead line and notes come before them).
SNIPPET_SOURCE_CHARS = 1500
STEPS_PAGE = 500
# The list pages never need a brief's large fields.
HEAVY_FIELDS = ("body", "citations", "agreements", "coverage", "usage", "timings", "keywords")


# --- briefs ---------------------------------------------------------------------------------


def briefs_of(owner: AbstractBaseUser) -> QuerySet[Brief]:
    """The only way to reach briefs from a page or the API: the owner's, newest first."""
    return Brief.objects.filter(owner=owner)


def brief_of(*, owner: AbstractBaseUser, brief_id: int) -> Brief:
    """The owner's brief ``brief_id``, or ``Brief.DoesNotExist`` (also for another's brief)."""
    return briefs_of(owner).select_related("follow_up_of").get(pk=brief_id)


def briefs_recent(*, owner: AbstractBaseUser, limit: int = RECENT_BRIEFS) -> list[Brief]:
    return list(briefs_of(owner).defer(*HEAVY_FIELDS)[:limit])


@dataclass(frozen=True)
class FollowUpChoice:
    pk: int
    question: str
    created_at: datetime


def follow_up_choices(
    *, owner: AbstractBaseUser, include: Brief | None = None
) -> list[FollowUpChoice]:
    """The owner's latest briefs to follow up, one per question (the newest brief that asked
    it), plus ``include`` if it is not among them; it stands for its question then."""
    rows = briefs_of(owner).values_list("pk", "question", "created_at")[:FOLLOW_UP_SCAN]
    chosen: dict[str, FollowUpChoice] = {}
    if include is not None:
        chosen[_question_key(include.question)] = FollowUpChoice(
            include.pk, include.question, include.created_at
        )
    for pk, question, created_at in rows:
        if len(chosen) >= FOLLOW_UP_CHOICES:
            break
        chosen.setdefault(_question_key(question), FollowUpChoice(pk, question, created_at))
    return sorted(chosen.values(), key=lambda c: (c.created_at, c.pk), reverse=True)


def _question_key(question: str) -> str:
    return " ".join(question.casefold().split())


def briefs_search(
    *,
    owner: AbstractBaseUser,
    text: str = "",
    status: str = "",
    outcome: str = "",
    created_after: datetime | None = None,
    created_before: datetime | None = None,
) -> QuerySet[Brief]:
    """The owner's briefs matching every given filter, newest first, without their large fields:
    the dashboard's list and the API's. ``text`` is searched in the question, the rewritten
    query and the body; ``created_before`` is exclusive."""
    briefs = briefs_of(owner).defer(*HEAVY_FIELDS)
    if text:
        briefs = briefs.filter(
            Q(question__icontains=text) | Q(query__icontains=text) | Q(body__icontains=text)
        )
    if status:
        briefs = briefs.filter(status=status)
    if outcome:
        briefs = briefs.filter(outcome=outcome)
    if created_after:
        briefs = briefs.filter(created_at__gte=created_after)
    if created_before:
        briefs = briefs.filter(created_at__lt=created_before)
    return briefs


def days_bounds(since: date | None, until: date | None) -> dict[str, datetime | None]:
    """``briefs_search``'s bounds for the days ``since`` to ``until`` (both included), as days
    in the current zone."""
    return {
        "created_after": _day_start(since) if since else None,
        "created_before": _day_start(until + timedelta(days=1)) if until else None,
    }


class CitationCount(Func):
    """How many entries a brief's ``citations`` JSON list has (0 when it is not a list)."""

    template = (
        "CASE WHEN jsonb_typeof(%(expressions)s) = 'array' "
        "THEN jsonb_array_length(%(expressions)s) ELSE 0 END"
    )
    output_field = IntegerField()

    def as_sqlite(self, compiler, connection, **extra):
        template = "COALESCE(json_array_length(%(expressions)s), 0)"
        return self.as_sql(compiler, connection, template=template, **extra)


def briefs_listed(briefs: QuerySet[Brief]) -> QuerySet[Brief]:
    """``briefs`` with what a row of the list shows besides the light fields: ``body_head``
    (for ``markdown.body_snippet``) and ``source_count``, computed in the same query."""
    return briefs.annotate(
        body_head=Substr("body", 1, SNIPPET_SOURCE_CHARS),
        source_count=CitationCount("citations"),
    )


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, datetime.min.time()))


def brief_queue_position(brief: Brief) -> int | None:
    """1 for the next brief a worker takes; None unless queued. Workers serve every user's
    briefs in creation order, so everyone's queued briefs count."""
    if brief.status != BriefStatus.QUEUED:
        return None
    ahead = Brief.objects.filter(status=BriefStatus.QUEUED).filter(
        Q(created_at__lt=brief.created_at) | Q(created_at=brief.created_at, pk__lt=brief.pk)
    )
    return ahead.count() + 1


def brief_steps(*, brief_id: int, after: int = 0) -> list[RunStep]:
    """Every step after ``after``, in order (read in pages of ``STEPS_PAGE``)."""
    steps: list[RunStep] = []
    while True:
        page = list(
            RunStep.objects.filter(brief_id=brief_id, seq__gt=after).order_by("seq")[:STEPS_PAGE]
        )
        steps += page
        if len(page) < STEPS_PAGE:
            return steps
        after = page[-1].seq


@dataclass(frozen=True)
class LiveState:
    """What a watcher of a running brief needs besides its steps."""

    status: str
    step_seq: int = field(compare=False)  # steps travel as steps, not as state changes
    queue_position: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    error: str

    @property
    def finished(self) -> bool:
        return self.status not in (BriefStatus.QUEUED, BriefStatus.RUNNING)

    def as_message(self) -> dict:
        return {
            "type": "status",
            "status": self.status,
            "status_label": str(BriefStatus(self.status).label),
            "finished": self.finished,
            "queue_position": self.queue_position,
            "created_at": self.created_at.isoformat(),
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "error": self.error,
        }


LIVE_FIELDS = ("pk", "status", "step_seq", "created_at", "started_at", "finished_at", "error")


def brief_live_state(*, brief_id: int, owner: AbstractBaseUser | None = None) -> LiveState | None:
    """The brief's live state (None when gone, or not ``owner``'s when an owner is given)."""
    briefs = Brief.objects.all() if owner is None else briefs_of(owner)
    brief = briefs.only(*LIVE_FIELDS).filter(pk=brief_id).first()
    if brief is None:
        return None
    return LiveState(
        status=brief.status,
        step_seq=brief.step_seq,
        queue_position=brief_queue_position(brief),
        created_at=brief.created_at,
        started_at=brief.started_at,
        finished_at=brief.finished_at,
        error=brief.error,
    )


def brief_live_read(
    *, brief_id: int, after: int, owner=None
) -> tuple[LiveState | None, list[RunStep]]:
    """The state and the steps after ``after``; the steps are read only when there are any."""
    state = brief_live_state(brief_id=brief_id, owner=owner)
    if state is None or state.step_seq <= after:
        return state, []
    return state, brief_steps(brief_id=brief_id, after=after)


# --- webhooks -------------------------------------------------------------------------------

WEBHOOK_LOG_ROWS = 10


def webhooks_with_log(*, owner, log_rows: int = WEBHOOK_LOG_ROWS) -> list[Webhook]:
    """The owner's webhooks, newest first, each with its ``log_rows`` latest deliveries in
    ``recent_deliveries`` (two queries however many webhooks there are)."""
    latest = WebhookDelivery.objects.defer("body").order_by("-created_at", "-id")
    return list(
        Webhook.objects.filter(owner=owner).prefetch_related(
            Prefetch("deliveries", queryset=latest[:log_rows], to_attr="recent_deliveries")
        )
    )
