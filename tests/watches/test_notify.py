"""The end of a watch's run: email (through Django's locmem backend), the unread count, the
failing notice told once and the recovery told once, and the unsubscribe link."""

from __future__ import annotations

import base64
import json
import re
import time

import pytest
from django.core import mail, signing
from django.test import Client
from django.urls import reverse

from briefs.models import BriefOutcome, BriefStatus
from tests.watches.conftest import run_finished, watch_make
from watches.models import Watch, WatchRun
from watches.notify import watch_run_settle, watch_runs_settle_pending
from watches.selectors import unread_count
from watches.services import watch_feed_rotate, watch_update
from watches.unsubscribe import (
    UNSUBSCRIBE_MAX_AGE,
    UNSUBSCRIBE_SALT,
    unsubscribe_token,
    unsubscribe_watch,
)


@pytest.fixture
def watch(reader):
    return watch_make(reader, notify_email=True)


def html_of(message) -> str:
    (html, kind), *_ = message.alternatives
    assert kind == "text/html"
    return html


def test_a_run_with_something_new_is_emailed_with_its_citations(watch):
    run = run_finished(watch, body="Chips & ships got cheaper [1].")
    watch_run_settle(run.brief_id)
    (message,) = mail.outbox
    assert message.to == ["reader@example.org"]
    assert message.subject == "New on your watch: Alpha Wire flash news"
    # Text: the brief as markdown with its sources; no HTML escaping in plain text.
    assert "Chips & ships got cheaper [1]." in message.body
    assert "[1] Chips & ships — Alpha Wire — 2026-11-01T06:00:00+00:00 — " in message.body
    assert "https://news.example.com/chips?id=1" in message.body
    run_url = "https://agent.example.org" + reverse("watch-run-open", args=[run.pk])
    assert run_url in message.body
    # HTML: the citation links to the item, the sources are listed, in the watch's zone.
    html = html_of(message)
    assert 'href="https://news.example.com/chips?id=1"' in html
    assert "Chips &amp; ships" in html
    assert "2026-11-01 14:00" in html  # 06:00 UTC in Asia/Shanghai
    WatchRun.objects.filter(pk=run.pk, emailed_at__isnull=False).get()


def test_the_email_carries_an_unsubscribe_link_and_headers(watch):
    run = run_finished(watch)
    watch_run_settle(run.brief_id)
    (message,) = mail.outbox
    # The link is read from the email, not signed again here: its signature carries the second
    # it was made in, which a token signed by the test a moment later need not share.
    prefix = "https://agent.example.org" + reverse("watch-unsubscribe", args=["TOKEN"])
    head, tail = prefix.split("TOKEN")
    [token] = re.findall(re.escape(head) + r"([^/\s\"]+)" + re.escape(tail), message.body)
    assert unsubscribe_watch(token) == watch
    url = head + token + tail
    assert f'href="{url}"' in html_of(message)
    assert message.extra_headers["List-Unsubscribe"] == f"<{url}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_a_chinese_brief_is_emailed_in_chinese(watch):
    run = run_finished(watch)
    run.brief.language = "zh"
    run.brief.save(update_fields=["language"])
    watch_run_settle(run.brief_id)
    assert mail.outbox[0].subject.startswith("你的关注有新内容")


def test_nothing_new_sends_nothing_by_default(watch):
    run = run_finished(watch, new=0, repeated=3)
    settled = watch_run_settle(run.brief_id)
    assert mail.outbox == []
    assert settled.unread is False
    assert unread_count(watch.owner) == 0


def test_a_watch_that_reports_every_run_emails_nothing_new_too(watch):
    Watch.objects.filter(pk=watch.pk).update(notify_only_new=False)
    run = run_finished(watch, new=0, repeated=3)
    watch_run_settle(run.brief_id)
    assert len(mail.outbox) == 1


def test_without_notify_email_no_email_is_sent_but_the_run_is_unread(reader):
    watch = watch_make(reader, notify_email=False)
    run = run_finished(watch)
    watch_run_settle(run.brief_id)
    assert mail.outbox == []
    assert unread_count(reader) == 1


def test_a_run_is_settled_once(watch):
    run = run_finished(watch)
    assert watch_run_settle(run.brief_id) is not None
    assert watch_run_settle(run.brief_id) is None
    assert watch_runs_settle_pending(limit=10) == 0
    assert len(mail.outbox) == 1


def test_an_unfinished_run_is_not_settled(watch):
    run = run_finished(watch, status=BriefStatus.RUNNING)
    assert watch_run_settle(run.brief_id) is None
    assert WatchRun.objects.get(pk=run.pk).settled_at is None


def test_the_dispatchers_sweep_settles_runs_nobody_settled(watch):
    runs = [run_finished(watch) for _ in range(3)]
    assert watch_runs_settle_pending(limit=10) == 3
    assert all(WatchRun.objects.get(pk=r.pk).settled_at for r in runs)


def test_a_failed_run_changes_nothing_and_tells_nothing(watch):
    run = run_finished(watch, status=BriefStatus.FAILED)
    watch_run_settle(run.brief_id)
    watch.refresh_from_db()
    assert (watch.no_data_streak, watch.failing, mail.outbox) == (0, False, [])


def no_data(watch) -> None:
    run = run_finished(watch, outcome=BriefOutcome.NO_DATA, new=0, citations=[], body="x")
    watch_run_settle(run.brief_id)


def test_three_no_data_runs_in_a_row_tell_the_owner_once_and_recovery_once(watch):
    no_data(watch)
    no_data(watch)
    assert mail.outbox == []
    no_data(watch)
    watch.refresh_from_db()
    assert (watch.failing, watch.no_data_streak) == (True, 3)
    (failing,) = mail.outbox
    assert failing.subject == "Your watch's sources are failing: Alpha Wire flash news"
    assert "found no data in its last 3 runs in a row" in failing.body
    no_data(watch)
    no_data(watch)
    assert len(mail.outbox) == 1  # told once, not on every run
    run = run_finished(watch, new=0, repeated=2)  # data again, nothing new
    watch_run_settle(run.brief_id)
    watch.refresh_from_db()
    assert (watch.failing, watch.no_data_streak) == (False, 0)
    assert len(mail.outbox) == 2
    assert mail.outbox[1].subject.startswith("Your watch's sources answer again")
    assert "The sources of this watch answer again." in mail.outbox[1].body
    run = run_finished(watch, new=1)
    watch_run_settle(run.brief_id)
    assert mail.outbox[2].subject.startswith("New on your watch")  # recovery said once


def test_a_streak_broken_by_data_starts_again(watch):
    no_data(watch)
    no_data(watch)
    watch_run_settle(run_finished(watch, new=0).brief_id)
    no_data(watch)
    no_data(watch)
    watch.refresh_from_db()
    assert (watch.failing, watch.no_data_streak, mail.outbox) == (False, 2, [])


def test_failing_and_recovery_are_unread_without_email(reader):
    watch = watch_make(reader, notify_email=False)
    for _ in range(3):
        no_data(watch)
    assert unread_count(reader) == 1  # the run that made it failing
    assert mail.outbox == []


def test_an_email_that_cannot_be_sent_is_logged_without_the_password(watch, settings, caplog):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 9  # discard: refused
    settings.EMAIL_HOST_USER, settings.EMAIL_HOST_PASSWORD = "mailer", "hunter2-secret"
    settings.EMAIL_TIMEOUT = 2
    run = run_finished(watch)
    assert watch_run_settle(run.brief_id) is not None  # the run is settled all the same
    assert WatchRun.objects.get(pk=run.pk).emailed_at is None
    assert "not sent" in caplog.text
    assert "hunter2-secret" not in caplog.text


# --- Unsubscribe ---------------------------------------------------------------------------------


def unsubscribe_url(watch) -> str:
    return reverse("watch-unsubscribe", args=[unsubscribe_token(watch)])


def test_the_unsubscribe_link_asks_then_pauses_the_watch_without_sign_in(watch):
    client = Client(enforce_csrf_checks=True)
    page = client.get(unsubscribe_url(watch))
    assert page.status_code == 200
    assert b"confirm-unsubscribe" in page.content
    watch.refresh_from_db()
    assert watch.active  # a link scanner's GET pauses nothing
    done = client.post(unsubscribe_url(watch))
    assert done.status_code == 200
    assert b'id="unsubscribed"' in done.content
    watch.refresh_from_db()
    assert watch.active is False


def test_one_click_unsubscribe_works_from_the_mail_client(watch):
    response = Client(enforce_csrf_checks=True).post(
        unsubscribe_url(watch), "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )  # fmt: skip
    assert response.status_code == 200
    watch.refresh_from_db()
    assert watch.active is False


def test_the_token_names_no_watch_or_user_and_holds_no_readable_payload(watch):
    token = unsubscribe_token(watch)
    nonce, stamp, signature = token.split(":")
    assert nonce == watch.unsubscribe_nonce and len(nonce) >= 22
    assert watch.owner.username not in token
    for part in (nonce, signature):  # random bytes, not an encoded payload
        raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        with pytest.raises(ValueError):  # UnicodeDecodeError or JSONDecodeError
            json.loads(raw.decode("utf-8"))
    # The stamp is when it was signed, not an id: another watch's token signed now has it too.
    assert unsubscribe_token(watch_make(watch.owner, question="other")).split(":")[1] in {
        stamp,
        signing.b62_encode(signing.b62_decode(stamp) + 1),
    }


def forged_tokens(watch, other) -> list[str]:
    """Tokens an attacker can make: another watch's nonce under this one's signature, the old
    JSON shape, a re-signed payload, altered bytes, and junk."""
    token = unsubscribe_token(watch)
    nonce, stamp, signature = token.split(":")
    old_shape = signing.dumps({"w": watch.pk, "o": watch.owner_id}, salt="watches.unsubscribe")
    other_key = signing.TimestampSigner(key="not-the-secret-key", salt=UNSUBSCRIBE_SALT)
    return [
        f"{other.unsubscribe_nonce}:{stamp}:{signature}",  # pointed at another watch
        old_shape,  # the old readable token
        other_key.sign(watch.unsubscribe_nonce),  # signed without the server's key
        signing.TimestampSigner(salt="another.salt").sign(watch.unsubscribe_nonce),
        token[:-2] + ("xx" if not token.endswith("xx") else "yy"),  # tampered signature
        f"{nonce}:{'0' if stamp != '0' else '1'}:{signature}",  # tampered timestamp
        nonce,  # the nonce alone, as read from the database
        "nonsense",
        token.replace(":", ""),
        token + ":" + "A" * 200,  # over-long
    ]


def test_a_forged_tampered_or_foreign_token_is_a_404(watch, other_user):
    other = watch_make(other_user)
    for bad in forged_tokens(watch, other):
        response = Client().post(reverse("watch-unsubscribe", args=[bad]))
        assert response.status_code == 404, f"accepted {bad!r}"
    assert Watch.objects.filter(active=True).count() == 2, "a forged token paused a watch"


def test_the_token_of_a_deleted_watch_is_a_404(watch):
    url = unsubscribe_url(watch)
    watch.delete()
    assert Client().get(url).status_code == 404


def signed_days_ago(watch, days: float) -> str:
    """The path of ``watch``'s unsubscribe link as signed ``days`` ago: the server's own key and
    salt, only the signed timestamp set back."""

    class Past(signing.TimestampSigner):
        def timestamp(self) -> str:
            return signing.b62_encode(int(time.time() - days * 86400))

    token = Past(salt=UNSUBSCRIBE_SALT).sign(watch.unsubscribe_nonce)
    return reverse("watch-unsubscribe", args=[token])


def test_a_link_expires_after_60_days(watch):
    limit = UNSUBSCRIBE_MAX_AGE.days
    assert limit == 60
    assert Client().get(signed_days_ago(watch, limit - 1)).status_code == 200
    expired = signed_days_ago(watch, limit + 1 / 24)
    assert Client().get(expired).status_code == 404
    assert Client().post(expired).status_code == 404
    watch.refresh_from_db()
    assert watch.active, "an expired link paused the watch"


def test_rotating_the_feed_voids_the_links_already_sent(watch):
    old = unsubscribe_url(watch)
    watch_feed_rotate(owner=watch.owner, watch_id=watch.pk)
    assert Client().post(old).status_code == 404
    watch.refresh_from_db()
    assert watch.active
    assert Client().post(unsubscribe_url(watch)).status_code == 200, "a new email's link refused"


def test_a_link_no_longer_pauses_a_watch_its_owner_resumed(watch):
    old = unsubscribe_url(watch)
    assert Client().post(old).status_code == 200
    watch_update(owner=watch.owner, watch_id=watch.pk, active=True)
    assert Client().post(old).status_code == 404, "the old link paused the resumed watch again"
    watch.refresh_from_db()
    assert watch.active
    # Saving other settings of an active watch is no resume: its links keep working.
    fresh = unsubscribe_url(watch)
    watch_update(owner=watch.owner, watch_id=watch.pk, notify_only_new=False)
    assert Client().get(fresh).status_code == 200


def test_a_deactivated_owners_link_is_a_404(watch):
    url = unsubscribe_url(watch)
    type(watch.owner).objects.filter(pk=watch.owner_id).update(is_active=False)
    assert Client().get(url).status_code == 404


# --- Webhooks ------------------------------------------------------------------------------------


def test_the_webhook_event_of_a_watch_run_names_the_watch_and_its_delta(watch):
    import json
    import uuid

    from briefs.webhooks.events import brief_finished_body

    run = run_finished(watch, new=2, repeated=1)
    body = json.loads(brief_finished_body(run.brief, uuid.uuid4()))
    assert body["brief"]["watch"] == watch.pk
    assert body["brief"]["delta"] == {"since": None, "new_items": 2, "repeated_items": 1}
