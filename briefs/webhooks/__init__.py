"""Webhooks: register, sign, deliver with retries, and the one outbound HTTP path to receivers.

- Event (``events``). When a brief finishes (succeeded, failed or cancelled),
  ``webhooks_brief_finished`` queues one ``brief.finished`` delivery per active webhook of its
  owner (idempotent: one delivery per webhook, brief and event, kept unique by a constraint),
  and hands each to a worker once the transaction commits. The JSON body is built once and
  stored, so every attempt sends the same bytes. A ``webhook.ping`` event (``ping``) is a test
  that a person asks for on the dashboard: the same headers and signature, one attempt, no
  retry.
- Signature (``signing``). Four headers: the event, the delivery's id, a timestamp and an
  HMAC-SHA256 of the timestamp and the body with the webhook's secret. A receiver recomputes
  it, compares in constant time, and refuses old timestamps (``webhook_signature_verify``).
- Addresses (``address``). Only http(s) URLs without credentials; every address the host name
  resolves to must be public (``address_refused``) unless ``WEBHOOK_ALLOW_PRIVATE`` is set. The
  check runs when a webhook is created (``registration``) and again before every attempt, and
  the request goes to the address that was checked (the name is not resolved a second time, so
  DNS rebinding cannot swap it).
- Delivery (``delivery``). A worker claims a delivery by compare-and-set, makes one attempt
  within ``WEBHOOK_TIMEOUT`` seconds in total, records the result on the row and schedules a
  retry with backoff until ``WEBHOOK_MAX_ATTEMPTS``. Redirects are not followed.

The dashboard's webhook page is ``views`` (``urls``). What other code uses is exported here.
The worker task is ``briefs.webhooks.webhook_deliver``: that path is stored with queued tasks
and schedules, so it names the package.
"""

from briefs.webhooks.address import URL_MAX_LENGTH, WebhookInvalid, address_refused
from briefs.webhooks.delivery import (
    webhook_attempt,
    webhook_backoff,
    webhook_deliver,
    webhook_delivery_claim,
)
from briefs.webhooks.events import (
    EVENT_BRIEF_FINISHED,
    EVENT_PING,
    brief_finished_body,
    webhooks_brief_finished,
)
from briefs.webhooks.registration import DESCRIPTION_MAX_LENGTH, webhook_create, webhook_delete
from briefs.webhooks.signing import webhook_signature, webhook_signature_verify

__all__ = [
    "DESCRIPTION_MAX_LENGTH",
    "EVENT_BRIEF_FINISHED",
    "EVENT_PING",
    "URL_MAX_LENGTH",
    "WebhookInvalid",
    "address_refused",
    "brief_finished_body",
    "webhook_attempt",
    "webhook_backoff",
    "webhook_create",
    "webhook_delete",
    "webhook_deliver",
    "webhook_delivery_claim",
    "webhook_signature",
    "webhook_signature_verify",
    "webhooks_brief_finished",
]
