"""A watch's private Atom feed: read without signing in through its secret URL, parsed by
feedparser without a bozo flag, conditional with its ETag, cut off by rotating the secret."""

from __future__ import annotations

import feedparser
import pytest
from django.test import Client
from django.urls import reverse

from briefs.models import Brief
from tests.watches.conftest import run_finished, watch_make
from watches.models import Watch

pytestmark = pytest.mark.django_db


def feed_path(watch: Watch) -> str:
    return reverse("watch-feed", args=[watch.feed_secret])


def parsed(response):
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    result = feedparser.parse(
        response.content, response_headers={"content-type": response["Content-Type"]}
    )
    assert result.bozo == 0, result.get("bozo_exception")
    return result


@pytest.fixture
def watch(owner):
    return watch_make(owner, question="new nginx tags <b>&</b>")


def test_the_feed_lists_the_runs_that_found_something_new_without_sign_in(watch, owner):
    first = run_finished(watch, new=3, body="Three tags [1].")
    run_finished(watch, new=0, repeated=3, body="Nothing new since 08:00 CST today.")
    newest = run_finished(watch, new=1, body="Tag 1.27.3 is out [1].")
    theirs = run_finished(watch_make(owner, question="another watch"), new=2)
    feed = parsed(Client().get(feed_path(watch)))
    assert feed.feed.title == "Watch: new nginx tags <b>&</b>"
    links = [entry.link for entry in feed.entries]
    assert links == [
        f"http://testserver{reverse('brief-detail', args=[b])}"
        for b in (newest.brief_id, first.brief_id)
    ]
    assert theirs.brief_id not in {int(link.rstrip("/").rsplit("/", 1)[-1]) for link in links}
    content = feed.entries[0].content[0].value
    assert "Tag 1.27.3 is out" in content
    assert 'href="https://news.example.com/chips?id=1"' in content  # the cited item


def test_a_watch_that_reports_every_run_lists_every_run(watch):
    Watch.objects.filter(pk=watch.pk).update(notify_only_new=False)
    for new in (1, 0, 0):
        run_finished(watch, new=new)
    run_finished(watch, status="failed")
    assert len(parsed(Client().get(feed_path(watch))).entries) == 3


def test_its_etag_gives_a_304(watch):
    run_finished(watch)
    first = Client().get(feed_path(watch))
    etag, modified = first["ETag"], first["Last-Modified"]
    again = Client().get(feed_path(watch), headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert (
        Client().get(feed_path(watch), headers={"If-Modified-Since": modified}).status_code == 304
    )
    run_finished(watch, new=2)
    changed = Client().get(feed_path(watch), headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_an_empty_feed_is_still_a_valid_feed(watch):
    feed = parsed(Client().get(feed_path(watch)))
    assert feed.entries == []


@pytest.mark.parametrize(
    "path",
    [
        "/watches/feeds/" + "A" * 43 + ".atom",
        "/watches/feeds/short.atom",
        "/watches/feeds/../../etc/passwd.atom",
        "/watches/feeds/" + "A" * 100 + ".atom",
    ],
)
def test_a_secret_that_is_not_a_watchs_is_a_404(watch, path):
    assert Client().get(path).status_code == 404


def test_rotating_the_secret_cuts_off_the_old_url(watch, owner, api):
    old = feed_path(watch)
    client = Client()
    client.force_login(owner)
    assert client.post(reverse("watch-feed-rotate", args=[watch.pk])).status_code == 302
    watch.refresh_from_db()
    assert Client().get(old).status_code == 404
    assert Client().get(feed_path(watch)).status_code == 200
    # The API gives the current address, and rotates it too.
    data = api.get(f"/api/v1/watches/{watch.pk}").json()
    assert data["feed_url"] == f"http://testserver{feed_path(watch)}"
    rotated = api.post(f"/api/v1/watches/{watch.pk}/rotate-feed").json()
    assert rotated["feed_url"] != data["feed_url"]
    assert Client().get(feed_path(watch)).status_code == 404


def test_another_user_cannot_rotate_the_secret(watch, other_user, other_api):
    client = Client()
    client.force_login(other_user)
    assert client.post(reverse("watch-feed-rotate", args=[watch.pk])).status_code == 404
    assert other_api.post(f"/api/v1/watches/{watch.pk}/rotate-feed").status_code == 404
    assert Watch.objects.get(pk=watch.pk).feed_secret == watch.feed_secret


def test_each_watch_has_its_own_unguessable_secret(owner):
    secrets = {watch_make(owner, question=f"q{n}").feed_secret for n in range(20)}
    assert len(secrets) == 20
    assert all(len(s) >= 43 for s in secrets)


def test_the_feed_shows_nothing_of_a_brief_outside_the_watch(watch, owner):
    Brief.objects.create(owner=owner, question="private question", status="succeeded", body="x")
    response = Client().get(feed_path(watch))
    assert b"private question" not in response.content


def test_a_deactivated_owners_watch_feed_is_a_404(watch, owner):
    run_finished(watch)
    assert Client().get(feed_path(watch)).status_code == 200
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    assert Client().get(feed_path(watch)).status_code == 404, "a deactivated owner's feed served"
