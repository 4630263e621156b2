"""A watch's private Atom feed: read without signing in through its secret URL, parsed by
feedparser without a bozo flag, conditional with its ETag, cut off by rotating the secret."""

from __future__ import annotations

import re

import feedparser
import pytest
from django.test import Client
from django.urls import reverse

from briefs.models import Brief
from tests.watches.conftest import run_finished, watch_make
from watches.models import Watch
from watches.services import watch_feed_rotate

FEED_URL_RE = re.compile(r'<code id="feed-url">http://testserver(/watches/feeds/[^<]+)</code>')

pytestmark = pytest.mark.django_db


def feed_made(watch: Watch) -> str:
    """The path of a new feed address of ``watch`` (the one time its secret is known)."""
    watch_made, secret = watch_feed_rotate(owner=watch.owner, watch_id=watch.pk)
    watch.feed_digest = watch_made.feed_digest
    return reverse("watch-feed", args=[secret])


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


@pytest.fixture
def feed(watch) -> str:
    return feed_made(watch)


def test_the_feed_lists_the_runs_that_found_something_new_without_sign_in(watch, feed, owner):
    first = run_finished(watch, new=3, body="Three tags [1].")
    run_finished(watch, new=0, repeated=3, body="Nothing new since 08:00 CST today.")
    newest = run_finished(watch, new=1, body="Tag 1.27.3 is out [1].")
    theirs = run_finished(watch_make(owner, question="another watch"), new=2)
    parsed_feed = parsed(Client().get(feed))
    assert parsed_feed.feed.title == "Watch: new nginx tags <b>&</b>"
    links = [entry.link for entry in parsed_feed.entries]
    assert links == [
        f"http://testserver{reverse('brief-detail', args=[b])}"
        for b in (newest.brief_id, first.brief_id)
    ]
    assert theirs.brief_id not in {int(link.rstrip("/").rsplit("/", 1)[-1]) for link in links}
    content = parsed_feed.entries[0].content[0].value
    assert "Tag 1.27.3 is out" in content
    assert 'href="https://news.example.com/chips?id=1"' in content  # the cited item


def test_a_watch_that_reports_every_run_lists_every_run(watch, feed):
    Watch.objects.filter(pk=watch.pk).update(notify_only_new=False)
    for new in (1, 0, 0):
        run_finished(watch, new=new)
    run_finished(watch, status="failed")
    assert len(parsed(Client().get(feed)).entries) == 3


def test_its_etag_gives_a_304(watch, feed):
    run_finished(watch)
    first = Client().get(feed)
    etag, modified = first["ETag"], first["Last-Modified"]
    again = Client().get(feed, headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert Client().get(feed, headers={"If-Modified-Since": modified}).status_code == 304
    run_finished(watch, new=2)
    changed = Client().get(feed, headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_an_empty_feed_is_still_a_valid_feed(watch, feed):
    assert parsed(Client().get(feed)).entries == []


@pytest.mark.parametrize(
    "path",
    [
        "/watches/feeds/" + "A" * 43 + ".atom",
        "/watches/feeds/short.atom",
        "/watches/feeds/../../etc/passwd.atom",
        "/watches/feeds/" + "A" * 100 + ".atom",
    ],
)
def test_a_secret_that_is_not_a_watchs_is_a_404(watch, feed, path):
    assert Client().get(path).status_code == 404


def test_rotating_the_secret_cuts_off_the_old_url(watch, feed, owner, api):
    client = Client()
    client.force_login(owner)
    page = client.post(reverse("watch-feed-rotate", args=[watch.pk]))
    assert page.status_code == 200 and page["Cache-Control"] == "no-store"
    made = FEED_URL_RE.search(page.content.decode()).group(1)
    assert Client().get(feed).status_code == 404, "the old address still served"
    assert Client().get(made).status_code == 200
    # The API rotates it too, and shows the new address in that answer only.
    rotated = api.post(f"/api/v1/watches/{watch.pk}/rotate-feed")
    assert rotated["Cache-Control"] == "no-store"
    new_url = rotated.json()["feed_url"]
    assert new_url.startswith("http://testserver/watches/feeds/") and made not in new_url
    assert Client().get(made).status_code == 404
    assert Client().get(new_url.removeprefix("http://testserver")).status_code == 200
    data = api.get(f"/api/v1/watches/{watch.pk}").json()
    secret = new_url.rsplit("/", 1)[-1].removesuffix(".atom")
    assert data["feed_url"] is None and data["feed_hint"] == secret[:6] + "…"


def test_the_address_is_shown_once_and_only_its_digest_is_kept(watch, feed, owner, api):
    secret = feed.rsplit("/", 1)[-1].removesuffix(".atom")
    stored = str(list(Watch.objects.filter(pk=watch.pk).values()))
    assert secret not in stored and secret[6:] not in stored, "the secret reached the database"
    client = Client()
    client.force_login(owner)
    page = client.get(reverse("watch-detail", args=[watch.pk])).content.decode()
    assert secret not in page and 'id="feed-start"' in page and f"{secret[:6]}…" in page
    assert secret not in api.get(f"/api/v1/watches/{watch.pk}").content.decode()
    assert secret not in api.get("/api/v1/watches").content.decode()


def test_a_new_watch_has_no_address_until_asked(owner, api):
    watch = watch_make(owner)
    assert watch.feed_digest is None
    client = Client()
    client.force_login(owner)
    page = client.get(reverse("watch-detail", args=[watch.pk])).content.decode()
    assert 'id="feed-none"' in page and 'id="feed-url"' not in page
    created = api.post("/api/v1/watches", {"question": "q", "schedule": "daily"}).json()
    assert (created["feed_url"], created["feed_hint"]) == (None, None)


def test_another_user_cannot_rotate_the_secret(watch, feed, other_user, other_api):
    client = Client()
    client.force_login(other_user)
    assert client.post(reverse("watch-feed-rotate", args=[watch.pk])).status_code == 404
    assert other_api.post(f"/api/v1/watches/{watch.pk}/rotate-feed").status_code == 404
    assert Watch.objects.get(pk=watch.pk).feed_digest == watch.feed_digest
    assert Client().get(feed).status_code == 200


def test_each_watch_has_its_own_unguessable_secret(owner):
    paths = {feed_made(watch_make(owner, question=f"q{n}")) for n in range(20)}
    assert len(paths) == 20
    assert all(re.fullmatch(r"/watches/feeds/[A-Za-z0-9_-]{43}\.atom", p) for p in paths)


def test_the_admin_shows_six_characters_of_the_secret(watch, feed, staff_client):
    secret = feed.rsplit("/", 1)[-1].removesuffix(".atom")
    page = staff_client.get(reverse("admin:watches_watch_change", args=[watch.pk]))
    body = page.content.decode()
    assert page.status_code == 200 and f"{secret[:6]}…" in body
    assert secret not in body and watch.feed_digest not in body and "unsubscribe" not in body
    assert 'name="feed_' not in body, "an editable secret field"


def test_the_feed_shows_nothing_of_a_brief_outside_the_watch(watch, feed, owner):
    Brief.objects.create(owner=owner, question="private question", status="succeeded", body="x")
    response = Client().get(feed)
    assert b"private question" not in response.content


def test_a_deactivated_owners_watch_feed_is_a_404(watch, feed, owner):
    run_finished(watch)
    assert Client().get(feed).status_code == 200
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    assert Client().get(feed).status_code == 404, "a deactivated owner's feed served"
