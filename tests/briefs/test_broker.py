"""The worker queue's wake-up (``briefs.broker``): a queued task wakes a waiting pusher through
PostgreSQL's NOTIFY or Redis, instead of waiting out its poll; without either it polls; a failed
wake-up never fails the enqueue. The poll is pushed past the test's deadline, so a task taken in
time was taken because of the wake-up."""

import threading
import uuid

import pytest
import redis
from django.db import connections
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import OrmQ

from briefs import broker
from briefs.broker import WakingORM, wake_transport
from tests.redis_dbs import redis_test_url

pytestmark = pytest.mark.django_db(transaction=True)
REDIS_TEST_URL = redis_test_url("broker")
DEADLINE_SECONDS = 10  # for a wake-up that must come, not a measured time
LONG_POLL = 60.0


@pytest.fixture
def long_poll(monkeypatch):
    monkeypatch.setattr(Conf, "POLL", LONG_POLL)


@pytest.fixture
def redis_wake(settings, monkeypatch):
    settings.REDIS_URL = REDIS_TEST_URL
    # Pub/sub channels ignore Redis's database number: one of this test's own.
    monkeypatch.setattr(broker, "WAKE_CHANNEL", f"test-queue-{uuid.uuid4().hex}")
    monkeypatch.setattr(WakingORM, "_publisher", None)


class Pusher(threading.Thread):
    """A pusher's loop: dequeue until a task is taken or the deadline passes."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.broker = WakingORM(list_key=Conf.CLUSTER_NAME)
        self.waiting = threading.Event()
        self.taken: list = []

    def run(self) -> None:
        try:
            self.broker.get_connection().exists()  # connected before the test goes on
            if wake_transport() != "poll":
                self.broker._listener_open(wake_transport())  # listening before the task comes
            self.waiting.set()
            while not self.taken:
                self.taken = self.broker.dequeue() or []
        finally:
            self.broker._listener_close()
            connections.close_all()


def take_one_queued(task: str) -> list:
    pusher = Pusher()
    pusher.start()
    assert pusher.waiting.wait(DEADLINE_SECONDS), "the pusher never started waiting"
    get_broker().enqueue(task)
    pusher.join(DEADLINE_SECONDS)
    assert not pusher.is_alive(), f"the task waited for the {LONG_POLL:.0f} s poll: no wake-up"
    return [payload for _, payload in pusher.taken]


def test_the_broker_is_the_waking_one():
    assert isinstance(get_broker(), WakingORM)


@pytest.mark.postgres
def test_notify_wakes_a_waiting_pusher(long_poll):
    assert wake_transport() == "notify", "PostgreSQL without Redis"

    assert take_one_queued("task-a") == ["task-a"]


def test_redis_wakes_a_waiting_pusher(long_poll, redis_wake):
    assert wake_transport() == "redis"

    assert take_one_queued("task-b") == ["task-b"]


def test_without_a_wake_up_the_pusher_polls(monkeypatch, settings):
    monkeypatch.setattr(broker, "wake_transport", lambda: "poll")
    monkeypatch.setattr(Conf, "POLL", 0.01)

    assert take_one_queued("task-c") == ["task-c"]


def test_a_failed_wake_up_still_queues_the_task(settings, monkeypatch):
    settings.REDIS_URL = "redis://127.0.0.1:9/0"  # nothing listens on port 9
    monkeypatch.setattr(WakingORM, "_publisher", None)

    package_id = get_broker().enqueue("task-d")

    assert OrmQ.objects.get(pk=package_id).payload == "task-d"


def test_a_task_under_another_pushers_lock_is_not_taken(long_poll, redis_wake):
    get_broker().enqueue("task-e")
    first = WakingORM(list_key=Conf.CLUSTER_NAME).dequeue()
    assert [payload for _, payload in first] == ["task-e"]

    pusher = Pusher()
    pusher.start()
    assert pusher.waiting.wait(DEADLINE_SECONDS)
    redis.Redis.from_url(REDIS_TEST_URL).publish(broker.WAKE_CHANNEL, b"1")  # a stray wake-up
    get_broker().enqueue("task-f")
    pusher.join(DEADLINE_SECONDS)
    assert [payload for _, payload in pusher.taken] == ["task-f"], "task-e is locked by the first"
