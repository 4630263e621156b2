"""The websocket of a brief, through the real ASGI stack (origin check, session auth, routing):
who may watch, replay after a seq, live steps by polling and by doorbell, reconnects without a
gap or a duplicate, one shared reader per brief."""

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from briefs import live
from briefs.consumers import CLOSE_GONE, CLOSE_NOT_SIGNED_IN, CLOSE_NOT_YOURS
from briefs.models import Brief, BriefStatus
from briefs.services import brief_create
from briefs.steps import step_append
from rsshub_agent.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ORIGIN = (b"origin", b"http://localhost")
TIMEOUT = 5


@pytest.fixture(autouse=True)
def fast_polling(settings):
    settings.DASHBOARD_POLL_SECONDS = 0.05
    yield
    live.reader_close()  # its connection must not outlive the test database


def session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


@pytest.fixture
def owner_cookie(owner):
    return session_cookie(owner)


@pytest.fixture
def brief(owner):
    created = brief_create(owner=owner, question="what is new on rsshub test", enqueue=False)
    Brief.objects.filter(pk=created.pk).update(status=BriefStatus.RUNNING)
    return created


def append(brief_id: int, n: int = 1, kind: str = "step_started"):
    """Append ``n`` steps from a worker-like thread (own connection, own commit)."""

    def write():
        for _ in range(n):
            step_append(
                brief_id=brief_id, kind=kind, payload={"step": 1, "budget": 8, "node": "fetch"}
            )

    return database_sync_to_async(write)()


async def connect(brief_id: int, cookie: bytes | None, *, after: int = 0, origin=ORIGIN):
    headers = [origin] + ([(b"cookie", cookie)] if cookie else [])
    communicator = WebsocketCommunicator(
        application, f"/ws/briefs/{brief_id}/?after={after}&lang=en", headers=headers
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    return communicator, connected


async def receive_steps(communicator, count: int) -> list[dict]:
    steps = []
    while len(steps) < count:
        message = await communicator.receive_json_from(timeout=TIMEOUT)
        if message["type"] == "step":
            steps.append(message)
    return steps


async def first_status(communicator) -> dict:
    message = await communicator.receive_json_from(timeout=TIMEOUT)
    assert message["type"] == "status", "a watcher first learns the brief's state"
    return message


async def close_code(communicator) -> int:
    message = await communicator.receive_output(timeout=TIMEOUT)
    assert message["type"] == "websocket.close"
    return message.get("code")


# --- who may watch ----------------------------------------------------------------------------


async def test_it_refuses_an_anonymous_watcher_with_4401(brief):
    communicator, connected = await connect(brief.pk, None)
    assert connected, "accepted so that the close code reaches the browser"
    assert await close_code(communicator) == CLOSE_NOT_SIGNED_IN


async def test_it_refuses_another_user_with_4403(brief, other_user):
    communicator, _ = await connect(brief.pk, await sync_to_async(session_cookie)(other_user))
    assert await close_code(communicator) == CLOSE_NOT_YOURS


async def test_it_refuses_a_missing_brief_with_the_same_4403(owner_cookie):
    communicator, _ = await connect(987654, owner_cookie)
    assert await close_code(communicator) == CLOSE_NOT_YOURS


async def test_it_refuses_a_foreign_origin(brief, owner_cookie):
    _, connected = await connect(
        brief.pk, owner_cookie, origin=(b"origin", b"https://evil.example")
    )
    assert not connected


# --- replay and live ----------------------------------------------------------------------------


async def test_it_replays_the_steps_after_the_given_seq(brief, owner_cookie):
    await append(brief.pk, 3)
    communicator, _ = await connect(brief.pk, owner_cookie, after=1)
    status = await first_status(communicator)
    assert status["status"] == "running" and status["queue_position"] is None
    steps = await receive_steps(communicator, 2)
    assert [s["seq"] for s in steps] == [2, 3]
    assert 'data-seq="2"' in steps[0]["html"] and "Step 1 of 8" in steps[0]["html"]
    assert await communicator.receive_nothing(0.3)
    await communicator.disconnect()


async def test_it_polls_new_steps_and_status_without_a_cross_process_layer(brief, owner_cookie):
    communicator, _ = await connect(brief.pk, owner_cookie)
    await first_status(communicator)
    await append(brief.pk, 2)
    assert [s["seq"] for s in await receive_steps(communicator, 2)] == [1, 2]
    await database_sync_to_async(Brief.objects.filter(pk=brief.pk).update)(
        status=BriefStatus.SUCCEEDED
    )
    await append(brief.pk, 1, kind="brief_ready")
    messages = [await communicator.receive_json_from(timeout=TIMEOUT) for _ in range(2)]
    status = next(m for m in messages if m["type"] == "status")
    assert status["status"] == "succeeded" and status["finished"] is True
    await communicator.disconnect()


async def test_a_doorbell_delivers_without_waiting_for_a_poll(brief, owner_cookie, monkeypatch):
    """Push mode, as with Redis: the in-memory layer stands in for it inside one process."""
    monkeypatch.setattr(live, "layer_pushes", lambda layer: True)
    monkeypatch.setattr(live, "SAFETY_SECONDS", 30.0)  # no timed read could deliver in time
    communicator, _ = await connect(brief.pk, owner_cookie)
    await first_status(communicator)
    await asyncio.sleep(0.2)  # the feed has joined the group and gone to sleep
    started = asyncio.get_running_loop().time()
    await append(brief.pk, 1)
    [step] = await receive_steps(communicator, 1)
    assert step["seq"] == 1
    assert asyncio.get_running_loop().time() - started < 2.0
    await communicator.disconnect()


async def test_a_reconnect_resumes_without_a_gap_or_a_duplicate(brief, owner_cookie):
    first, _ = await connect(brief.pk, owner_cookie)
    await first_status(first)
    await append(brief.pk, 2)
    seen = [s["seq"] for s in await receive_steps(first, 2)]
    await first.disconnect()
    await append(brief.pk, 2)  # committed while nobody watches
    second, _ = await connect(brief.pk, owner_cookie, after=seen[-1])
    await first_status(second)
    seen += [s["seq"] for s in await receive_steps(second, 2)]
    await append(brief.pk, 1)
    seen += [s["seq"] for s in await receive_steps(second, 1)]
    assert seen == [1, 2, 3, 4, 5]
    assert await second.receive_nothing(0.3)
    await second.disconnect()


@pytest.mark.parametrize("pushes", [False, True], ids=["poll", "push"])
async def test_joining_while_steps_pour_in_sees_each_exactly_once(
    brief, owner_cookie, monkeypatch, pushes
):
    monkeypatch.setattr(live, "layer_pushes", lambda layer: pushes)
    early, _ = await connect(brief.pk, owner_cookie)
    writer = asyncio.ensure_future(
        database_sync_to_async(_append_slowly)(brief.pk, 40)
    )  # a worker writing while others join
    await asyncio.sleep(0.1)
    late, _ = await connect(brief.pk, owner_cookie)
    await writer
    for communicator in (early, late):
        seqs = [s["seq"] for s in await receive_steps(communicator, 40)]
        assert seqs == list(range(1, 41))
        assert await communicator.receive_nothing(0.3), "and nothing twice"
        await communicator.disconnect()


def _append_slowly(brief_id: int, n: int) -> None:
    import time

    for _ in range(n):
        step_append(brief_id=brief_id, kind="step_started", payload={"step": 1, "budget": 8})
        time.sleep(0.005)


async def test_watchers_of_a_brief_share_one_reader(brief, owner_cookie):
    one, _ = await connect(brief.pk, owner_cookie)
    two, _ = await connect(brief.pk, owner_cookie)
    await first_status(one)
    await first_status(two)
    feeds = live._feeds[asyncio.get_running_loop()]
    for _ in range(50):  # each joins right after its replay
        if brief.pk in feeds and len(feeds[brief.pk].watchers) == 2:
            break
        await asyncio.sleep(0.02)
    assert list(feeds) == [brief.pk]
    assert len(feeds[brief.pk].watchers) == 2
    await one.disconnect()
    await two.disconnect()
    assert brief.pk not in feeds, "the reader stops with its last watcher"


async def test_a_deleted_brief_closes_its_watchers_with_4410(brief, owner_cookie):
    communicator, _ = await connect(brief.pk, owner_cookie)
    await first_status(communicator)
    await database_sync_to_async(Brief.objects.filter(pk=brief.pk).delete)()
    while True:
        message = await communicator.receive_output(timeout=TIMEOUT)
        if message["type"] == "websocket.close":
            break
    assert message["code"] == CLOSE_GONE


async def test_step_html_is_escaped(brief, owner_cookie):
    hostile = "<script>alert(1)</script>"
    await database_sync_to_async(step_append)(
        brief_id=brief.pk,
        kind="choice",
        payload={"node": "route", "chosen": [hostile], "reason": hostile, "method": "model"},
    )
    communicator, _ = await connect(brief.pk, owner_cookie)
    [step] = await receive_steps(communicator, 1)
    assert "<script>" not in step["html"]
    assert "&lt;script&gt;" in step["html"]
    assert step["payload"]["reason"] == hostile, "the JSON payload is data, as written"
    assert json.dumps(step)  # serialisable as sent
    await communicator.disconnect()
