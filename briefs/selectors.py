"""Reads for the dashboard's pages and its live stream. Every brief read is filtered by owner:
another user's brief is ``Brief.DoesNotExist`` here and a 404 (or a refused socket) above."""

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Q, QuerySet
from django.utils import timezone

from briefs.models import Brief, BriefStatus, RunStep

RECENT_BRIEFS = 8
FOLLOW_UP_CHOICES = 20
STEPS_PAGE = 500
# The list pages never need a brief's large fields.
HEAVY_FIELDS = ("body", "citations", "coverage", "usage", "timings", "keywords")


# --- briefs ---------------------------------------------------------------------------------


def briefs_of(owner) -> QuerySet[Brief]:
    """The only way to reach briefs from a page: the owner's, newest first."""
    return Brief.objects.filter(owner=owner)


def brief_of(*, owner, brief_id: int) -> Brief:
    """The owner's brief ``brief_id``, or ``Brief.DoesNotExist`` (also for another's brief)."""
    return briefs_of(owner).select_related("follow_up_of").get(pk=brief_id)


def briefs_recent(*, owner, limit: int = RECENT_BRIEFS) -> list[Brief]:
    return list(briefs_of(owner).defer(*HEAVY_FIELDS)[:limit])


def follow_up_choices(*, owner, include: Brief | None = None) -> list[tuple[int, str]]:
    """(id, question) of the owner's latest briefs to follow up, plus ``include`` if older."""
    rows = list(briefs_of(owner).values_list("pk", "question")[:FOLLOW_UP_CHOICES])
    if include is not None and all(pk != include.pk for pk, _ in rows):
        rows.insert(0, (include.pk, include.question))
    return rows


def briefs_search(
    *,
    owner,
    text: str = "",
    status: str = "",
    outcome: str = "",
    since: date | None = None,
    until: date | None = None,
) -> QuerySet[Brief]:
    """The owner's briefs matching every given filter; dates are days in the current zone."""
    briefs = briefs_of(owner).defer(*HEAVY_FIELDS)
    if text:
        briefs = briefs.filter(
            Q(question__icontains=text) | Q(query__icontains=text) | Q(body__icontains=text)
        )
    if status:
        briefs = briefs.filter(status=status)
    if outcome:
        briefs = briefs.filter(outcome=outcome)
    if since:
        briefs = briefs.filter(created_at__gte=_day_start(since))
    if until:
        briefs = briefs.filter(created_at__lt=_day_start(until + timedelta(days=1)))
    return briefs


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


def brief_live_state(*, brief_id: int, owner=None) -> LiveState | None:
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


def brief_live_read(*, brief_id: int, after: int) -> tuple[LiveState | None, list[RunStep]]:
    """The state and the steps after ``after``; the steps are read only when there are any."""
    state = brief_live_state(brief_id=brief_id)
    if state is None or state.step_seq <= after:
        return state, []
    return state, brief_steps(brief_id=brief_id, after=after)
