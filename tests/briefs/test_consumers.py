"""The websocket of a brief, through the real ASGI stack (origin check, session auth, routing):
who may watch, replay after a seq, live steps by polling and by doorbell, reconnects without a
gap or a duplicate, one shared reader per brief."""

import asyncio
import json
import re
import threading
import time
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

from briefs import doorbell, live
from briefs.consumers import CLOSE_GONE, CLOSE_NOT_SIGNED_IN, CLOSE_NOT_YOURS
from briefs.models import Brief, BriefStatus
from briefs.services import brief_create
from briefs.steps import step_append
from rsshub_agent.asgi import application
from tests.waiting import eventually

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


async def connect(
    brief_id: int | str,
    cookie: bytes | None,
    *,
    after: int = 0,
    origin=ORIGIN,
    query: str | None = None,
):
    headers = [origin] + ([(b"cookie", cookie)] if cookie else [])
    query = f"after={after}&lang=en" if query is None else query
    communicator = WebsocketCommunicator(
        application, f"/ws/briefs/{brief_id}/?{query}", headers=headers
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    return communicator, connected


def feeds_here() -> dict[int, live.BriefFeed]:
    """This event loop's shared readers, by brief."""
    return live._feeds.get(asyncio.get_running_loop(), {})


async def receive_steps(communicator, count: int) -> list[dict]:
    steps = []
    while len(steps) < count:
        message = await communicator.receive_json_from(timeout=TIMEOUT)
        if message["type"] == "step":
            steps.append(message)
    return steps


async def next_step_is(communicator, seq: int) -> None:
    """Nothing was sent twice: after the steps read so far, the next step to arrive is ``seq``,
    which the caller has just appended (an event to wait for, where a quiet pause would only
    hope that a duplicate had had time to arrive)."""
    step = (await receive_steps(communicator, 1))[0]
    assert step["seq"] == seq, f"step {step['seq']} arrived before the new step {seq}"


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


async def test_the_status_badge_is_labelled_in_the_pages_language(brief, owner_cookie):
    communicator, _ = await connect(brief.pk, owner_cookie, query="after=0&lang=zh-hans")
    status = await first_status(communicator)
    assert (status["status"], status["status_label"]) == ("running", "运行中")


async def test_it_replays_the_steps_after_the_given_seq(brief, owner_cookie):
    await append(brief.pk, 3)
    communicator, _ = await connect(brief.pk, owner_cookie, after=1)
    status = await first_status(communicator)
    assert status["status"] == "running" and status["queue_position"] is None
    steps = await receive_steps(communicator, 2)
    assert [s["seq"] for s in steps] == [2, 3]
    assert 'data-seq="2"' in steps[0]["html"] and "Step 1 of 8" in steps[0]["html"]
    await append(brief.pk, 1)
    await next_step_is(communicator, 4)
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
    """Push mode, as with Redis: the in-memory layer stands in for it inside one process. The
    feed's only timed read comes after 30 s, past the receive deadline: the doorbell delivers."""
    monkeypatch.setattr(doorbell, "layer_pushes", lambda layer: True)
    monkeypatch.setattr(live, "SAFETY_SECONDS", 30.0)
    assert TIMEOUT < live.SAFETY_SECONDS
    communicator, _ = await connect(brief.pk, owner_cookie)
    await first_status(communicator)
    layer = get_channel_layer()

    def feed_asleep() -> bool:
        feed = feeds_here().get(brief.pk)
        return bool(feed and feed._state_read and layer.groups.get(f"brief.{brief.pk}"))

    await eventually(feed_asleep, what="the feed to join the brief's group and read once")
    await append(brief.pk, 1)
    [step] = await receive_steps(communicator, 1)
    assert step["seq"] == 1
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
    await append(brief.pk, 1)
    await next_step_is(second, 6)
    await second.disconnect()


@pytest.mark.parametrize("pushes", [False, True], ids=["poll", "push"])
async def test_joining_while_steps_pour_in_sees_each_exactly_once(
    brief, owner_cookie, monkeypatch, pushes
):
    monkeypatch.setattr(doorbell, "layer_pushes", lambda layer: pushes)
    early, _ = await connect(brief.pk, owner_cookie)
    half_written = threading.Event()
    writer = asyncio.ensure_future(
        database_sync_to_async(_append_slowly)(brief.pk, 40, half_written)
    )  # a worker writing while others join
    assert await asyncio.to_thread(half_written.wait, TIMEOUT), "the writer never got halfway"
    late, _ = await connect(brief.pk, owner_cookie)
    await writer
    for communicator in (early, late):
        seqs = [s["seq"] for s in await receive_steps(communicator, 40)]
        assert seqs == list(range(1, 41))
    await append(brief.pk, 1)
    for communicator in (early, late):
        await next_step_is(communicator, 41)  # and nothing twice
        await communicator.disconnect()


def _append_slowly(brief_id: int, n: int, half_written: threading.Event) -> None:
    for i in range(n):
        step_append(brief_id=brief_id, kind="step_started", payload={"step": 1, "budget": 8})
        if i == n // 2:
            half_written.set()
        time.sleep(0.005)  # pacing, so that the late watcher joins mid-stream


async def test_watchers_of_a_brief_share_one_reader(brief, owner_cookie):
    one, _ = await connect(brief.pk, owner_cookie)
    two, _ = await connect(brief.pk, owner_cookie)
    await first_status(one)
    await first_status(two)
    await eventually(  # each joins right after its replay
        lambda: brief.pk in feeds_here() and len(feeds_here()[brief.pk].watchers) == 2,
        what="both watchers to join the brief's feed",
    )
    feeds = feeds_here()
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
    await communicator.disconnect()


# --- hostile input at the boundary -------------------------------------------------------------
# Each case closes with a code or is ignored, and never shows another brief's steps. Cases run as
# subtests of one test per kind of input: one world (two users, two briefs) serves them all.

SECRET = "another brief's secret step"


@pytest.fixture
def foreign_brief(other_user):
    """Another user's running brief with a step of its own: no hostile watcher may see it."""
    created = brief_create(owner=other_user, question="mallory's own question", enqueue=False)
    Brief.objects.filter(pk=created.pk).update(status=BriefStatus.RUNNING)
    step_append(brief_id=created.pk, kind="choice", payload={"node": "route", "reason": SECRET})
    return created


async def messages_until_steps(communicator, count: int) -> list[dict]:
    """Every message up to and including the ``count``-th step, then nothing more."""
    messages: list[dict] = []
    while sum(m["type"] == "step" for m in messages) < count:
        messages.append(await communicator.receive_json_from(timeout=TIMEOUT))
    assert await communicator.receive_nothing(0.2), "nothing after the expected steps"
    return messages


def assert_own_steps_only(messages: list[dict], seqs: list[int]) -> None:
    assert [m["seq"] for m in messages if m["type"] == "step"] == seqs
    assert SECRET not in json.dumps(messages), "another brief's step leaked"


async def watch_steps(brief_id: int, cookie: bytes, count: int, *, query: str) -> list[dict]:
    communicator, _ = await connect(brief_id, cookie, query=query)
    try:
        return await messages_until_steps(communicator, count)
    finally:
        await communicator.disconnect()


FRAMES = {  # ASGI websocket.receive messages, as the server hands over a client's frames
    "json text": {"text": json.dumps({"type": "subscribe", "brief": 1, "after": -1})},
    "plain text": {"text": "not json {"},
    "empty text": {"text": ""},
    "binary": {"bytes": bytes(range(256))},
    "empty binary": {"bytes": b""},
    "huge text": {"text": "x" * 2_000_000},
    "huge binary": {"bytes": b"\xff" * 2_000_000},
    "text and binary": {"text": "{}", "bytes": b"{}"},
    "neither": {},
    "many": None,  # 1,000 small frames, text and binary
}


@pytest.mark.usefixtures("foreign_brief")
async def test_a_client_frame_of_any_kind_is_ignored(brief, owner_cookie, subtests):
    communicator, _ = await connect(brief.pk, owner_cookie)
    await first_status(communicator)
    for seq, (name, frame) in enumerate(FRAMES.items(), start=1):
        with subtests.test(frame=name):
            frames = [frame] if frame is not None else [
                {"text": f'{{"after": {n}}}'} if n % 2 else {"bytes": n.to_bytes(2, "big")}
                for n in range(1000)
            ]  # fmt: skip
            for each in frames:
                await communicator.send_input({"type": "websocket.receive", **each})
            await append(brief.pk, 1)
            assert_own_steps_only(await messages_until_steps(communicator, 1), [seq])
    await communicator.disconnect()


HOSTILE_AFTER = {
    "word": "abc",
    "negative": "-1",
    "float": "1.5",
    "exponent": "1e3",
    "hex": "0x1",
    "spaces": "%201%20",
    "superscript digit": "%C2%B2",  # "²": str.isdigit() says yes, int() says no
    "arabic-indic digit": "%D9%A1",  # U+0661: a digit to Python, not to a browser
    "huge": "9" * 4000,
    "beyond int64": "99999999999999999999",
    "invalid utf-8": "%FF%FE",
    "empty": "",
}


@pytest.mark.usefixtures("foreign_brief")
async def test_a_malformed_after_replays_the_whole_log(brief, owner_cookie, subtests):
    """Only plain ASCII digits name a seq; anything else is read as "from the start"."""
    await append(brief.pk, 2)
    for name, after in HOSTILE_AFTER.items():
        with subtests.test(after=name):
            messages = await watch_steps(brief.pk, owner_cookie, 2, query=f"after={after}")
            assert messages[0]["type"] == "status"
            assert_own_steps_only(messages, [1, 2])
    with subtests.test(after="no value"):
        assert_own_steps_only(await watch_steps(brief.pk, owner_cookie, 2, query="after"), [1, 2])


async def test_an_out_of_range_or_padded_brief_id_is_refused_like_a_missing_one(
    owner_cookie, foreign_brief, subtests
):
    for brief_id in ["9" * 30, "0", f"000{foreign_brief.pk}"]:
        with subtests.test(brief_id=brief_id):
            communicator, _ = await connect(brief_id, owner_cookie)
            assert await close_code(communicator) == CLOSE_NOT_YOURS


HOSTILE_LANG = {
    "unknown": "lang=xx",
    "unknown region": "lang=en-ZZ-private",
    "path": "lang=../../etc/passwd",
    "nul": "lang=en%00",
    "huge": "lang=" + "en" * 5000,
    "script tag": "lang=%3Cscript%3E",
    "twice": "lang=xx&lang=zh-hans",
}


@pytest.mark.usefixtures("foreign_brief")
async def test_an_unknown_language_falls_back_to_the_default(brief, owner_cookie, subtests):
    await append(brief.pk, 1)
    for name, lang in HOSTILE_LANG.items():
        with subtests.test(lang=name):
            messages = await watch_steps(brief.pk, owner_cookie, 1, query=f"after=0&{lang}")
            assert_own_steps_only(messages, [1])
            assert "Step 1 of 8" in messages[-1]["html"], "rendered in the default, English"


HOSTILE_ZONES = {
    "path": "../../../etc/localtime",
    "absolute": "/etc/localtime",
    "unknown": "Mars/Olympus_Mons",
    "newline": '"UTC\\n"',
    "nul": '"UTC\\000"',
    "huge": "Europe/" + "x" * 10_000,
    "non-ascii": "%E4%B8%8A%E6%B5%B7",
}


def shown_time(step: dict) -> str:
    """The clock time the timeline entry shows."""
    return re.search(r">(\d\d:\d\d:\d\d)</time>", step["html"]).group(1)


def time_in(step: dict, zone: str) -> str:
    return datetime.fromisoformat(step["created_at"]).astimezone(ZoneInfo(zone)).strftime("%T")


@pytest.mark.usefixtures("foreign_brief")
async def test_a_hostile_time_zone_cookie_renders_in_utc(brief, owner_cookie, subtests):
    await append(brief.pk, 1)
    with subtests.test(zone="a real one, for contrast"):
        cookie = owner_cookie + b"; tz=Asia/Kathmandu"  # +05:45, never UTC's clock
        [step] = (await watch_steps(brief.pk, cookie, 1, query="after=0&lang=en"))[1:]
        assert shown_time(step) == time_in(step, "Asia/Kathmandu") != time_in(step, "UTC")
    for name, zone in HOSTILE_ZONES.items():
        with subtests.test(zone=name):
            cookie = owner_cookie + b"; tz=" + zone.encode()
            messages = await watch_steps(brief.pk, cookie, 1, query="after=0&lang=en")
            assert_own_steps_only(messages, [1])
            assert shown_time(messages[-1]) == time_in(messages[-1], "UTC")


GARBLED_COOKIE_HEADERS = {
    "undecodable bytes": b"\xff\xfe\xfd=\x80\x81",
    "empty pairs": b";;; =; =;",
    "no equals": b"sessionid; tz",
    "huge": b"junk=" + b"j" * 100_000,
}


@pytest.mark.usefixtures("foreign_brief")
async def test_a_garbled_cookie_header_still_reads_the_session(brief, owner_cookie, subtests):
    await append(brief.pk, 1)
    for name, junk in GARBLED_COOKIE_HEADERS.items():
        with subtests.test(header=name):
            cookie = junk + b"; " + owner_cookie
            messages = await watch_steps(brief.pk, cookie, 1, query="after=0&lang=en")
            assert_own_steps_only(messages, [1])


async def test_a_forged_session_is_refused_with_4401(brief, subtests):
    for name, cookie in {
        "forged": b"sessionid=forged",
        "huge": b"sessionid=" + b"s" * 10_000,
        "undecodable": b"sessionid=\xff\xfe",
    }.items():
        with subtests.test(session=name):
            communicator, _ = await connect(brief.pk, cookie)
            assert await close_code(communicator) == CLOSE_NOT_SIGNED_IN


async def test_anothers_session_after_the_owners_opens_neither_brief(brief, other_user):
    """Two session cookies in one header: the later one wins, and that user sees only their own
    briefs."""
    alice = await sync_to_async(session_cookie)(brief.owner)
    mallory = await sync_to_async(session_cookie)(other_user)
    communicator, _ = await connect(brief.pk, alice + b"; " + mallory)
    assert await close_code(communicator) == CLOSE_NOT_YOURS
