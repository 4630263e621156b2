"""The unsubscribe link of a watch's email: it pauses that one watch without signing in.

The token is ``<nonce>:<timestamp>:<signature>`` (``django.core.signing.TimestampSigner``,
salted for this use): the nonce is the watch's ``unsubscribe_nonce``, 128 random bits that name
the watch without saying which (no watch or user id can be read from a link), and the signature
is what cannot be made without ``SECRET_KEY``: a nonce read from a database copy is no link.

A link stops working when

- it is older than ``UNSUBSCRIBE_MAX_AGE`` (60 days: the timestamp is signed);
- the watch's nonce changes, which it does when its feed is rotated (the owner suspects a leak)
  and when the owner resumes the watch (an old email must not pause it again);
- the owner is deactivated (as every other way to their watches, it is then a 404).

Mail clients that offer one-click unsubscribe (RFC 8058) POST to the same URL.
"""

from datetime import timedelta

from django.core import signing

from watches.models import Watch

UNSUBSCRIBE_SALT = "watches.unsubscribe.v2"
UNSUBSCRIBE_MAX_AGE = timedelta(days=60)
# A nonce (22), a timestamp (up to 7) and a signature (43) with two colons; more is not a token.
TOKEN_MAX_CHARS = 100


def unsubscribe_token(watch: Watch) -> str:
    """A new link's token for ``watch``, valid for ``UNSUBSCRIBE_MAX_AGE`` from now."""
    return signing.TimestampSigner(salt=UNSUBSCRIBE_SALT).sign(watch.unsubscribe_nonce)


def unsubscribe_watch(token: object) -> Watch | None:
    """The watch ``token`` pauses; None when it is forged, tampered with, expired, voided by a
    rotation or a resume, or its owner deactivated."""
    if not isinstance(token, str) or len(token) > TOKEN_MAX_CHARS:
        return None
    try:
        nonce = signing.TimestampSigner(salt=UNSUBSCRIBE_SALT).unsign(
            token, max_age=UNSUBSCRIBE_MAX_AGE
        )
    except signing.BadSignature:  # SignatureExpired is one too
        return None
    return Watch.objects.filter(unsubscribe_nonce=nonce, owner__is_active=True).first()
