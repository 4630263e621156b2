"""Deleting an account and everything it owns, in one transaction.

The ways in go first, so nothing new can be written for the account while it goes: its API
tokens (the API and MCP), then its share links and feed key (readers without a session). Then
what it made: briefs (their steps and watch runs go with them; a running one's worker finds its
row gone, as after ``briefs.services.brief_delete``), watches, webhooks
(with their delivery logs). Deleting the user row then takes every other row that points at it
(profile, quotas, usage counts, limits, the admin's log of it) by its foreign keys' cascade; an
invitation it came from stays, as used, without it. Its sign-in records (django-axes keeps them
by username) go too: they say when and from where the person signed in.
"""

from __future__ import annotations

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from briefs.models import ApiToken, Brief, Webhook
from sharing.models import BriefShare, FeedKey
from watches.models import Watch


def account_delete(*, user: AbstractBaseUser) -> None:
    """Delete ``user`` and everything of theirs (see the module's docstring for the order)."""
    username = user.get_username()
    with transaction.atomic():
        ApiToken.objects.filter(user=user).delete()
        BriefShare.objects.filter(brief__owner=user).delete()
        FeedKey.objects.filter(owner=user).delete()
        Brief.objects.filter(owner=user).delete()
        Watch.objects.filter(owner=user).delete()
        Webhook.objects.filter(owner=user).delete()
        for record in (AccessAttempt, AccessFailureLog, AccessLog):
            record.objects.filter(username=username).delete()
        user.delete()
