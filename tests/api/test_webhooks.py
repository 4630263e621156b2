"""Webhooks: registration (SSRF-safe URLs), signed delivery to a real receiver on 127.0.0.1,
retries with backoff, the delivery log."""

import hashlib
import hmac
import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.models import OrmQ, Schedule

from briefs.models import BriefStatus, DeliveryStatus, Webhook, WebhookDelivery
from briefs.webhooks import (
    address_refused,
    webhook_backoff,
    webhook_create,
    webhook_deliver,
    webhook_delivery_claim,
    webhooks_brief_finished,
)
from tests.api.conftest import error_of
from tests.httpserver import Reply

pytestmark = pytest.mark.django_db

HOOKS = "/api/v1/webhooks"


def signature_ok(secret: str, request) -> bool:
    """What a receiver does: HMAC-SHA256 over "timestamp.body", compared in constant time."""
    timestamp = request.headers["x-rsshub-agent-timestamp"]
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + request.body, hashlib.sha256)
    sent = request.headers["x-rsshub-agent-signature"]
    fresh = abs(time.time() - int(timestamp)) < 300
    return fresh and hmac.compare_digest("sha256=" + expected.hexdigest(), sent)


@pytest.fixture
def allow_private(settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True


@pytest.fixture
def hook(owner, receiver, allow_private) -> Webhook:
    return webhook_create(owner=owner, url=f"{receiver.url}/hook")


def checking_receiver(receiver, secret: str, status: int = 204) -> list:
    """Answer ``status`` to signed requests and 401 to the rest; returns the verdicts."""
    verdicts: list[bool] = []

    def handle(request):
        ok = signature_ok(secret, request)
        verdicts.append(ok)
        return Reply(status if ok else 401)

    receiver.route("/hook", handle)
    return verdicts


def finish(brief) -> None:
    brief.status = BriefStatus.SUCCEEDED
    brief.finished_at = timezone.now()
    brief.save()


# --- Registration ---------------------------------------------------------------------------


def test_it_registers_a_webhook_and_shows_the_secret_once(api, receiver, allow_private):
    response = api.post(HOOKS, {"url": f"{receiver.url}/hook", "description": "bot"})
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["secret"].startswith("whsec_") and created["events"] == ["brief.finished"]
    shown = api.get(f"{HOOKS}/{created['id']}").json()
    assert "secret" not in shown, "the secret was shown again"
    listed = api.get(HOOKS).json()["results"]
    assert [h["id"] for h in listed] == [created["id"]] and "secret" not in listed[0]


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("ftp://example.com/hook", "http and https"),
        ("file:///etc/passwd", "http and https"),
        ("javascript:alert(1)", "http and https"),
        ("http://user:pw@example.com/hook", "credentials"),
        ("http:///hook", "no host"),
        ("http://127.0.0.1/hook", "private"),
        ("http://localhost:8000/hook", "private"),
        ("http://10.1.2.3/hook", "private"),
        ("http://192.168.0.10/hook", "private"),
        ("http://169.254.169.254/latest/meta-data", "private"),
        ("http://100.64.0.1/hook", "private"),
        ("http://0.0.0.0/hook", "private"),
        ("http://[::1]/hook", "private"),
        ("http://[::ffff:127.0.0.1]/hook", "private"),
        ("http://[fe80::1]/hook", "private"),
        ("http://224.0.0.1/hook", "private"),
        ("http://2130706433/hook", "private"),
        ("http://example.invalid/hook", "does not resolve"),
        ("http://example.com:99999/hook", "cannot be parsed"),
        ("http://exa mple.com/hook", "spaces"),
        ("", "blank"),
    ],
)
def test_it_refuses_unsafe_urls(api, url, fragment):
    response = api.post(HOOKS, {"url": url})
    assert response.status_code == 400, response.content
    fields = error_of(response)["extra"]["fields"]
    assert fragment in " ".join(fields.get("url", [])).lower(), fields
    assert not Webhook.objects.exists()


def test_it_checks_every_address_a_name_resolves_to(api, monkeypatch):
    monkeypatch.setattr(
        "briefs.webhooks.address.host_resolve", lambda host, port: ["93.184.215.14", "10.0.0.7"]
    )
    response = api.post(HOOKS, {"url": "https://hooks.example.com/in"})
    assert response.status_code == 400
    assert "10.0.0.7" in error_of(response)["message"]


def test_it_accepts_a_public_name(api, monkeypatch):
    monkeypatch.setattr(
        "briefs.webhooks.address.host_resolve", lambda host, port: ["93.184.215.14"]
    )
    assert api.post(HOOKS, {"url": "https://hooks.example.com/in"}).status_code == 201


@pytest.mark.parametrize(
    "address",
    ["64:ff9b::7f00:1", "2002:7f00:1::1", "2001:0:4136:e378:8000:63bf:80ff:fffe", "fc00::1"],
)
def test_it_unwraps_ipv4_inside_ipv6(address):
    assert address_refused(address), f"{address} reaches a private IPv4 address"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": 12}, "url"),
        ({"url": "https://a.example/x", "secret": "mine"}, "secret"),
        ({"url": "https://a.example/x", "description": ["x"]}, "description"),
    ],
)
def test_it_refuses_bad_fields(api, body, field):
    response = api.post(HOOKS, body)
    assert response.status_code == 400
    assert field in error_of(response)["extra"]["fields"]


def test_it_limits_webhooks_per_user(api, owner, receiver, allow_private, settings):
    settings.WEBHOOKS_PER_USER = 2
    for _ in range(2):
        assert api.post(HOOKS, {"url": f"{receiver.url}/hook"}).status_code == 201
    response = api.post(HOOKS, {"url": f"{receiver.url}/hook"})
    assert response.status_code == 400
    assert "At most 2" in error_of(response)["message"]


def test_another_users_webhook_is_a_404(other_api, hook):
    for method, suffix in (("get", ""), ("delete", ""), ("get", "/deliveries")):
        response = getattr(other_api, method)(f"{HOOKS}/{hook.pk}{suffix}")
        assert response.status_code == 404, (method, suffix, response.content)
    assert Webhook.objects.filter(pk=hook.pk).exists()
    assert other_api.get(HOOKS).json()["count"] == 0


def test_it_deletes_a_webhook(api, hook):
    assert api.delete(f"{HOOKS}/{hook.pk}").status_code == 204
    assert not Webhook.objects.filter(pk=hook.pk).exists()


# --- Events and delivery --------------------------------------------------------------------


def test_a_finished_brief_is_delivered_signed(
    api, hook, receiver, finished_brief, django_capture_on_commit_callbacks
):
    verdicts = checking_receiver(receiver, hook.secret)
    with django_capture_on_commit_callbacks(execute=True):
        assert webhooks_brief_finished(finished_brief.pk) == 1
    delivery = WebhookDelivery.objects.get()
    assert OrmQ.objects.get().task["args"] == (delivery.pk,), "the delivery was not queued"
    assert webhook_deliver(delivery.pk) == DeliveryStatus.SUCCEEDED
    assert verdicts == [True], "the receiver could not verify the signature"
    request = receiver.requests_to("/hook")[0]
    event = json.loads(request.body)
    assert event["event"] == "brief.finished" and event["event_id"] == str(delivery.event_id)
    assert event["brief"]["id"] == finished_brief.pk and event["brief"]["status"] == "succeeded"
    assert request.headers["x-rsshub-agent-delivery"] == str(delivery.event_id)
    log = api.get(f"{HOOKS}/{hook.pk}/deliveries").json()["results"]
    assert log[0]["status"] == "succeeded" and log[0]["attempts"] == 1
    assert log[0]["last_status_code"] == 204 and log[0]["brief_id"] == finished_brief.pk


def test_a_tampered_body_fails_the_receivers_check(hook, receiver, finished_brief):
    verdicts = checking_receiver(receiver, "whsec_not-the-secret")
    webhooks_brief_finished(finished_brief.pk)
    delivery = WebhookDelivery.objects.get()
    assert webhook_deliver(delivery.pk) == DeliveryStatus.PENDING
    assert verdicts == [False]


def test_it_queues_one_delivery_per_brief_however_often_called(hook, finished_brief):
    assert webhooks_brief_finished(finished_brief.pk) == 1
    assert webhooks_brief_finished(finished_brief.pk) == 0
    assert WebhookDelivery.objects.count() == 1


def test_it_queues_nothing_for_an_unfinished_brief(hook, owner, make_brief):
    assert webhooks_brief_finished(make_brief(owner).pk) == 0
    assert webhooks_brief_finished(10**12) == 0


def test_it_sends_only_to_the_owners_webhooks(hook, other_user, make_brief):
    theirs = make_brief(other_user, status=BriefStatus.FAILED)
    assert webhooks_brief_finished(theirs.pk) == 0


@pytest.mark.parametrize("status", [BriefStatus.FAILED, BriefStatus.CANCELLED])
def test_failed_and_cancelled_briefs_are_events_too(hook, owner, make_brief, status):
    brief = make_brief(owner, status=status)
    assert webhooks_brief_finished(brief.pk) == 1
    body = json.loads(WebhookDelivery.objects.get().body)
    assert body["brief"]["status"] == status


def test_a_failed_attempt_is_retried_later_with_backoff(hook, receiver, finished_brief):
    receiver.route("/hook", Reply(500, body=b"oops"))
    webhooks_brief_finished(finished_brief.pk)
    delivery = WebhookDelivery.objects.get()
    before = timezone.now()
    assert webhook_deliver(delivery.pk) == DeliveryStatus.PENDING
    delivery.refresh_from_db()
    assert delivery.attempts == 1 and delivery.last_status_code == 500
    assert delivery.last_error == "HTTP 500"
    wait = delivery.next_attempt_at - before
    assert timedelta(seconds=20) < wait < timedelta(seconds=40), wait
    schedule = Schedule.objects.get(func="briefs.webhooks.webhook_deliver")
    assert schedule.args == f"({delivery.pk},)" and schedule.next_run >= before
    assert webhook_deliver(delivery.pk) == "not claimed", "a retry ran before it was due"


def test_it_gives_up_after_the_last_attempt(hook, receiver, finished_brief, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    receiver.route("/hook", Reply(503))
    webhooks_brief_finished(finished_brief.pk)
    delivery = WebhookDelivery.objects.get()
    statuses = []
    for _ in range(3):
        WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        statuses.append(webhook_deliver(delivery.pk))
    assert statuses == ["pending", "pending", "failed"]
    delivery.refresh_from_db()
    assert delivery.attempts == 3 and delivery.last_error == "HTTP 503"
    assert len(receiver.requests_to("/hook")) == 3


def test_it_does_not_follow_redirects(hook, receiver, finished_brief):
    receiver.route("/hook", Reply(302, {"Location": f"{receiver.url}/elsewhere"}))
    receiver.route("/elsewhere", Reply(204))
    webhooks_brief_finished(finished_brief.pk)
    assert webhook_deliver(WebhookDelivery.objects.get().pk) == DeliveryStatus.PENDING
    assert receiver.requests_to("/elsewhere") == [], "a redirect was followed"
    assert "not followed" in WebhookDelivery.objects.get().last_error


def test_it_rechecks_the_address_at_delivery(hook, receiver, finished_brief, settings):
    receiver.route("/hook", Reply(204))
    webhooks_brief_finished(finished_brief.pk)
    settings.WEBHOOK_ALLOW_PRIVATE = False  # registered while allowed; refused when sending
    assert webhook_deliver(WebhookDelivery.objects.get().pk) == DeliveryStatus.FAILED
    assert receiver.requests_to("/hook") == []
    assert "refused" in WebhookDelivery.objects.get().last_error


def test_it_sends_to_the_address_it_checked(owner, receiver, allow_private, monkeypatch):
    # hooks.example.com resolves only through the seam: that the request arrives proves it went
    # to the checked address (no second lookup a rebinding DNS could answer differently), and
    # the name is kept in the Host header.
    monkeypatch.setattr("briefs.webhooks.address.host_resolve", lambda host, port: ["127.0.0.1"])
    port = receiver.url.rsplit(":", 1)[1]
    hook = webhook_create(owner=owner, url=f"http://hooks.example.com:{port}/hook")
    receiver.route("/hook", Reply(204))
    brief = hook.owner.briefs.create(question="q", status=BriefStatus.SUCCEEDED)
    webhooks_brief_finished(brief.pk)
    assert webhook_deliver(WebhookDelivery.objects.get().pk) == DeliveryStatus.SUCCEEDED
    assert receiver.requests_to("/hook")[0].headers["host"] == f"hooks.example.com:{port}"


def test_a_silent_receiver_times_out(hook, receiver, finished_brief, settings):
    settings.WEBHOOK_TIMEOUT = 0.5
    # Answers only once the receiver stops, long after the client's deadline.
    receiver.route("/hook", lambda request: (request.stopping.wait(), Reply(204))[1])
    webhooks_brief_finished(finished_brief.pk)
    assert webhook_deliver(WebhookDelivery.objects.get().pk) == DeliveryStatus.PENDING
    assert "no answer within 0.5 s" in WebhookDelivery.objects.get().last_error


def test_an_unreachable_receiver_is_a_recorded_failure(owner, allow_private, finished_brief):
    webhook_create(owner=owner, url="http://127.0.0.1:9/hook")
    webhooks_brief_finished(finished_brief.pk)
    assert webhook_deliver(WebhookDelivery.objects.get().pk) == DeliveryStatus.PENDING
    assert "ConnectError" in WebhookDelivery.objects.get().last_error


def test_a_delivery_is_claimed_once(hook, finished_brief):
    webhooks_brief_finished(finished_brief.pk)
    delivery = WebhookDelivery.objects.get()
    assert webhook_delivery_claim(delivery.pk) is not None
    assert webhook_delivery_claim(delivery.pk) is None, "a second worker claimed it too"


def test_a_delivery_whose_worker_died_is_claimed_again(hook, finished_brief):
    webhooks_brief_finished(finished_brief.pk)
    delivery = webhook_delivery_claim(WebhookDelivery.objects.get().pk)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        claimed_until=timezone.now() - timedelta(seconds=1)
    )
    again = webhook_delivery_claim(delivery.pk)
    assert again is not None and again.attempts == 2


def test_the_backoff_grows_and_is_capped():
    waits = [webhook_backoff(n) for n in range(1, 12)]
    assert timedelta(seconds=24) <= waits[0] <= timedelta(seconds=36)
    assert timedelta(seconds=96) <= waits[1] <= timedelta(seconds=144)
    assert max(waits) <= timedelta(hours=6) * 1.2


def test_the_log_outlives_the_brief(api, hook, finished_brief):
    webhooks_brief_finished(finished_brief.pk)
    finished_brief.delete()
    log = api.get(f"{HOOKS}/{hook.pk}/deliveries").json()["results"]
    assert len(log) == 1 and log[0]["brief_id"] is None


def test_queueing_never_fails_the_caller(hook, finished_brief, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("database gone")

    monkeypatch.setattr("briefs.webhooks.events.brief_finished_body", broken)
    assert webhooks_brief_finished(finished_brief.pk) == 0


def test_a_brief_cancelled_through_the_api_sends_its_event(
    api, hook, owner, make_brief, receiver, django_capture_on_commit_callbacks
):
    verdicts = checking_receiver(receiver, hook.secret)
    brief = make_brief(owner)
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post(f"/api/v1/briefs/{brief.pk}/cancel").status_code == 200
    delivery = WebhookDelivery.objects.get()
    assert OrmQ.objects.count() == 1, "the delivery was not queued"
    assert webhook_deliver(delivery.pk) == DeliveryStatus.SUCCEEDED and verdicts == [True]
    event = json.loads(receiver.requests_to("/hook")[0].body)
    assert event["brief"] == {**event["brief"], "id": brief.pk, "status": "cancelled"}
