"""Writes on watches: create, change, pause, delete, run now, and starting a run's brief. Every
function that takes an ``owner`` only touches that owner's watches (another user's watch is
``Watch.DoesNotExist``, a 404 everywhere).

Input is checked here, whatever the door (API, dashboard): each problem is a ``WatchInvalid``
naming the field.
"""

import re
from datetime import datetime, time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from briefs.admission import Ask, brief_admit, briefs_admit
from briefs.errors import FieldInvalid
from briefs.language import brief_language_decide
from briefs.models import Brief, BriefStatus
from briefs.quotas import QuotaExceeded
from briefs.services import brief_cancel, question_clean
from sharing.link_secrets import link_secret_new
from watches.models import DEFAULT_TIME, DEFAULT_ZONE, Watch, WatchRun, unsubscribe_nonce_new
from watches.schedules import DAILY, HOURLY, SCHEDULES, WEEKLY, next_slot_after, zone_of
from watches.skips import watch_skips_tell_on_commit

DEFAULT_PER_USER = 20
FEED_HINT_CHARS = 6  # as ``sharing.models.secret_hint`` shows of feed keys and share links
TIME_RE = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])$")
BOOLEAN_FIELDS = ("active", "offline", "notify_email", "notify_only_new")
SCHEDULE_FIELDS = ("schedule", "time_of_day", "weekday", "timezone")


class WatchInvalid(FieldInvalid):
    """A watch cannot be made or changed as asked; ``field`` names the offending input."""


def watches_per_user() -> int:
    return getattr(settings, "WATCHES_PER_USER", DEFAULT_PER_USER)


# --- Input --------------------------------------------------------------------------------------


def time_clean(value: object) -> time:
    """A ``time``, or "HH:MM" (24-hour) text."""
    if isinstance(value, time):
        return value.replace(second=0, microsecond=0, tzinfo=None)
    if isinstance(value, str) and TIME_RE.match(value):
        hours, minutes = value.split(":")
        return time(int(hours), int(minutes))
    raise WatchInvalid("time", _("Give the time as HH:MM, 00:00 to 23:59."))


def schedule_clean(value: object) -> str:
    if value not in SCHEDULES:
        raise WatchInvalid("schedule", _("The schedule is hourly, daily or weekly."))
    return value


def weekday_clean(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 7:
        raise WatchInvalid("weekday", _("The weekday is 1 (Monday) to 7 (Sunday)."))
    return value


def timezone_clean(value: object) -> str:
    if zone_of(value) is None:
        raise WatchInvalid("timezone", _("Not a known IANA time zone, such as Europe/Berlin."))
    return value


def flag_clean(field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise WatchInvalid(field, _("Must be true or false."))
    return value


def changes_clean(owner, changes: dict, *, current: Watch | None = None) -> dict:
    """The model fields for ``changes`` (question, schedule, time, weekday, timezone and the
    flags), checked against each other and against what ``current`` already holds."""
    out: dict = {}
    if "question" in changes:
        out["question"] = question_clean(changes["question"])
    for field in BOOLEAN_FIELDS:
        if field in changes:
            out[field] = flag_clean(field, changes[field])
    if "timezone" in changes:
        out["timezone"] = timezone_clean(changes["timezone"])
    if "time" in changes and changes["time"] is not None:
        out["time_of_day"] = time_clean(changes["time"])
    schedule = schedule_clean(changes.get("schedule", current.schedule if current else DAILY))
    out["schedule"] = schedule
    weekday = changes.get("weekday")
    if schedule == WEEKLY:
        given = weekday if "weekday" in changes else (current.weekday if current else None)
        if given is None:
            raise WatchInvalid("weekday", _("A weekly watch needs a weekday, 1 to 7."))
        out["weekday"] = weekday_clean(given)
    elif weekday is not None:
        raise WatchInvalid("weekday", _("Only a weekly watch has a weekday."))
    else:
        out["weekday"] = None
    if out.get("notify_email") and not owner.email:
        raise WatchInvalid("notify_email", _("Your account has no email address to notify."))
    return out


# --- Writes -------------------------------------------------------------------------------------


def slot_next(watch: Watch, after: datetime) -> datetime:
    return next_slot_after(watch.slot, after)


def watch_create(*, owner, **changes) -> Watch:
    """A new active watch (its first run at its next slot), or ``WatchInvalid``. The count per
    user is checked under a lock on the user's row: two requests cannot both take the last place."""
    fields = changes_clean(owner, changes)
    if "question" not in fields:
        raise WatchInvalid("question", _("The question is missing."))
    fields.setdefault("timezone", DEFAULT_ZONE)
    fields.setdefault("time_of_day", time(0, 0) if fields["schedule"] == HOURLY else DEFAULT_TIME)
    now = timezone.now()
    watch = Watch(owner=owner, created_at=now, updated_at=now, **fields)
    watch.next_run_at = slot_next(watch, now)
    limit = watches_per_user()
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=owner.pk).exists()
        if Watch.objects.filter(owner=owner).count() >= limit:
            raise WatchInvalid("body", _("At most %(n)d watches per user.") % {"n": limit})
        watch.save()
    return watch


def watch_update(*, owner, watch_id: int, **changes) -> Watch:
    """Change a watch. A new schedule, or a paused watch made active, runs next at its next
    slot from now: a resumed watch does not make up for the runs it missed."""
    watch = Watch.objects.get(owner=owner, pk=watch_id)
    fields = changes_clean(owner, changes, current=watch)
    resumed = fields.get("active") is True and not watch.active
    rescheduled = any(
        fields.get(f, getattr(watch, f)) != getattr(watch, f) for f in SCHEDULE_FIELDS
    )
    for name, value in fields.items():
        setattr(watch, name, value)
    now = timezone.now()
    watch.updated_at = now
    changed = [*fields, "updated_at"]
    if resumed or rescheduled:
        watch.next_run_at = slot_next(watch, now)
        changed.append("next_run_at")
    if resumed:  # the owner undid a pause: the links in earlier emails must not pause it again
        watch.unsubscribe_nonce = unsubscribe_nonce_new()
        changed.append("unsubscribe_nonce")
    # Only what changed: a dispatcher may claim the watch meanwhile, and its next_run_at and
    # last_run_at must not be written back with what was read before the claim.
    watch.save(update_fields=changed)
    return watch


def watch_delete(*, owner, watch_id: int) -> None:
    """Delete a watch; its briefs stay (no longer linked to it)."""
    Watch.objects.get(owner=owner, pk=watch_id).delete()


def watch_feed_rotate(*, owner, watch_id: int) -> tuple[Watch, str]:
    """A new secret for the watch's feed URL, and that secret: the one time it is known (only
    its digest is kept). The old URL stops working at once, and so do the unsubscribe links
    already sent: whoever may have seen the one may have seen the others."""
    watch = Watch.objects.get(owner=owner, pk=watch_id)
    made = link_secret_new()
    watch.feed_digest, watch.feed_hint = made.digest, made.secret[:FEED_HINT_CHARS]
    watch.unsubscribe_nonce, watch.updated_at = unsubscribe_nonce_new(), timezone.now()
    watch.save(update_fields=["feed_digest", "feed_hint", "unsubscribe_nonce", "updated_at"])
    return watch, made.secret


def watch_pause(*, watch_id: int) -> bool:
    """Pause a watch (the unsubscribe link); True when it was active."""
    now = timezone.now()
    return bool(Watch.objects.filter(pk=watch_id, active=True).update(active=False, updated_at=now))


def watch_runs_read(*, watch: Watch, run_id: int | None = None) -> int:
    """Mark the watch's unread runs read (only run ``run_id``, when given)."""
    runs = WatchRun.objects.filter(watch=watch, settled_at__isnull=False, read_at__isnull=True)
    if run_id is not None:
        runs = runs.filter(pk=run_id)
    return runs.update(read_at=timezone.now())


def watch_run_now(*, owner, watch_id: int) -> Brief:
    """Run a watch at once, outside its schedule, within its owner's limits (``QuotaExceeded``
    when refused, told to whoever pressed the button, and not recorded on the watch)."""
    watch = Watch.objects.get(owner=owner, pk=watch_id)
    with transaction.atomic():
        brief_admit(user_id=owner.pk, offline=watch.offline)
        return watch_brief_start(watch, due_at=None)


def watch_slots_admit(
    slots: list[tuple[Watch, datetime | None]], *, now: datetime
) -> list[tuple[Watch, datetime | None]]:
    """The slots their owners' limits admit (``briefs.admission``), one owner at a time, in
    order; each refused one is recorded on its watch as skipped, with the limit that refused
    it, and its owner told by email (``watches.skips``: once a day at most) after the commit.
    Call inside the transaction that starts the admitted runs."""
    by_owner: dict[int, list[tuple[Watch, datetime | None]]] = {}
    for slot in slots:
        by_owner.setdefault(slot[0].owner_id, []).append(slot)
    admitted: list[tuple[Watch, datetime | None]] = []
    skipped: dict[str, list[int]] = {}  # limit -> watch ids
    refused: dict[int, list[int]] = {}  # owner id -> watch ids
    for owner_id, owned in by_owner.items():
        asks = [Ask(offline=watch.offline) for watch, _ in owned]
        for slot, answer in zip(owned, briefs_admit(user_id=owner_id, asks=asks), strict=True):
            if isinstance(answer, QuotaExceeded):
                skipped.setdefault(answer.quota, []).append(slot[0].pk)
                refused.setdefault(owner_id, []).append(slot[0].pk)
            else:
                admitted.append(slot)
    for reason, ids in skipped.items():
        Watch.objects.filter(pk__in=ids).update(skipped_at=now, skip_reason=reason)
    watch_skips_tell_on_commit(refused, now=now)
    return admitted


def watch_brief_start(watch: Watch, *, due_at: datetime | None) -> Brief:
    """The brief of one run of ``watch`` (for slot ``due_at``; None: on demand)."""
    return watch_briefs_start([(watch, due_at)])[0]


def watch_briefs_start(slots: list[tuple[Watch, datetime | None]]) -> list[Brief]:
    """Queued briefs for runs of watches, each with its run record (for its slot; None: on
    demand), handed to workers when the transaction commits. In bulk: a dispatch starts
    hundreds at once. Each is an ordinary brief of the watch's question, which
    ``question_clean`` checked when the watch was saved."""
    with transaction.atomic():
        briefs = Brief.objects.bulk_create(
            [
                Brief(
                    owner_id=w.owner_id,
                    question=w.question,
                    offline=w.offline,
                    watch=w,
                    language=brief_language_decide(chosen="", question=w.question, interface=None),
                )
                for w, _ in slots
            ]
        )
        WatchRun.objects.bulk_create(
            [
                WatchRun(watch=w, brief=b, due_at=due)
                for (w, due), b in zip(slots, briefs, strict=True)
            ]
        )
        ids = [brief.pk for brief in briefs]
        transaction.on_commit(lambda: watch_briefs_enqueue(ids))
    return briefs


def watch_briefs_enqueue(brief_ids: list[int]) -> None:
    """Hand the briefs to workers: one task each, queued in one transaction (one commit)."""
    from django_q.tasks import async_task

    with transaction.atomic():
        for brief_id in brief_ids:
            async_task("watches.tasks.watch_brief_run", brief_id, task_name=f"brief-{brief_id}")


def watch_run_cancel_if_owner_gone(brief_id: int) -> bool:
    """Cancel a watch run's queued brief whose owner was deactivated after it was queued (the
    dispatcher starts none for such an owner); True when it was cancelled."""
    brief = (
        Brief.objects.select_related("owner")
        .filter(pk=brief_id, owner__is_active=False, watch__isnull=False)
        .first()
    )
    if brief is None:
        return False
    return brief_cancel(owner=brief.owner, brief_id=brief_id).status == BriefStatus.CANCELLED
