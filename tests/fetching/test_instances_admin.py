"""Staff curate RSSHub instances in the admin; an instance's access key is stored, used, and
never shown back: not on the admin pages, not in the status API, not in results, steps or logs."""

import logging

import pytest
from django.urls import reverse

from fetching.models import FetchAttempt, Outcome, RSSHubInstance
from fetching.services import fetch_path_sync
from tests.fetching.instance_standins import InstancePair, answering, routes_make
from tests.httpserver import Reply

pytestmark = pytest.mark.django_db

KEY = "k3y-N3VER-sh0wn"
LIST = reverse("admin:fetching_rsshubinstance_changelist")
ADD = reverse("admin:fetching_rsshubinstance_add")


@pytest.fixture
def keyed(settings):
    settings.RSSHUB_URLS = ["http://127.0.0.1:9"]  # nothing listens
    settings.RSSHUB_ACCESS_KEY = KEY
    return settings


def change_url(instance: RSSHubInstance) -> str:
    return reverse("admin:fetching_rsshubinstance_change", args=[instance.pk])


def form_data(**fields) -> dict:
    return {"name": "", "base_url": "", "priority": "0", "enabled": "on", "notes": "", **fields}


def test_the_list_shows_the_seeded_instances_and_only_whether_a_key_is_set(staff_client, keyed):
    response = staff_client.get(LIST)
    body = response.content.decode()
    assert response.status_code == 200
    assert "127.0.0.1:9" in body, "the environment's instance is listed before any fetch"
    assert KEY not in body
    assert 'alt="True"' in body, "key set"


def test_the_change_page_never_shows_the_key(staff_client, keyed):
    staff_client.get(LIST)  # seeds
    instance = RSSHubInstance.objects.get()
    body = staff_client.get(change_url(instance)).content.decode()
    assert KEY not in body
    assert 'name="new_access_key"' in body and 'type="password"' in body


def test_staff_replace_keep_or_remove_the_key(staff_client, keyed):
    staff_client.get(LIST)
    instance = RSSHubInstance.objects.get()
    url = change_url(instance)
    fields = form_data(base_url=instance.base_url, name="primary")

    staff_client.post(url, fields)  # no new key: kept
    instance.refresh_from_db()
    assert (instance.access_key, instance.name, instance.from_environment) == (
        KEY,
        "primary",
        False,
    )

    staff_client.post(url, {**fields, "new_access_key": "replaced-key"})
    instance.refresh_from_db()
    assert instance.access_key == "replaced-key"

    staff_client.post(url, {**fields, "clear_access_key": "on"})
    instance.refresh_from_db()
    assert instance.access_key == ""


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "http://admin:pw@rsshub.local",
        "http://rsshub.local/?key=x",
        "ftp://x",
    ],
)
def test_staff_cannot_add_a_hostile_base_url(staff_client, url):
    response = staff_client.post(ADD, form_data(base_url=url, new_access_key=KEY))
    assert response.status_code == 200, "the form comes back with its error"
    assert "errorlist" in response.content.decode()
    assert not RSSHubInstance.objects.filter(access_key=KEY).exists()


def test_staff_add_an_instance_with_its_own_key(staff_client, settings):
    settings.RSSHUB_URLS = ["http://127.0.0.1:9"]
    response = staff_client.post(
        ADD, form_data(base_url="http://rsshub-b.internal:1200/", name="b", new_access_key=KEY)
    )
    assert response.status_code == 302
    added = RSSHubInstance.objects.get(name="b")
    assert (added.base_url, added.access_key, added.from_environment) == (
        "http://rsshub-b.internal:1200", KEY, False,
    )  # fmt: skip


@pytest.fixture
def pair(settings):
    instances = InstancePair(settings)
    yield instances
    instances.stop()


def test_the_key_stays_out_of_results_attempts_and_logs(pair, caplog):
    """The first instance's error page echoes the request (with its key), then it fails its
    health check: the fetch moves on, and the key is nowhere to be read."""
    routes_make("xalpha")
    RSSHubInstance.objects.filter(pk=pair.a.pk).update(access_key=KEY, from_environment=False)

    def echo(request):
        return Reply(503, {"Content-Type": "text/plain"}, f"broken: {request.query}".encode())

    pair.a_server.route_default(echo)
    pair.a_server.route("/healthz", echo)
    with caplog.at_level(logging.DEBUG):
        result = fetch_path_sync("/xalpha/news", refresh=True)

    assert pair.a_server.requests[0].query["key"] == [KEY], "the key was sent"
    assert (result.outcome, result.instance) == (Outcome.OK, pair.b.label)
    assert KEY not in str(result.as_dict())
    for attempt in FetchAttempt.objects.all():
        assert KEY not in attempt.message
    assert KEY not in pair.a.last_error
    assert KEY not in caplog.text
    answering(pair.a_server)
