"""Registering webhooks: the caller's URL and description, checked, and a secret of its own.

The URL is checked as an address (``briefs.webhooks.address``) when the webhook is created; its
secret signs every delivery (``briefs.webhooks.signing``) and is shown to the caller once.
"""

from __future__ import annotations

import secrets
import unicodedata
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction

from briefs.models import Webhook
from briefs.webhooks.address import WebhookInvalid, webhook_target, webhook_url_clean

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

DESCRIPTION_MAX_LENGTH = 200
DEFAULT_PER_USER = 10


def webhook_description_clean(description: object) -> str:
    if not isinstance(description, str):
        raise WebhookInvalid("description", "The description must be text.")
    text = " ".join(description.split())
    if len(text) > DESCRIPTION_MAX_LENGTH:
        message = f"The description is longer than {DESCRIPTION_MAX_LENGTH} characters."
        raise WebhookInvalid("description", message)
    if any(unicodedata.category(c) in ("Cc", "Cs", "Co") for c in text):
        raise WebhookInvalid("description", "The description contains control characters.")
    return text


def webhook_create(*, owner: AbstractBaseUser, url: object, description: object = "") -> Webhook:
    """Register a webhook (its ``secret`` is for the caller to show once), or ``WebhookInvalid``.

    The count per user is checked under a lock on the user's row, so two concurrent requests
    cannot both take the last place."""
    from django.contrib.auth import get_user_model

    clean_url = webhook_url_clean(url)
    webhook_target(clean_url)
    clean_description = webhook_description_clean(description)
    limit = getattr(settings, "WEBHOOKS_PER_USER", DEFAULT_PER_USER)
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=owner.pk).exists()
        if Webhook.objects.filter(owner=owner).count() >= limit:
            raise WebhookInvalid("url", f"At most {limit} webhooks per user.")
        return Webhook.objects.create(
            owner=owner,
            url=clean_url,
            description=clean_description,
            secret="whsec_" + secrets.token_urlsafe(32),
        )


def webhook_delete(*, owner: AbstractBaseUser, webhook_id: int) -> None:
    """Delete one of ``owner``'s webhooks with its log (``Webhook.DoesNotExist`` otherwise)."""
    Webhook.objects.get(owner=owner, pk=webhook_id).delete()
