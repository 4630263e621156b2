"""The step log: gapless numbering under concurrent writers, the documented kinds, and the
doorbell to the brief's channel group once the step is committed."""

import re
import threading
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

import agent
import briefs.steps
from briefs.models import Brief, RunStep
from briefs.steps import STEP_KINDS, STEP_MESSAGE_TYPE, step_append, steps_after, steps_append

BRIEFS = Path(briefs.steps.__file__).resolve().parent
AGENT = Path(agent.__file__).resolve().parent  # the agent writes most steps


@pytest.fixture
def brief(owner):
    return Brief.objects.create(owner=owner, question="Alpha Wire news")


@pytest.fixture
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    layer = get_channel_layer()
    async_to_sync(layer.flush)()
    yield layer
    async_to_sync(layer.flush)()


def test_steps_are_numbered_from_one_in_order(brief):
    step_append(brief_id=brief.pk, kind="run_started", payload={"mode": "offline"})
    step_append(brief_id=brief.pk, kind="query_rewritten", payload={"query": "q"})

    rows = list(RunStep.objects.filter(brief=brief).values_list("seq", "kind", "payload"))
    assert rows == [(1, "run_started", {"mode": "offline"}), (2, "query_rewritten", {"query": "q"})]
    brief.refresh_from_db()
    assert brief.step_seq == 2


def test_steps_written_together_take_consecutive_seqs_in_order(brief):
    step_append(brief_id=brief.pk, kind="step_started", payload={"node": "platform"})

    rows = steps_append(
        brief_id=brief.pk,
        steps=[("candidates", {"items": []}), ("choice", {"chosen": ["alpha"]})],
    )

    assert [(r.seq, r.kind) for r in rows] == [(2, "candidates"), (3, "choice")]
    stored = list(RunStep.objects.filter(brief=brief).values_list("seq", "kind", "payload"))
    assert stored[1:] == [(2, "candidates", {"items": []}), (3, "choice", {"chosen": ["alpha"]})]
    brief.refresh_from_db()
    assert brief.step_seq == 3


def test_steps_written_together_cost_what_one_step_costs(brief):
    with CaptureQueriesContext(connection) as one:
        step_append(brief_id=brief.pk, kind="router", payload={})
    with CaptureQueriesContext(connection) as three:
        steps_append(brief_id=brief.pk, steps=[("router", {}), ("router", {}), ("router", {})])

    assert len(three.captured_queries) == len(one.captured_queries)


def test_one_undocumented_kind_among_several_writes_none(brief):
    with pytest.raises(ValueError, match="unknown step kind 'guess'"):
        steps_append(brief_id=brief.pk, steps=[("router", {}), ("guess", {})])

    assert not RunStep.objects.exists()


def test_an_undocumented_kind_is_refused(brief):
    with pytest.raises(ValueError, match="unknown step kind 'guess'"):
        step_append(brief_id=brief.pk, kind="guess", payload={})

    assert not RunStep.objects.exists()


def test_steps_after_replays_from_a_seq(brief):
    for n in range(5):
        step_append(brief_id=brief.pk, kind="router", payload={"n": n})

    assert [s.seq for s in steps_after(brief_id=brief.pk, after=2)] == [3, 4, 5]
    assert [s.seq for s in steps_after(brief_id=brief.pk, after=0, limit=2)] == [1, 2]


@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_get_unique_gapless_seqs(django_user_model):
    owner = django_user_model.objects.create_user("writer")
    brief = Brief.objects.create(owner=owner, question="q")
    start = threading.Barrier(4)

    def writer(n: int) -> None:
        try:
            start.wait()
            for i in range(10):
                step_append(brief_id=brief.pk, kind="router", payload={"writer": n, "i": i})
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    seqs = sorted(RunStep.objects.filter(brief=brief).values_list("seq", flat=True))
    assert seqs == list(range(1, 41))


def pending(layer, channel) -> int:
    queue = layer.channels.get(channel)
    return queue.qsize() if queue is not None else 0


def test_the_group_hears_of_a_step_once_it_is_committed(
    brief, in_memory_layer, django_capture_on_commit_callbacks
):
    channel = async_to_sync(in_memory_layer.new_channel)()
    async_to_sync(in_memory_layer.group_add)(brief.group_name, channel)

    with django_capture_on_commit_callbacks(execute=True):
        step = step_append(brief_id=brief.pk, kind="run_started", payload={})
        assert pending(in_memory_layer, channel) == 0  # not before the commit

    message = async_to_sync(in_memory_layer.receive)(channel)
    assert message == {"type": STEP_MESSAGE_TYPE, "brief_id": brief.pk, "seq": step.seq}
    assert brief.group_name == f"brief.{brief.pk}"


def test_a_dead_channel_layer_does_not_fail_the_step(
    brief, settings, caplog, django_capture_on_commit_callbacks
):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": ["redis://127.0.0.1:9/0"]},  # nothing listens on port 9
        }
    }

    with django_capture_on_commit_callbacks(execute=True):
        step = step_append(brief_id=brief.pk, kind="run_started", payload={})

    assert step.seq == 1
    assert RunStep.objects.filter(brief=brief, seq=1).exists()
    assert f"could not notify brief.{brief.pk} of step 1" in caplog.text


def test_every_kind_is_documented_and_every_kind_the_code_writes_is_known():
    documented = set(re.findall(r"^- ``(\w+)``", briefs.steps.__doc__, flags=re.M))
    written = set()
    for source in [*BRIEFS.rglob("*.py"), *AGENT.rglob("*.py")]:
        text = source.read_text(encoding="utf-8")
        written |= set(re.findall(r"ctx\.step(?:_hold)?\(\s*\"(\w+)\"", text))
        written |= set(re.findall(r"kind=\"(\w+)\"", text))

    assert documented == STEP_KINDS
    assert written - STEP_KINDS == set()
    assert {"fetch_result", "router", "llm_usage", "run_cancelled"} <= written
