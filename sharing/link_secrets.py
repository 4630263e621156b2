"""The secrets of feed and share URLs: made, and turned into the digest they are found by.

A secret is ``secrets.token_urlsafe(32)``: 43 URL-safe base64 characters, 256 random bits. As for
API tokens (``briefs.tokens``), an unsalted SHA-256 digest suffices for a secret this random,
and as a unique index it finds the row in one query. Anything not shaped like a secret (too
long, other characters) is refused before the database is asked.
"""

import hashlib
import re
import secrets
from dataclasses import dataclass

SECRET_BYTES = 32
SECRET_RE = re.compile(r"[A-Za-z0-9_-]{43}\Z")


@dataclass(frozen=True)
class LinkSecret:
    secret: str
    digest: str


def link_secret_new() -> LinkSecret:
    secret = secrets.token_urlsafe(SECRET_BYTES)
    return LinkSecret(secret=secret, digest=_digest(secret))


def link_secret_digest(presented: object) -> str | None:
    """The digest to look ``presented`` up by, or None when it cannot be a secret at all."""
    if not isinstance(presented, str) or not SECRET_RE.match(presented):
        return None
    return _digest(presented)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()
