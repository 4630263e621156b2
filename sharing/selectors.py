"""Reads of the sharing app. A secret that is malformed, unknown, rotated away or revoked is
``DoesNotExist`` here and a 404 above, all alike."""

from django.db.models import QuerySet

from briefs.models import FINISHED_STATUSES, Brief
from sharing.link_secrets import link_secret_digest
from sharing.models import BriefShare, FeedKey

# What a feed entry or a shared page never shows.
UNSHOWN_FIELDS = ("coverage", "usage", "timings", "keywords", "needs", "steps_summary")


def feed_key_by_secret(secret: str) -> FeedKey:
    """The feed key ``secret`` opens, with its owner; only an active owner's key opens."""
    digest = link_secret_digest(secret)
    if digest is None:
        raise FeedKey.DoesNotExist
    return FeedKey.objects.select_related("owner").get(digest=digest, owner__is_active=True)


def feed_briefs(*, owner) -> QuerySet[Brief]:
    """The owner's finished briefs, newest first (the feed takes the first ``FEED_ENTRIES_MAX``)."""
    return (
        Brief.objects.filter(owner=owner, status__in=FINISHED_STATUSES)
        .defer(*UNSHOWN_FIELDS)
        .order_by("-created_at", "-id")
    )


def shared_brief(secret: str) -> Brief:
    """The brief a live share link ``secret`` opens; its owner must still be active."""
    digest = link_secret_digest(secret)
    if digest is None:
        raise Brief.DoesNotExist
    return Brief.objects.get(
        shares__digest=digest, shares__revoked_at__isnull=True, owner__is_active=True
    )


def brief_owned(*, owner, brief_id: int) -> None:
    """Nothing when ``owner`` has the brief; ``Brief.DoesNotExist`` otherwise."""
    if not Brief.objects.filter(owner=owner, pk=brief_id).exists():
        raise Brief.DoesNotExist


def brief_share_live(*, owner, brief_id: int) -> BriefShare | None:
    """The owner's brief's live share link, or None."""
    return BriefShare.objects.filter(
        brief_id=brief_id, brief__owner=owner, revoked_at__isnull=True
    ).first()


def shares_live(*, owner) -> list[BriefShare]:
    """The owner's live share links, newest first, each with its brief's question."""
    return list(
        BriefShare.objects.filter(brief__owner=owner, revoked_at__isnull=True)
        .select_related("brief")
        .only("secret", "created_at", "brief__question", "brief__id", "brief__owner_id")
    )
