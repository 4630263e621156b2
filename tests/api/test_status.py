"""GET /api/v1/status: the database, the queue, RSSHub's reachability, the answering mode."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import OrmQ

from fetching.egress import egress_startup_check
from fetching.models import RSSHubEgress, RSSHubInstance
from tests.fetching.instance_standins import InstancePair, failing_on_its_own
from tests.httpserver import Reply, ScriptedServer
from tests.redis_dbs import redis_test_url
from tests.rsshub_replies import dns_failure

pytestmark = pytest.mark.django_db

STATUS = "/api/v1/status"
KEY = "s3cr3t-access-key"


@pytest.fixture
def rsshub_stand_in(settings):
    with ScriptedServer() as server:
        settings.RSSHUB_URL = server.url
        settings.RSSHUB_ACCESS_KEY = KEY
        yield server


def test_it_reports_a_reachable_rsshub_without_its_key(api, rsshub_stand_in):
    rsshub_stand_in.route("/healthz", Reply(200, {"Content-Type": "text/plain"}, b"ok"))
    response = api.get(STATUS)
    body = response.json()
    assert body["rsshub"]["ok"] is True and body["rsshub"]["http_status"] == 200
    assert rsshub_stand_in.requests_to("/healthz")[0].query["key"] == [KEY], "the key was not sent"
    assert KEY.encode() not in response.content, "the access key reached the answer"
    assert rsshub_stand_in.url.encode() not in response.content, (
        "RSSHub's address reached the answer"
    )


def test_it_reports_an_rsshub_that_answers_an_error(api, rsshub_stand_in):
    rsshub_stand_in.route("/healthz", Reply(503, body=b"down"))
    body = api.get(STATUS).json()["rsshub"]
    assert body["ok"] is False and body["http_status"] == 503


def test_it_reports_an_unreachable_rsshub(api, settings):
    settings.RSSHUB_URL = "http://127.0.0.1:9"
    body = api.get(STATUS).json()["rsshub"]
    assert body["ok"] is False and "rsshub_unavailable" in body["detail"]


def test_it_gives_up_on_a_slow_rsshub_at_its_deadline(api, rsshub_stand_in):
    # Answers "ok" only once the test's server stops: a status that reports anything before then
    # gave up at its own deadline.
    rsshub_stand_in.route(
        "/healthz", lambda request: (request.stopping.wait(), Reply(200, body=b"ok"))[1]
    )
    body = api.get(STATUS).json()["rsshub"]
    assert body["ok"] is False and "timeout" in body["detail"]


def test_it_says_since_when_rsshub_cannot_reach_the_internet(api, rsshub_stand_in):
    rsshub_stand_in.route("/healthz", Reply(200, {"Content-Type": "text/plain"}, b"ok"))
    assert api.get(STATUS).json()["rsshub"]["egress"]["ok"] is True
    since = timezone.now() - timedelta(minutes=7)
    RSSHubEgress.objects.create(
        base_url=rsshub_stand_in.url, down_since=since, checked_at=timezone.now()
    )
    response = api.get(STATUS)
    body = response.json()["rsshub"]
    assert body["ok"] is True, "/healthz still answers: RSSHub itself is up"
    assert body["egress"]["ok"] is False
    assert body["egress"]["down_since"] == since.isoformat().replace("+00:00", "Z")
    assert "cannot reach the internet" in body["egress"]["detail"]
    assert rsshub_stand_in.url.encode() not in response.content, (
        "RSSHub's address reached the answer"
    )


def test_it_says_rsshub_has_no_internet_from_the_startup_check_before_anyone_asks(
    api, rsshub_stand_in
):
    rsshub_stand_in.route_default(dns_failure())  # every route, the canaries too
    rsshub_stand_in.route("/healthz", Reply(200, {"Content-Type": "text/plain"}, b"ok"))
    egress_startup_check()  # as manage.py serve and each starting worker do

    body = api.get(STATUS).json()["rsshub"]
    assert body["ok"] is True and body["egress"]["ok"] is False
    assert "cannot reach the internet" in body["egress"]["detail"]
    assert [i["egress_ok"] for i in body["instances"]] == [False]


def test_it_reports_the_database_and_mode(api, rsshub_stand_in, settings):
    settings.OPENAI_API_KEY = ""
    body = api.get(STATUS).json()
    assert body["database"]["ok"] is True
    assert body["answering_mode"] == "offline" and body["llm_configured"] is False


def test_it_reports_the_model_when_configured(api, rsshub_stand_in, settings):
    settings.OPENAI_API_KEY = "sk-not-shown"
    settings.OPENAI_ROUTER_MODEL = settings.OPENAI_WRITER_MODEL = "test-model"
    response = api.get(STATUS)
    assert response.json()["answering_mode"] == "test-model"
    assert b"sk-not-shown" not in response.content


def test_it_reports_a_queue_that_nobody_takes_from(api, rsshub_stand_in):
    OrmQ.objects.create(
        key=Conf.CLUSTER_NAME, payload="x", lock=timezone.now() - timedelta(minutes=5)
    )
    body = api.get(STATUS).json()["queue"]
    assert body["queued"] == 1 and body["ok"] is False
    assert body["oldest_queued_seconds"] >= 300


def test_it_reports_a_moving_queue(api, rsshub_stand_in):
    OrmQ.objects.create(key=Conf.CLUSTER_NAME, payload="x", lock=timezone.now())
    OrmQ.objects.create(
        key=Conf.CLUSTER_NAME, payload="y", lock=timezone.now() + timedelta(minutes=5)
    )
    body = api.get(STATUS).json()["queue"]
    assert (body["queued"], body["running"], body["ok"]) == (1, 1, True)


def test_it_requires_authentication(anon):
    assert anon.get(STATUS).status_code == 401


@pytest.fixture
def pair(settings):
    instances = InstancePair(settings)
    yield instances
    instances.stop()


def test_it_lists_every_instance_by_name_and_its_address_only_to_staff(pair, api, staff_api):
    RSSHubInstance.objects.filter(pk=pair.a.pk).update(access_key=KEY, name="primary")
    failing_on_its_own(pair.b_server, Reply(503, body=b"down"))
    for client, staff in ((api, False), (staff_api, True)):
        response = client.get(STATUS)
        body = response.json()["rsshub"]
        instances = [(i["name"], i["ok"], i["http_status"]) for i in body["instances"]]
        assert instances == [("primary", True, 200), (pair.b.label, False, 503)]
        assert body["ok"] is True, "one instance answers"
        text = response.content.decode()
        assert KEY not in text
        assert (pair.a_url.removeprefix("http://") in text) is staff
        assert all(i["egress_ok"] and i["circuit"] == "closed" for i in body["instances"])


@pytest.mark.parametrize("reachable", [True, False])
def test_it_reports_the_redis_brokers_backlog(api, rsshub_stand_in, monkeypatch, reachable):
    """On Q_BROKER=redis the backlog is the length of the broker's list."""
    from django_q.brokers import get_broker

    url = redis_test_url("broker") if reachable else "redis://127.0.0.1:9/0"  # 9: nobody
    monkeypatch.setattr(Conf, "ORM", None)
    monkeypatch.setattr(Conf, "BROKER_CLASS", None)
    monkeypatch.setattr(Conf, "REDIS", url)
    monkeypatch.setattr(Conf, "CLUSTER_NAME", f"status-{uuid.uuid4().hex[:12]}")
    broker = get_broker()
    if reachable:
        broker.enqueue("one")
        broker.enqueue("two")
    try:
        body = api.get(STATUS).json()["queue"]
    finally:
        if reachable:
            broker.delete_queue()
    if reachable:
        assert (body["queued"], body["ok"]) == (2, True)
    else:
        assert (body["queued"], body["ok"]) == (None, False)
