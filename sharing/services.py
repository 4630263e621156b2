"""Writes of the sharing app: the owner's feed key (made on first use, rotated on request) and
share links (one live link per brief, backed by the ``brief_share_one_live`` constraint).

Every write names the owner: another user's brief is ``Brief.DoesNotExist``, as in ``briefs``.
"""

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from briefs.errors import FieldInvalid
from briefs.models import Brief
from sharing import selectors
from sharing.link_secrets import link_secret_new
from sharing.models import BriefShare, FeedKey


class ShareRefused(FieldInvalid):
    """The brief cannot be shared (yet); ``message`` says why."""


def feed_key_of(*, owner) -> FeedKey:
    """The owner's feed key, made the first time it is asked for."""
    made = link_secret_new()
    key, _created = FeedKey.objects.get_or_create(
        owner=owner, defaults={"secret": made.secret, "digest": made.digest}
    )
    return key


def feed_key_rotate(*, owner) -> FeedKey:
    """A new secret for the owner's feed: the old URL answers 404 from now on."""
    made = link_secret_new()
    key, _created = FeedKey.objects.update_or_create(
        owner=owner,
        defaults={"secret": made.secret, "digest": made.digest, "rotated_at": timezone.now()},
    )
    return key


def brief_share_create(*, owner, brief_id: int) -> tuple[BriefShare, bool]:
    """The brief's live share link and whether it was made now (it is made when the brief has
    none). Only a finished brief is shared: a running one would show a page that never updates
    for a reader without a session."""
    brief = Brief.objects.get(owner=owner, pk=brief_id)
    if not brief.is_finished:
        raise ShareRefused("brief", _("Only a finished brief can be shared."))
    live = BriefShare.objects.filter(brief=brief, revoked_at__isnull=True).first()
    if live is not None:
        return live, False
    made = link_secret_new()
    try:
        with transaction.atomic():
            share = BriefShare.objects.create(brief=brief, secret=made.secret, digest=made.digest)
    except IntegrityError:  # a concurrent request made it first: theirs is the live link
        return BriefShare.objects.get(brief=brief, revoked_at__isnull=True), False
    return share, True


def brief_share_revoke(*, owner, brief_id: int) -> int:
    """Revokes the brief's live share link; how many were revoked (0 when none was live)."""
    selectors.brief_owned(owner=owner, brief_id=brief_id)
    return BriefShare.objects.filter(brief_id=brief_id, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
