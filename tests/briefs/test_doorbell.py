"""The doorbell of the step log without Redis: PostgreSQL's NOTIFY, sent inside the step's own
transaction and heard by a real LISTEN connection, and on SQLite one read of the watched briefs'
counters per poll. Through the websocket, the feed's own safety reads are pushed past the
receive deadline: a step that arrives came by the doorbell."""

import asyncio

import psycopg
import pytest
from channels.db import database_sync_to_async
from django.db import transaction

from briefs import doorbell, live
from briefs.models import Brief, BriefStatus
from briefs.services import brief_create
from briefs.steps import step_append
from tests.briefs.test_consumers import (
    append,
    connect,
    feeds_here,
    first_status,
    receive_steps,
    session_cookie,
)
from tests.waiting import eventually

pytestmark = pytest.mark.django_db(transaction=True)
NOTICE_SECONDS = 10  # a deadline for a notification that must come, not a measured time


@pytest.fixture
def brief(owner):
    created = brief_create(owner=owner, question="what is new on rsshub test", enqueue=False)
    Brief.objects.filter(pk=created.pk).update(status=BriefStatus.RUNNING)
    return created


@pytest.fixture(autouse=True)
def reader_closed():
    yield
    live.reader_close()  # its connection must not outlive the test database


@pytest.fixture
def listener():
    """A real LISTEN connection of its own on the steps' channel."""
    with psycopg.connect(**doorbell.listen_params(), autocommit=True) as conn:
        conn.execute(f"LISTEN {doorbell.CHANNEL}")
        yield conn


def next_notice(conn) -> str:
    for note in conn.notifies(timeout=NOTICE_SECONDS, stop_after=1):
        return note.payload
    raise AssertionError("no notification came")


@pytest.mark.postgres
def test_a_committed_step_notifies_with_its_brief(brief, listener):
    assert doorbell.transport() == "notify", "PostgreSQL without Redis"

    step_append(brief_id=brief.pk, kind="run_started", payload={})

    assert next_notice(listener) == str(brief.pk)


@pytest.mark.postgres
def test_a_rolled_back_step_notifies_nobody(brief, owner, listener):
    other = brief_create(owner=owner, question="another", enqueue=False)
    with pytest.raises(RuntimeError), transaction.atomic():
        step_append(brief_id=brief.pk, kind="run_started", payload={})
        raise RuntimeError("the run's transaction fails")

    step_append(brief_id=other.pk, kind="run_started", payload={})

    # Notifications arrive in commit order: the first is the committed step's.
    assert next_notice(listener) == str(other.pk)


@pytest.mark.postgres
def test_a_step_of_a_missing_brief_notifies_nobody(brief, listener):
    with pytest.raises(Brief.DoesNotExist):
        step_append(brief_id=brief.pk + 1000, kind="run_started", payload={})

    step_append(brief_id=brief.pk, kind="run_started", payload={})

    assert next_notice(listener) == str(brief.pk)


def test_counters_are_one_query_for_every_watched_brief(owner, brief, django_assert_num_queries):
    other = brief_create(owner=owner, question="another", enqueue=False)
    step_append(brief_id=brief.pk, kind="run_started", payload={})

    with django_assert_num_queries(1):
        counters = doorbell.counters_read([brief.pk, other.pk, brief.pk + 1000])

    assert counters == {brief.pk: (1, "running"), other.pk: (0, "queued")}


@pytest.fixture
def no_safety_reads(monkeypatch):
    """Only a doorbell can deliver within the receive deadline."""
    monkeypatch.setattr(live, "SAFETY_SECONDS", 30.0)
    monkeypatch.setattr(live, "QUEUED_SECONDS", 30.0)


async def watch_one_step(brief_id: int, cookie: bytes) -> list[int]:
    communicator, _ = await connect(brief_id, cookie)
    await first_status(communicator)
    await eventually(
        lambda: brief_id in feeds_here() and feeds_here()[brief_id]._state_read,
        what="the feed to read the log once",
    )
    await append(brief_id, 2)
    seqs = [s["seq"] for s in await receive_steps(communicator, 2)]
    await communicator.disconnect()
    return seqs


@pytest.mark.postgres
@pytest.mark.asyncio
async def test_notify_delivers_a_step_to_a_watcher(brief, owner, no_safety_reads):
    assert live.SAFETY_SECONDS > 5, "the receive deadline (5 s) comes first"
    cookie = await database_sync_to_async(session_cookie)(owner)

    assert await watch_one_step(brief.pk, cookie) == [1, 2]


@pytest.mark.asyncio
async def test_the_counter_poll_delivers_a_step_to_a_watcher(
    brief, owner, no_safety_reads, monkeypatch, settings
):
    """The SQLite doorbell, on whichever database runs the suite."""
    monkeypatch.setattr(doorbell, "transport", lambda: "poll")
    settings.DASHBOARD_POLL_SECONDS = 0.02
    cookie = await database_sync_to_async(session_cookie)(owner)

    assert await watch_one_step(brief.pk, cookie) == [1, 2]
    await asyncio.sleep(0)
    assert not feeds_here(), "the poll stops with the last feed"
    assert not live._bells.get(asyncio.get_running_loop()), "and so does the process's doorbell"
