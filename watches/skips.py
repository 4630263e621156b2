"""The owner is told by email that scheduled runs did not start, because their limits
(``briefs.admission``: the daily quota, the per-minute throttle, the token budget) refused them.

The watch's page says so on every visit (``Watch.skipped_at``); by email the owner is told at
most once every ``SKIP_NOTICE_EVERY``, whatever number of watches and slots were refused: 20
hourly watches past the quota make one email a day, not one per run. Only watches that notify
by email (``notify_email``) are told about: the owner chose email for those and not the others.

Whether to tell is decided under a lock on the owner's row, so two dispatchers cannot both
decide to; it runs after the dispatch's transaction commits (the refusals are then recorded),
and the email is sent outside any transaction. A send that fails gives the claim back, so the
next refusal tells instead.
"""

from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction

from watches.emails import email_send, skipped_email
from watches.models import Watch

SKIP_NOTICE_EVERY = timedelta(days=1)


def watch_skips_tell_on_commit(skipped: dict[int, list[int]], *, now: datetime) -> None:
    """Tell each owner in ``skipped`` (owner id -> ids of their watches refused at ``now``)
    once the current transaction commits."""
    for owner_id, watch_ids in skipped.items():
        transaction.on_commit(
            lambda o=owner_id, ids=watch_ids: watch_skips_tell(owner_id=o, watch_ids=ids, now=now)
        )


def watch_skips_claim(*, owner_id: int, watch_ids: list[int], now: datetime) -> list[Watch]:
    """The watches to tell their owner about now, marked told; none when the owner was told
    within ``SKIP_NOTICE_EVERY``, is deactivated or has no email address."""
    with transaction.atomic():
        owner = (
            get_user_model()
            .objects.select_for_update()
            .filter(pk=owner_id, is_active=True)
            .exclude(email="")
            .first()
        )
        if owner is None:
            return []
        recent = Watch.objects.filter(owner_id=owner_id, skip_told_at__gt=now - SKIP_NOTICE_EVERY)
        if recent.exists():
            return []
        told = list(
            Watch.objects.filter(
                pk__in=watch_ids, owner_id=owner_id, notify_email=True, skipped_at=now
            ).order_by("pk")
        )
        Watch.objects.filter(pk__in=[w.pk for w in told]).update(skip_told_at=now)
    for watch in told:
        watch.owner = owner
    return told


def watch_skips_tell(*, owner_id: int, watch_ids: list[int], now: datetime) -> bool:
    """Email the owner about their refused runs, unless told within ``SKIP_NOTICE_EVERY``;
    True when an email went."""
    told = watch_skips_claim(owner_id=owner_id, watch_ids=watch_ids, now=now)
    if not told:
        return False
    if email_send(skipped_email(told), what=f"skipped runs of user {owner_id}"):
        return True
    Watch.objects.filter(pk__in=[w.pk for w in told], skip_told_at=now).update(skip_told_at=None)
    return False
