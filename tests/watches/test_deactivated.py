"""A deactivated owner: every way in without a session stops at once (their watch feeds, brief
feed, share links and unsubscribe links are 404s), their watches stop running (none is
dispatched, a run queued before is cancelled) and nothing more is emailed to them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from briefs.models import BriefStatus
from sharing.services import brief_share_create, feed_key_of
from tests.watches.conftest import run_finished, watch_make
from watches.dispatch import watches_dispatch
from watches.models import Watch, WatchRun
from watches.services import watch_brief_start, watch_feed_rotate
from watches.tasks import watch_brief_run
from watches.unsubscribe import unsubscribe_token

pytestmark = pytest.mark.django_db


def deactivate(user) -> None:
    type(user).objects.filter(pk=user.pk).update(is_active=False)


def test_every_link_of_a_deactivated_owner_is_a_404(reader):
    watch = watch_make(reader, notify_email=True)
    _, secret = watch_feed_rotate(owner=reader, watch_id=watch.pk)
    watch.refresh_from_db()
    run = run_finished(watch)
    share, _ = brief_share_create(owner=reader, brief_id=run.brief_id)
    paths = {
        "watch feed": reverse("watch-feed", args=[secret]),
        "brief feed": reverse("feed-briefs", args=[feed_key_of(owner=reader).secret]),
        "share link": reverse("shared-brief", args=[share.secret]),
        "unsubscribe": reverse("watch-unsubscribe", args=[unsubscribe_token(watch)]),
    }
    assert {name: Client().get(p).status_code for name, p in paths.items()} == dict.fromkeys(
        paths, 200
    ), "a link did not work before the deactivation"
    deactivate(reader)
    answers = {name: Client().get(p).status_code for name, p in paths.items()}
    assert answers == dict.fromkeys(paths, 404), answers
    assert Client().post(paths["unsubscribe"]).status_code == 404


def test_a_deactivated_owners_due_watch_is_not_dispatched(reader):
    watch = watch_make(reader)
    Watch.objects.filter(pk=watch.pk).update(next_run_at=timezone.now() - timedelta(minutes=1))
    deactivate(reader)
    assert watches_dispatch()["claimed"] == 0
    assert not WatchRun.objects.exists()


def test_a_run_queued_before_the_deactivation_is_cancelled_not_run(reader):
    watch = watch_make(reader, notify_email=True)
    brief = watch_brief_start(watch, due_at=None)
    deactivate(reader)
    assert watch_brief_run(brief.pk) == "owner deactivated"
    brief.refresh_from_db()
    assert brief.status == BriefStatus.CANCELLED, brief.status
    assert WatchRun.objects.get(brief=brief).settled_at is not None
    assert mail.outbox == []


def test_a_deactivated_owner_is_not_emailed_a_run_that_ends(reader):
    from watches.notify import watch_run_settle

    run = run_finished(watch_make(reader, notify_email=True), new=3)
    deactivate(reader)
    assert watch_run_settle(run.brief_id) is not None
    assert mail.outbox == [], "an email went to a deactivated owner"
