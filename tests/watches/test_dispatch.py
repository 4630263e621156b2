"""The dispatcher in-process: which watches it claims, for which slot, and what it leaves
(the real clusters are in ``test_cluster.py``)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from django_q.models import Schedule

from briefs.models import Brief
from tests.watches.conftest import run_finished, watch_make
from watches.dispatch import watch_claim, watches_dispatch
from watches.models import Watch, WatchRun
from watches.schedules import next_slot_after


def due(watch: Watch, ago: timedelta = timedelta(minutes=1)) -> Watch:
    Watch.objects.filter(pk=watch.pk).update(next_run_at=timezone.now() - ago)
    watch.refresh_from_db()
    return watch


@pytest.mark.django_db
def test_a_due_watch_runs_once_for_its_slot(owner):
    watch = due(watch_make(owner, offline=True))
    slot = watch.next_run_at
    assert watches_dispatch()["claimed"] == 1
    run = WatchRun.objects.select_related("brief").get(watch=watch)
    assert run.due_at == slot
    assert (run.brief.watch_id, run.brief.question, run.brief.offline) == (
        watch.pk,
        watch.question,
        True,
    )
    assert run.brief.status == "queued"
    watch.refresh_from_db()
    assert watch.next_run_at == next_slot_after(watch.slot, watch.last_run_at)
    assert watch.next_run_at > timezone.now()
    assert watches_dispatch()["claimed"] == 0  # the slot is spent
    assert WatchRun.objects.count() == 1


@pytest.mark.django_db
def test_missed_slots_run_once_not_once_each(owner):
    watch = due(watch_make(owner, schedule="hourly", time="00:00"), ago=timedelta(hours=7))
    watches_dispatch()
    watches_dispatch()
    assert WatchRun.objects.filter(watch=watch).count() == 1
    watch.refresh_from_db()
    assert timedelta(0) < watch.next_run_at - timezone.now() <= timedelta(hours=1)


@pytest.mark.django_db
def test_only_due_active_watches_of_active_users_run(owner, other_user):
    later = watch_make(owner, question="not yet")
    paused = due(watch_make(owner, question="paused"))
    Watch.objects.filter(pk=paused.pk).update(active=False)
    due(watch_make(other_user, question="owner deactivated"))
    other_user.is_active = False
    other_user.save()
    assert watches_dispatch()["claimed"] == 0
    assert not WatchRun.objects.exists()
    assert Watch.objects.get(pk=later.pk).next_run_at > timezone.now()


@pytest.mark.django_db
def test_a_claim_made_on_a_stale_read_loses(owner):
    watch = due(watch_make(owner))
    stale = Watch.objects.select_related("owner").get(pk=watch.pk)
    now = timezone.now()
    assert watch_claim(watch, now) is True
    assert watch_claim(stale, now) is False
    assert WatchRun.objects.count() == Brief.objects.count() == 1


@pytest.mark.django_db
def test_a_stale_copy_claimed_after_the_next_slot_is_due_still_loses(owner):
    """The stale copy still holds the slot it read; by a later ``now`` the watch's next slot is
    due too, so only the compare on the slot read (not on ``now``) keeps the copy from claiming
    the spent slot again (a second run for one slot, refused by the database)."""
    watch = due(watch_make(owner, schedule="hourly", time="00:00"))
    stale = Watch.objects.select_related("owner").get(pk=watch.pk)
    assert watch_claim(watch, timezone.now()) is True
    watch.refresh_from_db()
    later = watch.next_run_at + timedelta(minutes=1)
    assert watch_claim(stale, later) is False
    assert WatchRun.objects.filter(watch=watch).count() == 1


@pytest.mark.django_db
def test_a_slot_changed_by_its_owner_since_the_read_is_not_claimed(owner):
    watch = due(watch_make(owner))
    Watch.objects.filter(pk=watch.pk).update(next_run_at=timezone.now() + timedelta(hours=3))
    assert watch_claim(watch, timezone.now()) is False


@pytest.mark.django_db
def test_many_due_watches_are_claimed_in_batches(owner, settings, monkeypatch):
    monkeypatch.setattr("watches.dispatch.CLAIM_BATCH", 7)
    settings.WATCHES_PER_USER = 30
    watches = [due(watch_make(owner, question=f"q{n}")) for n in range(20)]
    assert watches_dispatch()["claimed"] == 20
    assert sorted(WatchRun.objects.values_list("watch_id", flat=True)) == [w.pk for w in watches]


@pytest.mark.django_db
def test_the_dispatch_settles_runs_left_unsettled(owner):
    run = run_finished(watch_make(owner))
    assert watches_dispatch()["settled"] == 1
    assert WatchRun.objects.get(pk=run.pk).settled_at is not None


@pytest.mark.django_db
def test_the_dispatcher_is_scheduled_every_minute():
    schedule = Schedule.objects.get(name="watches-dispatch")
    assert (schedule.func, schedule.schedule_type, schedule.minutes) == (
        "watches.tasks.dispatch", Schedule.MINUTES, 1,
    )  # fmt: skip
    assert schedule.repeats == -1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_of_one_slot_start_one_run(owner):
    watch = due(watch_make(owner))
    copies = [Watch.objects.select_related("owner").get(pk=watch.pk) for _ in range(8)]
    now, start, results = timezone.now(), threading.Barrier(8), []

    def claim(copy: Watch) -> None:
        try:
            start.wait()
            results.append(watch_claim(copy, now))
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(c,)) for c in copies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]
    assert WatchRun.objects.filter(watch=watch).count() == 1
    assert Brief.objects.filter(watch=watch).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_dispatchers_racing_over_many_watches_start_each_once(owner, settings, monkeypatch):
    monkeypatch.setattr("watches.dispatch.CLAIM_BATCH", 5)
    settings.WATCHES_PER_USER = 100
    ids = [due(watch_make(owner, question=f"q{n}")).pk for n in range(40)]
    start, reports = threading.Barrier(4), []

    def dispatch() -> None:
        try:
            start.wait()
            reports.append(watches_dispatch())
        finally:
            connection.close()

    threads = [threading.Thread(target=dispatch) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r["claimed"] for r in reports) == 40
    runs = list(WatchRun.objects.values_list("watch_id", flat=True))
    assert sorted(runs) == sorted(ids)


@pytest.mark.django_db
def test_a_claim_between_a_changes_read_and_its_save_stands(owner, monkeypatch):
    from watches import services

    watch = due(watch_make(owner))
    clean = services.changes_clean

    def claimed_meanwhile(*args, **kwargs):  # the dispatcher claims after the change read
        assert watch_claim(watch, timezone.now())
        return clean(*args, **kwargs)

    monkeypatch.setattr("watches.services.changes_clean", claimed_meanwhile)
    services.watch_update(owner=owner, watch_id=watch.pk, notify_only_new=False)
    after = Watch.objects.get(pk=watch.pk)
    assert after.notify_only_new is False
    assert after.next_run_at > timezone.now()  # the claim's next slot, not the spent one
    assert watches_dispatch()["claimed"] == 0
    assert WatchRun.objects.filter(watch=watch).count() == 1
