"""Webhooks: register, sign, deliver with retries, and the one outbound HTTP path to receivers.

Event. When a brief finishes (succeeded, failed or cancelled), ``webhooks_brief_finished``
queues one ``brief.finished`` delivery per active webhook of its owner (idempotent: one
delivery per webhook, brief and event, kept unique by a constraint), and hands each to a
worker once the transaction commits. The JSON body is built once and stored, so every attempt
sends the same bytes. A ``webhook.ping`` event (``briefs.webhook_ping``) is a test that a
person asks for on the dashboard: the same headers and signature, one attempt, no retry.

Signature. Each request carries::

    X-RSSHub-Agent-Event: brief.finished
    X-RSSHub-Agent-Delivery: <event id, a UUID; the same on every attempt>
    X-RSSHub-Agent-Timestamp: <unix seconds of this attempt>
    X-RSSHub-Agent-Signature: sha256=<hex HMAC-SHA256(secret, f"{timestamp}.{body}")>

A receiver recomputes the HMAC over the timestamp, a dot and the raw body, compares in constant
time, and refuses timestamps older than a few minutes (``webhook_signature_verify``).

Addresses. Only http(s) URLs without credentials; every address the host name resolves to must
be public (``briefs.webhook_address.address_refused``: not private, loopback, link-local,
shared, multicast or reserved, and no IPv6 form of such an IPv4 address) unless
``WEBHOOK_ALLOW_PRIVATE`` is set. The check runs when a webhook is created and again before every
attempt, and the request goes to the address that was checked (the name is not resolved a second
time, so DNS rebinding cannot swap it). Redirects are not followed.

Delivery. A worker claims a delivery by compare-and-set (pending and due, or delivering with
an expired lease), makes one attempt within ``WEBHOOK_TIMEOUT`` seconds in total, and records
the result on the row. A failure is retried after a capped exponential backoff with jitter
(a django-q ONCE schedule) until ``WEBHOOK_MAX_ATTEMPTS``; a refused address fails at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import random
import secrets
import socket
import time
import unicodedata
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from briefs.errors import FieldInvalid
from briefs.models import Brief, DeliveryStatus, Webhook, WebhookDelivery
from briefs.webhook_address import address_refused

log = logging.getLogger(__name__)

EVENT_BRIEF_FINISHED = "brief.finished"
# A test delivery asked for on the dashboard (``briefs.webhook_ping``): signed and delivered
# like any event, but tried once, since its point is to show what the receiver answers now.
EVENT_PING = "webhook.ping"
HEADER_EVENT = "X-RSSHub-Agent-Event"
HEADER_DELIVERY = "X-RSSHub-Agent-Delivery"
HEADER_TIMESTAMP = "X-RSSHub-Agent-Timestamp"
HEADER_SIGNATURE = "X-RSSHub-Agent-Signature"
USER_AGENT = "RSSHubAgent-Webhooks/1.0"
URL_MAX_LENGTH = 2000
DESCRIPTION_MAX_LENGTH = 200
DEFAULT_PER_USER = 10
DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_ATTEMPTS = 6
BACKOFF_FIRST = timedelta(seconds=30)
BACKOFF_FACTOR = 4
BACKOFF_CAP = timedelta(hours=6)
SIGNATURE_TOLERANCE_SECONDS = 300
_RESOLVER = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")


class WebhookInvalid(FieldInvalid):
    """A webhook cannot be registered as asked; ``field`` names the offending input."""


@dataclass(frozen=True)
class Target:
    """Where one attempt goes: the URL with the checked address in place of the host name."""

    url: str
    host_header: str
    hostname: str
    scheme: str


@dataclass(frozen=True)
class AttemptResult:
    ok: bool
    status_code: int | None = None
    error: str = ""
    permanent: bool = False


def _setting(name: str, default):
    return getattr(settings, name, default)


# --- URLs and addresses -------------------------------------------------------------------------


def webhook_url_clean(url: object) -> str:
    """The URL if its form is acceptable (http(s), a host, no credentials), else
    ``WebhookInvalid``. Addresses are checked by ``webhook_target``."""
    if not isinstance(url, str):
        raise WebhookInvalid("url", "The URL must be text.")
    url = url.strip()
    if not url:
        raise WebhookInvalid("url", "The URL is empty.")
    if len(url) > URL_MAX_LENGTH:
        raise WebhookInvalid("url", f"The URL is longer than {URL_MAX_LENGTH} characters.")
    if any(c.isspace() or unicodedata.category(c)[0] == "C" for c in url):
        raise WebhookInvalid("url", "The URL contains spaces or control characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise WebhookInvalid("url", "The URL cannot be parsed.") from None
    if parts.scheme not in ("http", "https"):
        raise WebhookInvalid("url", "Only http and https URLs are accepted.")
    if not parts.hostname:
        raise WebhookInvalid("url", "The URL has no host.")
    if "@" in parts.netloc:
        raise WebhookInvalid("url", "The URL must not carry credentials.")
    if port == 0:
        raise WebhookInvalid("url", "The URL's port is not valid.")
    return url


def host_resolve(hostname: str, port: int) -> list[str]:
    """Every address ``hostname`` resolves to (the seam tests replace for public names)."""
    infos = socket.getaddrinfo(hostname, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def webhook_target(url: str) -> Target:
    """Resolve the URL's host and check every address; ``WebhookInvalid`` when refused."""
    url = webhook_url_clean(url)
    parts = urlsplit(url)
    hostname, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = host_resolve(hostname, port)
    except (OSError, UnicodeError):
        raise WebhookInvalid("url", f"The host name {hostname!r} does not resolve.") from None
    if not addresses:
        raise WebhookInvalid("url", f"The host name {hostname!r} does not resolve.")
    if not _setting("WEBHOOK_ALLOW_PRIVATE", False):
        refused = [a for a in addresses if address_refused(a)]
        if refused:
            raise WebhookInvalid(
                "url",
                f"The host resolves to a private, loopback or reserved address ({refused[0]}).",
            )
    try:
        pinned = httpx.URL(url).copy_with(host=addresses[0].split("%", 1)[0])
    except httpx.InvalidURL:
        raise WebhookInvalid("url", "The URL cannot be parsed.") from None
    return Target(url=str(pinned), host_header=parts.netloc, hostname=hostname, scheme=parts.scheme)


# --- Registration -------------------------------------------------------------------------------


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


def webhook_create(*, owner, url: object, description: object = "") -> Webhook:
    """Register a webhook (its ``secret`` is for the caller to show once), or ``WebhookInvalid``.

    The count per user is checked under a lock on the user's row, so two concurrent requests
    cannot both take the last place."""
    from django.contrib.auth import get_user_model

    clean_url = webhook_url_clean(url)
    webhook_target(clean_url)
    clean_description = webhook_description_clean(description)
    limit = _setting("WEBHOOKS_PER_USER", DEFAULT_PER_USER)
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


def webhook_delete(*, owner, webhook_id: int) -> None:
    """Delete one of ``owner``'s webhooks with its log (``Webhook.DoesNotExist`` otherwise)."""
    Webhook.objects.get(owner=owner, pk=webhook_id).delete()


# --- Signing ------------------------------------------------------------------------------------


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


# --- Events -------------------------------------------------------------------------------------


def brief_finished_body(brief: Brief, event_id: uuid.UUID) -> str:
    payload = {
        "event": EVENT_BRIEF_FINISHED,
        "event_id": str(event_id),
        "created_at": timezone.now().isoformat(),
        "brief": {
            "id": brief.pk,
            "status": brief.status,
            **brief.outcome_payload(),
            "question": brief.question,
            "mode": brief.mode,
            "error": brief.error,
            "citations": len(brief.citations or []),
            "created_at": brief.created_at.isoformat(),
            "finished_at": brief.finished_at.isoformat() if brief.finished_at else None,
            "url": reverse("api-brief-detail", args=[brief.pk]),
            "steps_url": reverse("api-brief-steps", args=[brief.pk]),
        },
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def webhooks_brief_finished(brief_id: int) -> int:
    """Queue ``brief.finished`` for every active webhook of the brief's owner; how many new.

    Safe to call more than once and from any finish path: it does nothing for a brief that is
    not finished, and one delivery per webhook and brief exists at most. Each new delivery is
    handed to a worker when the surrounding transaction commits (at once outside one). Never
    raises: a webhook problem must not fail the run that finished the brief."""
    try:
        return _brief_finished_queue(brief_id)
    except Exception:
        log.exception("could not queue the webhooks of brief %s", brief_id)
        return 0


def _brief_finished_queue(brief_id: int) -> int:
    brief = Brief.objects.filter(pk=brief_id).first()
    if brief is None or not brief.is_finished:
        return 0
    queued = []
    for hook in Webhook.objects.filter(owner_id=brief.owner_id, active=True):
        event_id = uuid.uuid4()
        try:
            with transaction.atomic():
                delivery, created = WebhookDelivery.objects.get_or_create(
                    webhook=hook,
                    brief=brief,
                    event=EVENT_BRIEF_FINISHED,
                    defaults={
                        "event_id": event_id,
                        "body": brief_finished_body(brief, event_id),
                        "next_attempt_at": timezone.now(),
                    },
                )
        except IntegrityError:  # a concurrent call created it first
            continue
        if created:
            queued.append(delivery.pk)
    for pk in queued:
        transaction.on_commit(lambda pk=pk: webhook_delivery_enqueue(pk))
    return len(queued)


def webhook_delivery_enqueue(delivery_id: int) -> None:
    from django_q.tasks import async_task

    async_task("briefs.webhooks.webhook_deliver", delivery_id, task_name=f"webhook-{delivery_id}")


# --- Delivery -----------------------------------------------------------------------------------


def webhook_timeout() -> float:
    return float(_setting("WEBHOOK_TIMEOUT", DEFAULT_TIMEOUT))


def webhook_backoff(attempt: int) -> timedelta:
    """The wait after failed attempt ``attempt`` (1-based): 30 s, 2 min, 8 min... capped at
    6 h, each +-20% so receivers that failed together are not retried together."""
    base = min(BACKOFF_FIRST * BACKOFF_FACTOR ** (attempt - 1), BACKOFF_CAP)
    return base * random.uniform(0.8, 1.2)


def webhook_delivery_claim(delivery_id: int) -> WebhookDelivery | None:
    """Claim a due delivery for one attempt (compare-and-set); None when not ours to make."""
    now = timezone.now()
    lease = timedelta(seconds=webhook_timeout() * 3 + 30)
    due = Q(status=DeliveryStatus.PENDING, next_attempt_at__lte=now) | Q(
        status=DeliveryStatus.DELIVERING, claimed_until__lt=now
    )
    claimed = WebhookDelivery.objects.filter(due, pk=delivery_id).update(
        status=DeliveryStatus.DELIVERING,
        attempts=F("attempts") + 1,
        claimed_until=now + lease,
        last_attempt_at=now,
    )
    if not claimed:
        return None
    return WebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)


def _error_text(exc: Exception) -> str:
    detail = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


async def _post(target: Target, body: bytes, headers: dict[str, str]) -> AttemptResult:
    timeout = webhook_timeout()
    extensions = {"sni_hostname": target.hostname} if target.scheme == "https" else {}
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, connect=min(5.0, timeout)),
        follow_redirects=False,
        trust_env=False,
    ) as client:
        request = client.build_request(
            "POST", target.url, content=body, headers=headers, extensions=extensions
        )
        # Only the status matters: the body of the answer is never read.
        response = await client.send(request, stream=True)
        await response.aclose()
    code = response.status_code
    if 200 <= code < 300:
        return AttemptResult(ok=True, status_code=code)
    if 300 <= code < 400:
        return AttemptResult(ok=False, status_code=code, error=f"HTTP {code}: not followed")
    return AttemptResult(ok=False, status_code=code, error=f"HTTP {code}")


async def _attempt(url: str, body: bytes, headers: dict[str, str]) -> AttemptResult:
    try:
        # Not the default executor: asyncio.run() would wait for a hung resolver at exit.
        loop = asyncio.get_running_loop()
        target = await loop.run_in_executor(_RESOLVER, webhook_target, url)
    except WebhookInvalid as exc:
        return AttemptResult(ok=False, error=f"refused: {exc.message}", permanent=True)
    headers = {**headers, "Host": target.host_header}
    return await _post(target, body, headers)


def webhook_attempt(
    *, url: str, secret: str, body: str, event: str, event_id: str
) -> AttemptResult:
    """POST one signed event within ``WEBHOOK_TIMEOUT`` seconds in total (name resolution,
    connection, request and the answer's status line). Never raises for network failures."""
    raw = body.encode()
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        HEADER_EVENT: event,
        HEADER_DELIVERY: event_id,
        HEADER_TIMESTAMP: str(timestamp),
        HEADER_SIGNATURE: webhook_signature(secret=secret, timestamp=timestamp, body=raw),
    }

    async def bounded() -> AttemptResult:
        async with asyncio.timeout(webhook_timeout()):
            return await _attempt(url, raw, headers)

    try:
        return asyncio.run(bounded())
    except TimeoutError:
        return AttemptResult(ok=False, error=f"no answer within {webhook_timeout():g} s")
    except httpx.HTTPError as exc:
        return AttemptResult(ok=False, error=_error_text(exc))


def webhook_delivery_record(delivery: WebhookDelivery, result: AttemptResult) -> str:
    """Write one attempt's result on the row and schedule the next attempt; the new status."""
    now = timezone.now()
    fields = {
        "claimed_until": None,
        "last_status_code": result.status_code,
        "next_attempt_at": None,
    }
    if result.ok:
        fields |= {"status": DeliveryStatus.SUCCEEDED, "delivered_at": now, "last_error": ""}
    elif result.permanent or delivery.attempts >= _max_attempts() or delivery.event == EVENT_PING:
        fields |= {"status": DeliveryStatus.FAILED, "last_error": result.error[:300]}
    else:
        next_at = now + webhook_backoff(delivery.attempts)
        fields |= {
            "status": DeliveryStatus.PENDING,
            "last_error": result.error[:300],
            "next_attempt_at": next_at,
        }
    mine = WebhookDelivery.objects.filter(
        pk=delivery.pk, status=DeliveryStatus.DELIVERING, attempts=delivery.attempts
    )
    if mine.update(**fields) and fields["status"] == DeliveryStatus.PENDING:
        webhook_retry_schedule(delivery.pk, fields["next_attempt_at"])
    return fields["status"]


def _max_attempts() -> int:
    return int(_setting("WEBHOOK_MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS))


def webhook_retry_schedule(delivery_id: int, when) -> None:
    """A django-q ONCE schedule for the next attempt (deleted by django-q after it runs)."""
    from django_q.models import Schedule
    from django_q.tasks import schedule

    schedule(
        "briefs.webhooks.webhook_deliver",
        delivery_id,
        schedule_type=Schedule.ONCE,
        next_run=when,
        name=f"webhook-{delivery_id}-{uuid.uuid4().hex[:8]}",
    )


def webhook_deliver(delivery_id: int) -> str:
    """Worker task: one attempt of a delivery. Returns the delivery's status after it."""
    delivery = webhook_delivery_claim(delivery_id)
    if delivery is None:
        return "not claimed"
    hook = delivery.webhook
    if not hook.active:
        result = AttemptResult(ok=False, error="the webhook is disabled", permanent=True)
    else:
        result = webhook_attempt(
            url=hook.url,
            secret=hook.secret,
            body=delivery.body,
            event=delivery.event,
            event_id=str(delivery.event_id),
        )
    status = webhook_delivery_record(delivery, result)
    log.info("webhook delivery %s attempt %s: %s", delivery_id, delivery.attempts, status)
    return status
