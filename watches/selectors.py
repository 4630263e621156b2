"""Reads on watches: a user's watches, one watch's history, and the unread count."""

from django.db.models import Count, Q, QuerySet

from briefs.models import Brief, BriefStatus
from sharing.link_secrets import link_secret_digest
from watches.models import Watch, WatchRun

HISTORY_RUNS = 50


def watches_of(owner) -> QuerySet[Watch]:
    return Watch.objects.filter(owner=owner)


def watch_of(*, owner, watch_id: int) -> Watch:
    """One of ``owner``'s watches (``Watch.DoesNotExist`` for anyone else's)."""
    return watches_of(owner).get(pk=watch_id)


def watches_listed(owner) -> QuerySet[Watch]:
    """The owner's watches with the number of unread runs of each, newest first."""
    unread = Count("runs", filter=Q(runs__settled_at__isnull=False, runs__read_at__isnull=True))
    return watches_of(owner).annotate(unread=unread).order_by("-created_at", "-id")


def watch_history(watch: Watch, *, limit: int = HISTORY_RUNS) -> list[WatchRun]:
    """The watch's latest runs with their briefs (status, outcome, delta), newest first."""
    return list(
        WatchRun.objects.filter(watch=watch)
        .select_related("brief")
        .only(
            "id", "due_at", "created_at", "settled_at", "read_at", "emailed_at",
            "brief__id", "brief__status", "brief__outcome", "brief__outcome_reason",
            "brief__delta", "brief__as_of", "brief__finished_at", "brief__created_at",
            "brief__started_at",
        )
        .order_by("-created_at", "-id")[:limit]
    )  # fmt: skip


def unread_count(owner) -> int:
    """Runs of the owner's watches worth reading (something new, failing, recovered) that
    the owner has not opened yet."""
    return WatchRun.objects.filter(
        watch__owner=owner, settled_at__isnull=False, read_at__isnull=True
    ).count()


def watch_by_feed_secret(secret: str) -> Watch | None:
    """The watch whose feed URL carries ``secret``, found by its digest; None for anything not
    shaped like a secret, an unknown or rotated one, and a deactivated owner's, as their brief
    feed and share links are (a 404)."""
    digest = link_secret_digest(secret)
    if digest is None:
        return None
    return Watch.objects.filter(feed_digest=digest, owner__is_active=True).first()


def watch_feed_briefs(watch: Watch) -> QuerySet[Brief]:
    """What the watch's feed lists, newest first: its runs that said something new (every run
    with data, for a watch that notifies on every run), as its notifications do."""
    briefs = Brief.objects.filter(watch=watch, status=BriefStatus.SUCCEEDED)
    if watch.notify_only_new:
        briefs = briefs.filter(delta__new_items__gt=0)
    return briefs.order_by("-created_at", "-id")
