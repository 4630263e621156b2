"""The event: when a brief finishes, one ``brief.finished`` delivery per active webhook of its
owner, its JSON body built once and stored, handed to a worker once the transaction commits.
A watch's run carries its ``watch`` id and ``delta`` (what was new), null for other briefs."""

import json
import logging
import uuid

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from briefs.models import Brief, Webhook, WebhookDelivery

log = logging.getLogger(__name__)

EVENT_BRIEF_FINISHED = "brief.finished"
# A test delivery asked for on the dashboard (``briefs.webhooks.ping``): signed and delivered
# like any event, but tried once, since its point is to show what the receiver answers now.
EVENT_PING = "webhook.ping"
# The worker task's dotted path, stored with every queued task and schedule: it names the
# package (``briefs.webhooks`` exports it), so it stays the same wherever the code sits.
DELIVER_TASK = "briefs.webhooks.webhook_deliver"


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
            "watch": brief.watch_id,
            "delta": brief.delta_payload(),
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

    async_task(DELIVER_TASK, delivery_id, task_name=f"webhook-{delivery_id}")
