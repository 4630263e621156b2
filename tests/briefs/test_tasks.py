"""The worker task: claiming by conditional update, resuming an orphaned run once, settling
briefs no run may finish (cancelled, attempts spent), and the periodic sweep.

Runs go through the real agent in offline mode against a scripted RSSHub on 127.0.0.1. The
qcluster itself (SIGKILL mid-run, redelivery, the time limit) is in ``test_worker.py``.
"""

import uuid
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from django_q.brokers.orm import ORM
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from briefs.models import Brief, BriefStatus, RunStep
from briefs.services import brief_enqueue
from briefs.steps import step_append
from briefs.tasks import (
    LEASE_MARGIN_SECONDS,
    MAX_ATTEMPTS,
    REASON_EXHAUSTED,
    brief_claim,
    briefs_recover,
    run_brief,
    run_lease,
)
from catalog.models import Platform, Route
from catalog.search_index import search_index_invalidate
from fetching.models import Item
from fetching.paths import catalog_cache_clear
from tests.httpserver import Reply, ScriptedServer
from tests.redis_dbs import redis_test_url

QUESTION = "resumed news on Qworker Desk"
PATH = "/qworker/resumed"
RSS = (
    '<?xml version="1.0"?><rss version="2.0"><channel><title>Qworker</title>'
    "<link>https://example.com/</link><description>d</description>"
    + "".join(
        f"<item><title>Story {n}</title><link>https://example.com/{n}</link>"
        f"<guid>https://example.com/{n}</guid><pubDate>Sun, 01 Nov 2026 1{n}:00:00 GMT</pubDate>"
        "</item>"
        for n in range(4)
    )
    + "</channel></rss>"
).encode()


def _caches_clear():
    catalog_cache_clear()
    search_index_invalidate()


@pytest.fixture
def rsshub_stand_in(settings):
    """A scripted RSSHub that answers every path with the same four-item feed."""
    with ScriptedServer(default=Reply(200, {"Content-Type": "application/rss+xml"}, RSS)) as s:
        settings.RSSHUB_URL = s.url
        settings.RSSHUB_ACCESS_KEY = ""
        settings.OPENAI_API_KEY = ""
        yield s


@pytest.fixture
def qworker(db):
    """A platform of our own, so the offline run chooses it among the seeded catalog."""
    platform = Platform.objects.create(namespace="qworker", name="Qworker Desk")
    Route.objects.create(platform=platform, key="/:keyword", path="/qworker/:keyword",
                         name="Qworker news", example="/qworker/news")  # fmt: skip
    _caches_clear()
    yield platform
    _caches_clear()


def brief_in(owner, status=BriefStatus.QUEUED, *, attempts=0, age=None, **fields) -> Brief:
    """A brief as a worker may find it; ``age``: how long ago its last attempt started."""
    started = timezone.now() - age if age is not None else None
    return Brief.objects.create(owner=owner, question=QUESTION, offline=True, status=status,
                                attempts=attempts, started_at=started, **fields)  # fmt: skip


def expired() -> timedelta:
    return run_lease() + timedelta(seconds=1)


def kinds(brief: Brief) -> list[str]:
    return list(RunStep.objects.filter(brief=brief).order_by("seq").values_list("kind", flat=True))


def assert_step_log_whole(brief: Brief) -> None:
    """The brief's stored steps are 1..n once each, and its step counter says n."""
    seqs = list(RunStep.objects.filter(brief=brief).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    brief.refresh_from_db()
    assert brief.step_seq == len(seqs)


# --- claiming -----------------------------------------------------------------------------------


def test_it_claims_a_queued_brief_and_counts_the_attempt(owner):
    brief = brief_in(owner)
    assert brief_claim(brief.pk) == 1
    brief.refresh_from_db()
    assert (brief.status, brief.attempts) == (BriefStatus.RUNNING, 1)
    assert timezone.now() - brief.started_at < timedelta(seconds=5)


def test_it_leaves_a_brief_that_a_live_run_holds(owner):
    brief = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=timedelta(seconds=1))
    assert brief_claim(brief.pk) is None
    assert run_brief(brief.pk) == "not claimed"
    brief.refresh_from_db()
    assert (brief.status, brief.attempts) == (BriefStatus.RUNNING, 1)
    assert kinds(brief) == []


def test_it_reclaims_a_running_brief_once_its_lease_ran_out(owner):
    brief = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=expired())
    assert brief_claim(brief.pk) == 2
    assert brief_claim(brief.pk) is None  # the new lease holds it now


@pytest.mark.parametrize("status", [BriefStatus.SUCCEEDED, BriefStatus.FAILED,
                                    BriefStatus.CANCELLED])  # fmt: skip
def test_it_never_claims_a_finished_brief(owner, status):
    brief = brief_in(owner, status, attempts=1, age=timedelta(days=1))
    assert run_brief(brief.pk) == "not claimed"
    brief.refresh_from_db()
    assert (brief.status, brief.attempts) == (status, 1)


def test_it_ignores_a_deleted_brief(owner):
    brief = brief_in(owner)
    brief_id = brief.pk
    brief.delete()
    assert run_brief(brief_id) == "not claimed"


def test_the_lease_outlasts_the_worker_timeout_and_redelivery_outlasts_the_lease():
    # django-q kills a worker at timeout + 3 s; the ORM broker redelivers after retry.
    timeout, retry = settings.Q_CLUSTER["timeout"], settings.Q_CLUSTER["retry"]
    assert run_lease() == timedelta(seconds=timeout + LEASE_MARGIN_SECONDS)
    assert LEASE_MARGIN_SECONDS > 3
    assert retry > timeout + LEASE_MARGIN_SECONDS


# --- running ------------------------------------------------------------------------------------


def test_it_runs_a_queued_brief_to_its_end(owner, qworker, rsshub_stand_in):
    brief = brief_in(owner)
    assert run_brief(brief.pk) == "done"
    brief.refresh_from_db()
    assert (brief.status, brief.attempts, brief.mode) == (BriefStatus.SUCCEEDED, 1, "offline")
    assert [r.path for r in rsshub_stand_in.requests] == [PATH]
    assert kinds(brief)[0] == "run_started"
    assert "run_resumed" not in kinds(brief)


def test_it_resumes_an_orphaned_run_and_finishes_it_once(owner, qworker, rsshub_stand_in):
    brief = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=expired())
    # What the dead worker had written: its first steps (and its claim, above).
    step_append(brief_id=brief.pk, kind="run_started", payload={"attempt": 1})
    step_append(brief_id=brief.pk, kind="step_started", payload={"step": 1})

    assert run_brief(brief.pk) == "done"
    assert run_brief(brief.pk) == "not claimed"  # a late duplicate delivery changes nothing

    brief.refresh_from_db()
    assert (brief.status, brief.attempts) == (BriefStatus.SUCCEEDED, 2)
    steps = kinds(brief)
    assert steps[:4] == ["run_started", "step_started", "run_resumed", "run_started"]
    assert steps.count("brief_ready") == 1
    assert steps[-1] == "brief_ready"
    assert_step_log_whole(brief)
    resumed = RunStep.objects.get(brief=brief, kind="run_resumed")
    assert resumed.payload["attempt"] == 2
    assert Item.objects.filter(feed__path=PATH).count() == 4


def test_a_resumed_run_stores_no_item_twice(owner, qworker, rsshub_stand_in, settings):
    settings.FETCH_FRESH_SECONDS = 0  # the resumed run fetches again, as it would a minute later
    first = brief_in(owner)
    assert run_brief(first.pk) == "done"
    orphan = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=expired())
    assert run_brief(orphan.pk) == "done"
    assert len(rsshub_stand_in.requests) == 2
    assert Item.objects.filter(feed__path=PATH).count() == 4
    orphan.refresh_from_db()
    assert len(orphan.citations) == 4


# --- settling what no run may finish ------------------------------------------------------------


def test_it_cancels_an_orphan_whose_owner_asked_to_stop(owner, rsshub_stand_in):
    brief = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=expired(), cancel_requested=True)
    assert run_brief(brief.pk) == "cancelled"
    brief.refresh_from_db()
    assert (brief.status, brief.attempts) == (BriefStatus.CANCELLED, 1)
    assert brief.finished_at is not None
    assert kinds(brief) == ["run_cancelled"]
    assert rsshub_stand_in.requests == []
    assert run_brief(brief.pk) == "not claimed"
    assert kinds(brief) == ["run_cancelled"]


def test_it_leaves_a_cancel_request_to_the_live_run(owner):
    brief = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=timedelta(seconds=1),
                     cancel_requested=True)  # fmt: skip
    assert run_brief(brief.pk) == "not claimed"
    brief.refresh_from_db()
    assert brief.status == BriefStatus.RUNNING
    assert kinds(brief) == []


def test_it_fails_a_brief_whose_attempts_all_stopped_their_worker(owner, rsshub_stand_in):
    brief = brief_in(owner, BriefStatus.RUNNING, attempts=MAX_ATTEMPTS, age=expired())
    assert run_brief(brief.pk) == "failed"
    assert run_brief(brief.pk) == "not claimed"
    brief.refresh_from_db()
    assert (brief.status, brief.attempts) == (BriefStatus.FAILED, MAX_ATTEMPTS)
    assert brief.error == REASON_EXHAUSTED
    assert kinds(brief) == ["run_failed"]
    assert RunStep.objects.get(brief=brief).payload == {"reason": REASON_EXHAUSTED}
    assert rsshub_stand_in.requests == []


def test_the_last_attempt_still_runs(owner, qworker, rsshub_stand_in):
    brief = brief_in(owner, BriefStatus.RUNNING, attempts=MAX_ATTEMPTS - 1, age=expired())
    assert run_brief(brief.pk) == "done"
    brief.refresh_from_db()
    assert (brief.status, brief.attempts) == (BriefStatus.SUCCEEDED, MAX_ATTEMPTS)


# --- the sweep ----------------------------------------------------------------------------------


def queued_task_args() -> list[tuple]:
    return [SignedPackage.loads(row.payload)["args"] for row in OrmQ.objects.all()]


def abandoned() -> timedelta:
    return expired() + timedelta(seconds=settings.Q_CLUSTER["retry"])


def test_the_sweep_hands_an_abandoned_run_to_a_worker_again(
    owner, django_capture_on_commit_callbacks
):
    brief = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=abandoned())
    with django_capture_on_commit_callbacks(execute=True):
        assert briefs_recover() == {"requeued": 1}
    assert queued_task_args() == [(brief.pk,)]
    brief.refresh_from_db()
    assert (brief.status, brief.attempts) == (BriefStatus.RUNNING, 1)


def test_the_sweep_settles_abandoned_briefs_no_run_may_finish(
    owner, django_capture_on_commit_callbacks
):
    spent = brief_in(owner, BriefStatus.RUNNING, attempts=MAX_ATTEMPTS, age=abandoned())
    stopped = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=abandoned(),
                       cancel_requested=True)  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        assert briefs_recover() == {"failed": 1, "cancelled": 1}
    assert queued_task_args() == []
    spent.refresh_from_db()
    stopped.refresh_from_db()
    assert (spent.status, spent.error) == (BriefStatus.FAILED, REASON_EXHAUSTED)
    assert stopped.status == BriefStatus.CANCELLED


def test_the_sweep_leaves_runs_that_django_q_may_still_deliver(
    owner, django_capture_on_commit_callbacks
):
    live = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=timedelta(seconds=1))
    waiting = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=expired())  # retry pending
    queued = brief_in(owner)
    done = brief_in(owner, BriefStatus.SUCCEEDED, attempts=1, age=timedelta(days=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert briefs_recover() == {}
    assert queued_task_args() == []
    for brief, status in [(live, "running"), (waiting, "running"), (queued, "queued"),
                          (done, "succeeded")]:  # fmt: skip
        brief.refresh_from_db()
        assert brief.status == status


# --- the sweep and lost tasks, on either broker ------------------------------------------------

REDIS_BROKER_URL = redis_test_url("broker")  # keys named per test


@pytest.fixture(params=["orm", "redis"])
def broker(request, settings, monkeypatch):
    """django-q on the ORM broker, or on Redis under a queue name of this test's own."""
    from django_q.brokers import get_broker
    from django_q.conf import Conf

    if request.param == "orm":
        yield "orm"
        return
    name = f"test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setattr(Conf, "ORM", None)
    monkeypatch.setattr(Conf, "BROKER_CLASS", None)
    monkeypatch.setattr(Conf, "REDIS", REDIS_BROKER_URL)
    monkeypatch.setattr(Conf, "CLUSTER_NAME", name)
    q_cluster = {
        k: v for k, v in settings.Q_CLUSTER.items() if k not in ("orm", "broker_class", "poll")
    }
    settings.Q_CLUSTER = {**q_cluster, "redis": REDIS_BROKER_URL}
    broker = get_broker()
    yield "redis"
    broker.delete_queue()


def waiting_brief_ids() -> list[int]:
    from django_q.brokers import get_broker

    broker = get_broker()
    if isinstance(broker, ORM):
        payloads = OrmQ.objects.values_list("payload", flat=True)
    else:
        payloads = broker.connection.lrange(broker.list_key, 0, -1)
    return sorted(SignedPackage.loads(p)["args"][0] for p in payloads)


def test_on_redis_a_run_is_orphaned_once_its_lease_ran_out(
    owner, broker, django_capture_on_commit_callbacks
):
    """The Redis broker never hands a task out again: the sweep waits for no `retry`."""
    brief = brief_in(owner, BriefStatus.RUNNING, attempts=1, age=expired())
    with django_capture_on_commit_callbacks(execute=True):
        recovered = briefs_recover()
    if broker == "orm":
        assert recovered == {}  # the ORM broker redelivers it after `retry`
        assert waiting_brief_ids() == []
    else:
        assert recovered == {"requeued": 1}
        assert waiting_brief_ids() == [brief.pk]


def test_the_sweep_requeues_queued_briefs_whose_task_was_lost(
    owner, broker, django_capture_on_commit_callbacks
):
    old = timezone.now() - expired()
    lost = brief_in(owner, created_at=old)
    waiting = brief_in(owner, created_at=old)
    young = brief_in(owner)  # its task may still be on its way
    with django_capture_on_commit_callbacks(execute=True):
        brief_enqueue(waiting)
    with django_capture_on_commit_callbacks(execute=True):
        assert briefs_recover() == {"requeued": 1}
    assert waiting_brief_ids() == sorted([lost.pk, waiting.pk])
    for brief in (lost, waiting, young):
        brief.refresh_from_db()
        assert (brief.status, brief.attempts) == (BriefStatus.QUEUED, 0)
