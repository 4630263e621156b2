"""Invitations: made by staff, opened once by the person invited, who picks a name and password.

Taking an invitation is a compare-and-set on its row (unused and unexpired → used) in the same
transaction as the account it makes: two people opening one link at once make one account, and
an account that cannot be made (its name taken meanwhile) leaves the invitation unused.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Invitation
from sharing.link_secrets import link_secret_digest, link_secret_new


class InvitationClosed(Exception):
    """The link is not an invitation that can be taken: unknown, malformed, used or expired."""


def invitation_issue(*, invitation: Invitation, created_by: AbstractBaseUser | None) -> str:
    """Save the new ``invitation`` (its note as given) with a fresh secret and its expiry;
    the secret, which is kept nowhere: the caller shows its URL once."""
    made = link_secret_new()
    invitation.digest = made.digest
    invitation.created_by = created_by
    invitation.created_at = timezone.now()
    invitation.expires_at = invitation.created_at + timedelta(days=settings.INVITATION_DAYS)
    invitation.save()
    return made.secret


def invitation_open(secret: object) -> Invitation:
    """The invitation behind ``secret`` if it can still be taken, else ``InvitationClosed``."""
    digest = link_secret_digest(secret)
    found = Invitation.objects.filter(digest=digest).first() if digest else None
    if found is None or not found.is_open:
        raise InvitationClosed
    return found


def invitation_accept(*, secret: object, username: str, password: str) -> AbstractBaseUser:
    """The account the invitation makes; ``InvitationClosed`` when it was taken or expired
    before this request claimed it (the username and password are already validated)."""
    digest = link_secret_digest(secret)
    if digest is None:
        raise InvitationClosed
    now = timezone.now()
    try:
        with transaction.atomic():
            claimed = Invitation.objects.filter(
                digest=digest, used_at__isnull=True, expires_at__gt=now
            ).update(used_at=now)
            if claimed != 1:
                raise InvitationClosed
            user = get_user_model().objects.create_user(username=username, password=password)
            Invitation.objects.filter(digest=digest).update(used_by=user)
    except IntegrityError:  # the name was taken between the form's check and here
        raise InvitationClosed from None
    return user
