"""Writes on briefs: create (and enqueue on commit), cancel, rerun, delete; each only ever on the
acting user's own briefs."""

import pytest
from django_q.models import OrmQ

from briefs.models import Brief, BriefStatus, RunStep
from briefs.services import (
    BriefInvalid,
    brief_cancel,
    brief_create,
    brief_delete,
    brief_rerun,
    question_clean,
)
from catalog.search import MAX_QUESTION_CHARS

pytestmark = pytest.mark.django_db


def queued_tasks() -> list[tuple[str, tuple]]:
    return [(q.task["func"], tuple(q.task["args"])) for q in OrmQ.objects.all()]


def test_a_question_is_normalised():
    assert question_clean("  Alpha\tWire\n news  ") == "Alpha Wire news"
    assert question_clean("Cafe\u0301") == "Caf\u00e9"  # NFC


@pytest.mark.parametrize(
    "hidden", ["\u202e", "\u202d", "\u2066", "\u2069", "\u200b", "\u200d", "\u2060", "\ufeff"]
)
def test_bidi_overrides_and_zero_width_characters_are_removed_from_a_question(hidden):
    assert question_clean(f"Alpha{hidden} Wire {hidden}news{hidden}") == "Alpha Wire news"


def test_a_question_of_only_invisible_characters_is_empty():
    with pytest.raises(BriefInvalid, match="is empty"):
        question_clean("\u202e\u200b\u2066")


@pytest.mark.parametrize(
    ("question", "message"),
    [
        (None, "must be text"),
        ("   ", "is empty"),
        ("x" * (MAX_QUESTION_CHARS + 1), f"longer than {MAX_QUESTION_CHARS}"),
        ("news\x00", "control characters"),
        ("news\u202e", None),  # an override is removed (below), not refused
    ],
)
def test_a_bad_question_is_refused_naming_the_field(question, message):
    if message is None:
        assert question_clean(question) == "news"
        return
    with pytest.raises(BriefInvalid) as refused:
        question_clean(question)

    assert refused.value.field == "question"
    assert message in refused.value.message


def test_a_brief_is_queued_and_handed_to_a_worker_only_on_commit(
    owner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        brief = brief_create(owner=owner, question="Alpha Wire news")
        assert OrmQ.objects.count() == 0

    assert len(callbacks) == 2, "the first step's doorbell, then the hand-off"
    assert (brief.status, brief.owner, brief.offline) == (BriefStatus.QUEUED, owner, False)
    assert queued_tasks() == [("briefs.tasks.run_brief", (brief.pk,))]


def test_a_queued_brief_has_its_first_step_before_any_worker(owner):
    parent = brief_create(owner=owner, question="Alpha Wire news", enqueue=False)

    brief = brief_create(owner=owner, question="and today?", follow_up_of=parent.pk, offline=True)

    steps = list(brief.steps.values_list("seq", "kind", "payload"))
    assert steps == [(1, "brief_queued", {"offline": True, "follow_up_of": parent.pk})]
    assert not parent.steps.exists(), "a brief its caller runs is not queued"


def test_a_brief_the_caller_runs_itself_is_not_enqueued(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        brief_create(owner=owner, question="Alpha Wire news", enqueue=False, offline=True)

    assert OrmQ.objects.count() == 0
    assert Brief.objects.get().offline is True


def test_a_follow_up_joins_its_owners_thread(owner):
    first = brief_create(owner=owner, question="Alpha Wire news", enqueue=False)

    second = brief_create(owner=owner, question="and today?", follow_up_of=first.pk, enqueue=False)

    assert second.follow_up_of == first


def test_no_one_follows_up_another_users_brief(owner, other_user):
    theirs = brief_create(owner=other_user, question="Alpha Wire news", enqueue=False)

    with pytest.raises(BriefInvalid) as refused:
        brief_create(owner=owner, question="and today?", follow_up_of=theirs.pk)

    assert refused.value.field == "follow_up_of"
    assert Brief.objects.count() == 1


def test_cancelling_a_queued_brief_ends_it_at_once(owner):
    brief = brief_create(owner=owner, question="Alpha Wire news", enqueue=False)

    cancelled = brief_cancel(owner=owner, brief_id=brief.pk)

    assert cancelled.status == BriefStatus.CANCELLED
    assert cancelled.finished_at is not None
    assert list(RunStep.objects.values_list("kind", "payload")) == [
        ("run_cancelled", {"reason": "cancelled while queued"})
    ]


def test_cancelling_a_running_brief_asks_its_run_to_stop(owner):
    brief = Brief.objects.create(owner=owner, question="q", status=BriefStatus.RUNNING)

    asked = brief_cancel(owner=owner, brief_id=brief.pk)

    assert (asked.status, asked.cancel_requested) == (BriefStatus.RUNNING, True)
    assert not RunStep.objects.exists()


def test_cancelling_a_finished_brief_changes_nothing(owner):
    brief = Brief.objects.create(owner=owner, question="q", status=BriefStatus.SUCCEEDED)

    kept = brief_cancel(owner=owner, brief_id=brief.pk)

    assert (kept.status, kept.cancel_requested) == (BriefStatus.SUCCEEDED, False)
    assert not RunStep.objects.exists()


def test_a_rerun_is_a_new_brief_with_the_same_question_thread_and_mode(
    owner, django_capture_on_commit_callbacks
):
    first = Brief.objects.create(owner=owner, question="Alpha Wire news")
    original = Brief.objects.create(
        owner=owner, question="and today?", follow_up_of=first, offline=True,
        status=BriefStatus.FAILED,
    )  # fmt: skip

    with django_capture_on_commit_callbacks(execute=True):
        again = brief_rerun(owner=owner, brief_id=original.pk)

    assert again.pk != original.pk
    assert (again.question, again.follow_up_of, again.offline) == ("and today?", first, True)
    assert again.status == BriefStatus.QUEUED
    assert queued_tasks() == [("briefs.tasks.run_brief", (again.pk,))]


def test_deleting_a_brief_removes_it_and_its_steps(owner):
    brief = brief_create(owner=owner, question="Alpha Wire news", enqueue=False)
    brief_cancel(owner=owner, brief_id=brief.pk)

    brief_delete(owner=owner, brief_id=brief.pk)

    assert not Brief.objects.exists()
    assert not RunStep.objects.exists()


def test_deleting_a_thread_start_keeps_its_follow_ups(owner):
    first = Brief.objects.create(owner=owner, question="Alpha Wire news")
    second = Brief.objects.create(owner=owner, question="and today?", follow_up_of=first)

    brief_delete(owner=owner, brief_id=first.pk)

    second.refresh_from_db()
    assert second.follow_up_of is None


@pytest.mark.parametrize(
    "service",
    [
        lambda owner, pk: brief_cancel(owner=owner, brief_id=pk),
        lambda owner, pk: brief_rerun(owner=owner, brief_id=pk),
        lambda owner, pk: brief_delete(owner=owner, brief_id=pk),
    ],
    ids=["cancel", "rerun", "delete"],
)
def test_another_users_brief_does_not_exist_for_the_services(owner, other_user, service):
    theirs = Brief.objects.create(owner=other_user, question="q", status=BriefStatus.RUNNING)

    with pytest.raises(Brief.DoesNotExist):
        service(owner, theirs.pk)

    theirs.refresh_from_db()
    assert (theirs.status, theirs.cancel_requested) == (BriefStatus.RUNNING, False)
    assert Brief.objects.count() == 1
