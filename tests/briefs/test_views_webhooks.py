"""The dashboard's webhook page: register with the API's rules (the secret shown once), send a
test delivery to a real receiver on 127.0.0.1 and read it in the log, delete; owner only."""

import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django_q.models import Schedule

from briefs.models import DeliveryStatus, Webhook, WebhookDelivery
from briefs.webhooks import EVENT_PING, webhook_create, webhook_deliver
from tests.api.test_webhooks import signature_ok
from tests.briefs.test_views import Tags, page
from tests.httpserver import Reply, ScriptedServer

pytestmark = pytest.mark.django_db

PAGE = "/webhooks/"


@pytest.fixture
def receiver():
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def allow_private(settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True  # the receiver listens on 127.0.0.1


@pytest.fixture
def hook(owner, receiver, allow_private) -> Webhook:
    return webhook_create(owner=owner, url=f"{receiver.url}/hook", description="ops bot")


def ping(client, webhook: Webhook, django_capture_on_commit_callbacks) -> list:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(reverse("webhook-test", args=[webhook.pk]))
    assert (response.status_code, response["Location"]) == (302, f"{PAGE}#webhook-{webhook.pk}")
    return callbacks


def test_it_requires_login(client):
    response = client.get(PAGE)
    assert response.status_code == 302 and "next=/webhooks/" in response["Location"]


def test_the_nav_links_to_the_page(owner_client):
    assert Tags(page(owner_client.get(reverse("home")))).find("a", href=PAGE)


def test_it_registers_a_webhook_and_shows_the_secret_once(
    owner_client, owner, receiver, allow_private
):
    response = owner_client.post(PAGE, {"url": f"{receiver.url}/hook", "description": "bot"})
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    webhook = Webhook.objects.get(owner=owner)
    body = page(response)
    assert f'<code id="webhook-secret">{webhook.secret}</code>' in body
    assert Tags(body).find("button", id="copy-webhook-secret", data_copy="webhook-secret-json")
    again = owner_client.get(PAGE)
    assert again["Cache-Control"] == "no-store"
    assert webhook.secret not in page(again), "the secret is shown a second time"
    assert f"{receiver.url}/hook" in page(again)


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("http://127.0.0.1/hook", "private"),
        ("http://169.254.169.254/latest/meta-data", "private"),
        ("http://[::ffff:127.0.0.1]/hook", "private"),
        ("javascript:alert(1)", "http and https"),
        ("http://user:pw@example.com/hook", "credentials"),
        ("http://example.invalid/hook", "does not resolve"),
        ("http://exa mple.com/hook", "spaces"),
        ("   ", "empty"),
    ],
)
def test_it_refuses_what_the_api_refuses(owner_client, url, fragment):
    response = owner_client.post(PAGE, {"url": url})
    assert response.status_code == 400
    error = Tags(page(response)).find("div", id="url-error")
    assert error, "the error is next to the address"
    assert fragment in page(response).lower()
    assert not Webhook.objects.exists()


def test_it_keeps_to_the_number_of_webhooks_per_user(
    owner_client, owner, receiver, allow_private, settings
):
    settings.WEBHOOKS_PER_USER = 1
    webhook_create(owner=owner, url=f"{receiver.url}/one")
    response = owner_client.post(PAGE, {"url": f"{receiver.url}/two"})
    assert response.status_code == 400 and "At most 1 webhooks" in page(response)
    assert Webhook.objects.count() == 1


def test_hostile_text_is_escaped(owner_client, owner, receiver, allow_private):
    webhook = webhook_create(
        owner=owner, url=f"{receiver.url}/<b>x</b>", description="<script>alert(1)</script>"
    )
    WebhookDelivery.objects.create(
        webhook=webhook, event="brief.finished", event_id="0" * 32, body="{}", last_error="<i>"
    )
    body = page(owner_client.get(PAGE))
    assert "<script>alert(1)" not in body and "<b>x</b>" not in body and "<i>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_a_test_delivery_reaches_the_receiver_signed_and_shows_in_the_log(
    owner_client, hook, receiver, django_capture_on_commit_callbacks
):
    verdicts = []

    def handle(request):
        verdicts.append((signature_ok(hook.secret, request), json.loads(request.body)))
        return Reply(204)

    receiver.route("/hook", handle)
    callbacks = ping(owner_client, hook, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get(webhook=hook)
    assert (delivery.event, delivery.status, delivery.brief_id) == (EVENT_PING, "pending", None)
    assert len(callbacks) == 1, "handed to a worker once the row is committed"

    assert webhook_deliver(delivery.pk) == DeliveryStatus.SUCCEEDED  # what the worker runs
    [(signed, payload)] = verdicts
    assert signed, "the receiver could verify the signature"
    assert payload["event"] == "webhook.ping" and payload["webhook"]["id"] == hook.pk
    row = page(owner_client.get(PAGE))
    log = row[row.index(f'data-delivery="{delivery.pk}"') :]
    assert 'data-status="succeeded"' in log[:200] and "HTTP 204" in log


def test_a_failed_test_delivery_is_not_retried(
    owner_client, hook, receiver, django_capture_on_commit_callbacks
):
    receiver.route("/hook", lambda request: Reply(500))
    ping(owner_client, hook, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get(webhook=hook)
    assert webhook_deliver(delivery.pk) == DeliveryStatus.FAILED
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_status_code, delivery.next_attempt_at) == (
        1,
        500,
        None,
    )
    retries = Schedule.objects.filter(func="briefs.webhooks.webhook_deliver")
    assert not retries.exists(), "a test delivery schedules no retry"
    assert "HTTP 500" in page(owner_client.get(PAGE))


def test_one_test_delivery_at_a_time(owner_client, hook, django_capture_on_commit_callbacks):
    ping(owner_client, hook, django_capture_on_commit_callbacks)
    callbacks = ping(owner_client, hook, django_capture_on_commit_callbacks)
    assert not callbacks
    assert WebhookDelivery.objects.filter(webhook=hook).count() == 1
    assert "still on its way" in page(owner_client.get(PAGE))


def test_another_users_webhook_is_not_listed_tested_or_deleted(
    client, other_user, hook, django_capture_on_commit_callbacks
):
    client.force_login(other_user)
    assert hook.url not in page(client.get(PAGE))
    for name in ("webhook-test", "webhook-delete"):
        assert client.post(reverse(name, args=[hook.pk])).status_code == 404, name
    assert Webhook.objects.filter(pk=hook.pk).exists()
    assert not WebhookDelivery.objects.exists()


def test_delete_removes_the_webhook_and_its_log(owner_client, hook):
    WebhookDelivery.objects.create(webhook=hook, event="brief.finished", event_id="1" * 32)
    response = owner_client.post(reverse("webhook-delete", args=[hook.pk]))
    assert (response.status_code, response["Location"]) == (302, PAGE)
    assert not Webhook.objects.exists() and not WebhookDelivery.objects.exists()


@pytest.mark.parametrize("name", ["webhook-test", "webhook-delete"])
def test_actions_refuse_get(owner_client, hook, name):
    assert owner_client.get(reverse(name, args=[hook.pk])).status_code == 405


def test_every_form_needs_its_csrf_token(owner, hook):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(PAGE, {"url": hook.url}).status_code == 403
    for name in ("webhook-test", "webhook-delete"):
        assert client.post(reverse(name, args=[hook.pk])).status_code == 403, name
    assert Webhook.objects.count() == 1 and not WebhookDelivery.objects.exists()


def test_the_page_reads_in_constant_queries(owner_client, owner, hook, django_assert_num_queries):
    for n in range(15):
        WebhookDelivery.objects.create(webhook=hook, event="brief.finished", event_id=f"{n:032x}")
    second = webhook_create(owner=owner, url=hook.url)
    WebhookDelivery.objects.create(webhook=second, event="brief.finished", event_id="f" * 32)
    # session, user, webhooks, their latest deliveries, unread watch runs (the navigation)
    with django_assert_num_queries(5):
        body = page(owner_client.get(PAGE))
    assert body.count("data-delivery=") == 10 + 1


def address_rule(response) -> str:
    return re.search(r'<p class="help" id="webhook-address-rule">([^<]*)</p>', page(response))[1]


def test_the_address_rule_shown_is_the_one_applied(owner_client, settings, receiver):
    """Accepting a loopback address and saying "only public addresses" beside it would be a
    lie: the page says what this server accepts, and accepts what it says."""
    settings.WEBHOOK_ALLOW_PRIVATE = True
    response = owner_client.post(PAGE, {"url": f"{receiver.url}/hook", "description": ""})
    rule = address_rule(response)
    assert Webhook.objects.count() == 1
    assert "also accepts private and loopback addresses" in rule
    assert "public internet" not in rule

    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = owner_client.post(PAGE, {"url": f"{receiver.url}/other", "description": ""})
    rule = address_rule(response)
    assert Webhook.objects.count() == 1, "a loopback address is refused, as the page says"
    assert "on the public internet" in rule and "loopback" not in rule


def test_the_address_rule_speaks_chinese(owner_client, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    text = owner_client.get(PAGE, headers={"Accept-Language": "zh-hans"}).content.decode()
    assert "也接受内网和本机回环地址" in text
