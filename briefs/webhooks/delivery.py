"""Delivering: a worker claims a delivery by compare-and-set (pending and due, or delivering
with an expired lease), makes one signed attempt within ``WEBHOOK_TIMEOUT`` seconds in total to
the address that was checked, and records the result on the row. A failure is retried after a
capped exponential backoff with jitter (a django-q ONCE schedule) until
``WEBHOOK_MAX_ATTEMPTS``; a refused address fails at once. Redirects are not followed.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta

import httpx
from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from briefs.models import DeliveryStatus, WebhookDelivery
from briefs.webhooks.address import Target, WebhookInvalid, webhook_target
from briefs.webhooks.events import DELIVER_TASK, EVENT_PING
from briefs.webhooks.signing import (
    HEADER_DELIVERY,
    HEADER_EVENT,
    HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
    webhook_signature,
)

log = logging.getLogger(__name__)

USER_AGENT = "RSSHubAgent-Webhooks/1.0"
DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_ATTEMPTS = 6
BACKOFF_FIRST = timedelta(seconds=30)
BACKOFF_FACTOR = 4
BACKOFF_CAP = timedelta(hours=6)
_RESOLVER = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")


@dataclass(frozen=True)
class AttemptResult:
    ok: bool
    status_code: int | None = None
    error: str = ""
    permanent: bool = False


def webhook_timeout() -> float:
    return float(getattr(settings, "WEBHOOK_TIMEOUT", DEFAULT_TIMEOUT))


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
    return int(getattr(settings, "WEBHOOK_MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS))


def webhook_retry_schedule(delivery_id: int, when) -> None:
    """A django-q ONCE schedule for the next attempt (deleted by django-q after it runs)."""
    from django_q.models import Schedule
    from django_q.tasks import schedule

    schedule(
        DELIVER_TASK,
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
