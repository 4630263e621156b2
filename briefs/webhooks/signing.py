"""Signing a delivery, and checking a signature as a receiver would.

Each request carries::

    X-RSSHub-Agent-Event: brief.finished
    X-RSSHub-Agent-Delivery: <event id, a UUID; the same on every attempt>
    X-RSSHub-Agent-Timestamp: <unix seconds of this attempt>
    X-RSSHub-Agent-Signature: sha256=<hex HMAC-SHA256(secret, f"{timestamp}.{body}")>
"""

import hashlib
import hmac
import time

HEADER_EVENT = "X-RSSHub-Agent-Event"
HEADER_DELIVERY = "X-RSSHub-Agent-Delivery"
HEADER_TIMESTAMP = "X-RSSHub-Agent-Timestamp"
HEADER_SIGNATURE = "X-RSSHub-Agent-Signature"
SIGNATURE_TOLERANCE_SECONDS = 300


def webhook_signature(*, secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def webhook_signature_verify(
    *, secret: str, timestamp: str, body: bytes, signature: str, now: float | None = None
) -> bool:
    """For receivers: True when the signature matches and the timestamp is recent."""
    if not timestamp.isdigit():
        return False
    if abs((now or time.time()) - int(timestamp)) > SIGNATURE_TOLERANCE_SECONDS:
        return False
    expected = webhook_signature(secret=secret, timestamp=int(timestamp), body=body)
    return hmac.compare_digest(expected, signature)
