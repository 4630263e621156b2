"""API tokens: issue, check, revoke. Each user may hold several, each with a name.

Format: ``rsa_`` + 43 URL-safe base64 characters (32 random bytes, 256 bits). Only the SHA-256
hex digest is stored, with the first ``PREFIX_CHARS`` characters for people to tell tokens apart.

Why SHA-256 and not a slow password hash: a slow hash protects *guessable* secrets; a 256-bit
random secret cannot be brute-forced from its digest, and an unsalted digest is a unique index
we can look the token up by in one query. A leaked database therefore yields no usable token.

Why not django-rest-knox (installed): knox 5.1 supports a custom token model, but only through
the swappable ``KNOX_TOKEN_MODEL`` setting, which must be set before the model's first
migration and cannot be switched later; it revokes by deleting rows and deletes expired tokens
while authenticating (a write, and a scan of all the user's tokens, on every request), so a
caller cannot be told "expired" or "revoked" and the owner's list forgets them; and a
non-UTF-8 ``Authorization`` header raises ``UnicodeDecodeError`` inside it (a 500). The model
here is small (``briefs.models.ApiToken``) and its rules are all in this file.

Expiry: every token expires, ``API_TOKEN_TTL_DAYS`` (default 90) after it is issued unless a
shorter lifetime is asked for. Revocation sets ``revoked_at`` and keeps the row.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from briefs.errors import FieldInvalid
from briefs.models import ApiToken

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

TOKEN_MARK = "rsa_"  # noqa: S105 (a format marker, not a secret)
TOKEN_RE = re.compile(r"rsa_[A-Za-z0-9_-]{43}\Z")
PREFIX_CHARS = 12
NAME_MAX_LENGTH = 100
DEFAULT_TTL_DAYS = 90
MAX_TTL_DAYS = 3650
# ``last_used_at`` is a hint for people, not an audit log: refresh it at most this often, so a
# busy integration does not write once per request.
LAST_USED_RESOLUTION = timedelta(minutes=5)


class TokenRejected(Exception):
    """A presented token cannot authenticate; ``message`` says why, for the 401 answer."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class TokenInvalid(FieldInvalid):
    """A token cannot be issued as asked; ``field`` names the offending input."""


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    secret: str  # shown once, never stored


def token_ttl_default() -> timedelta:
    days = getattr(settings, "API_TOKEN_TTL_DAYS", DEFAULT_TTL_DAYS)
    return timedelta(days=days)


def token_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def token_name_clean(name: object) -> str:
    if not isinstance(name, str):
        raise TokenInvalid("name", "The name must be text.")
    text = " ".join(unicodedata.normalize("NFC", name).split())
    if not text:
        raise TokenInvalid("name", "The name is empty.")
    if len(text) > NAME_MAX_LENGTH:
        raise TokenInvalid("name", f"The name is longer than {NAME_MAX_LENGTH} characters.")
    if any(unicodedata.category(c) in ("Cc", "Cs", "Co") for c in text):
        raise TokenInvalid("name", "The name contains control characters.")
    return text


def token_issue(
    *, user: AbstractBaseUser, name: object, lifetime: timedelta | None = None
) -> IssuedToken:
    """A new token for ``user``; the secret in the result is the only copy there will be."""
    clean_name = token_name_clean(name)
    ttl = lifetime or token_ttl_default()
    if not timedelta(minutes=1) <= ttl <= timedelta(days=MAX_TTL_DAYS):
        raise TokenInvalid("lifetime", f"The lifetime must be 1 minute to {MAX_TTL_DAYS} days.")
    secret = TOKEN_MARK + secrets.token_urlsafe(32)
    now = timezone.now()
    token = ApiToken.objects.create(
        user=user,
        name=clean_name,
        prefix=secret[:PREFIX_CHARS],
        digest=token_digest(secret),
        created_at=now,
        expires_at=now + ttl,
    )
    return IssuedToken(token=token, secret=secret)


def token_check(secret: str) -> ApiToken:
    """The live token whose secret this is (with its user loaded), or ``TokenRejected``."""
    if not TOKEN_RE.match(secret):
        raise TokenRejected("Malformed token: expected rsa_ followed by 43 characters.")
    token = ApiToken.objects.select_related("user").filter(digest=token_digest(secret)).first()
    if token is None:
        raise TokenRejected("Invalid token.")
    now = timezone.now()
    if token.revoked_at is not None:
        raise TokenRejected("This token has been revoked.")
    if token.expires_at <= now:
        raise TokenRejected("This token has expired.")
    if not token.user.is_active:
        raise TokenRejected("The user of this token is inactive.")
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def token_revoke(*, user: AbstractBaseUser, token_id: int) -> ApiToken:
    """Revoke one of ``user``'s tokens (``ApiToken.DoesNotExist`` for anyone else's)."""
    token = ApiToken.objects.get(user=user, pk=token_id)
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db(fields=["revoked_at"])
    return token


def tokens_of(user: AbstractBaseUser) -> QuerySet[ApiToken]:
    """The user's tokens that still matter: not revoked, newest first (expired ones included,
    so their owner sees why an integration stopped)."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True)
