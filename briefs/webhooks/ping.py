"""A test delivery of one webhook: a signed ``webhook.ping`` event that goes through the same
worker, address check, signature and delivery log as ``brief.finished``, tried once.

One test at a time per webhook: a new one is refused while the last is still pending or being
delivered, decided under a lock on the webhook's row, so that repeated clicks cannot make the
server send a stream of requests to someone's address."""

from __future__ import annotations

import json
import uuid

from django.db import transaction
from django.utils import timezone

from briefs.models import DeliveryStatus, Webhook, WebhookDelivery
from briefs.webhooks.events import EVENT_PING, webhook_delivery_enqueue

IN_FLIGHT = (DeliveryStatus.PENDING, DeliveryStatus.DELIVERING)


class PingWaiting(Exception):
    """An earlier test delivery of this webhook has not finished yet."""


def webhook_ping_body(webhook: Webhook, event_id: uuid.UUID) -> str:
    payload = {
        "event": EVENT_PING,
        "event_id": str(event_id),
        "created_at": timezone.now().isoformat(),
        "webhook": {"id": webhook.pk, "url": webhook.url},
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def webhook_ping(*, owner, webhook_id: int) -> WebhookDelivery:
    """Queue a test delivery of ``owner``'s webhook (``Webhook.DoesNotExist`` for another's);
    ``PingWaiting`` while an earlier test of it has not finished."""
    with transaction.atomic():
        webhook = Webhook.objects.select_for_update().get(owner=owner, pk=webhook_id)
        waiting = WebhookDelivery.objects.filter(
            webhook=webhook, event=EVENT_PING, status__in=IN_FLIGHT
        )
        if waiting.exists():
            raise PingWaiting(webhook_id)
        event_id = uuid.uuid4()
        delivery = WebhookDelivery.objects.create(
            webhook=webhook,
            brief=None,
            event=EVENT_PING,
            event_id=event_id,
            body=webhook_ping_body(webhook, event_id),
            next_attempt_at=timezone.now(),
        )
        transaction.on_commit(lambda: webhook_delivery_enqueue(delivery.pk))
    return delivery
