"""The owner's feed of all their briefs: a secret URL, rotated from the Feeds page; every other
URL is a 404, and only the owner's finished briefs are in it."""

from datetime import timedelta

import feedparser
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from briefs.models import BriefStatus
from sharing.link_secrets import SECRET_RE, link_secret_digest, link_secret_new
from sharing.models import BriefShare, FeedKey
from sharing.services import brief_share_create, feed_key_of, feed_key_rotate
from tests.brief_examples import finished_brief, make_brief
from tests.sharing.conftest import BAD_SECRETS

pytestmark = pytest.mark.django_db


def feed_path(key: FeedKey) -> str:
    return reverse("feed-briefs", args=[key.secret])


def entries(response) -> list:
    assert response.status_code == 200, response.status_code
    parsed = feedparser.parse(
        response.content, response_headers={"content-type": response["Content-Type"]}
    )
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    return parsed.entries


def test_secrets_are_long_random_and_distinct():
    made = [link_secret_new() for _ in range(50)]
    assert len({m.secret for m in made}) == 50
    assert all(SECRET_RE.match(m.secret) for m in made)
    assert all(link_secret_digest(m.secret) == m.digest for m in made)


@pytest.mark.parametrize("presented", [None, 42, "", "A" * 42, "A" * 43 + "\n", "A" * 4300])
def test_a_secret_of_the_wrong_shape_has_no_digest(presented):
    assert link_secret_digest(presented) is None


def test_the_feed_holds_the_owners_finished_briefs_newest_first(owner, other_user, anonymous):
    now = timezone.now()
    older = finished_brief(owner, question="older", created_at=now - timedelta(hours=2))
    newer = finished_brief(owner, question="newer", created_at=now - timedelta(hours=1))
    failed = make_brief(owner, question="failed", status=BriefStatus.FAILED, finished_at=now)
    make_brief(owner, question="still queued")
    make_brief(owner, question="running", status=BriefStatus.RUNNING)
    finished_brief(other_user, question="mallory's")
    response = anonymous.get(feed_path(feed_key_of(owner=owner)))
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    found = entries(response)
    assert [e.title for e in found] == ["failed", "newer", "older"]
    assert found[1].link == f"http://testserver/briefs/{newer.pk}/"
    assert found[0].id.endswith(f":brief/{failed.pk}") and found[2].id.endswith(
        f":brief/{older.pk}"
    )


def test_the_feed_answers_304_to_its_etag_and_last_modified(owner, anonymous):
    finished_brief(owner)
    path = feed_path(feed_key_of(owner=owner))
    first = anonymous.get(path)
    assert anonymous.get(path, headers={"If-None-Match": first["ETag"]}).status_code == 304
    since = {"If-Modified-Since": first["Last-Modified"]}
    assert anonymous.get(path, headers=since).status_code == 304
    finished_brief(owner, question="a new one", finished_at=timezone.now() + timedelta(seconds=2))
    assert anonymous.get(path, headers={"If-None-Match": first["ETag"]}).status_code == 200
    assert anonymous.get(path, headers=since).status_code == 200


def test_the_feed_reads_a_fixed_number_of_queries(owner, anonymous, django_assert_num_queries):
    path = feed_path(feed_key_of(owner=owner))
    finished_brief(owner)
    with django_assert_num_queries(2):  # the key with its owner, the briefs
        anonymous.get(path)
    for n in range(60):
        finished_brief(owner, question=f"q{n}")
    with django_assert_num_queries(2):
        assert len(entries(anonymous.get(path))) == 50


def test_rotating_the_key_closes_the_old_url_and_keeps_the_feed_id(owner, anonymous):
    finished_brief(owner)
    old = feed_key_of(owner=owner)
    before = entries(anonymous.get(feed_path(old)))
    new = feed_key_rotate(owner=owner)
    assert new.secret != old.secret and new.pk == old.pk
    assert anonymous.get(feed_path(old)).status_code == 404
    after = entries(anonymous.get(feed_path(new)))
    assert [e.id for e in after] == [e.id for e in before]
    assert FeedKey.objects.filter(owner=owner).count() == 1


@pytest.mark.parametrize("secret", BAD_SECRETS)
def test_a_bad_secret_is_a_404(owner, anonymous, secret):
    feed_key_of(owner=owner)
    assert anonymous.get(f"/feeds/{secret}/briefs.atom").status_code == 404


def test_a_share_secret_does_not_open_a_feed_nor_the_reverse(owner, anonymous):
    share = brief_share_create(owner=owner, brief_id=finished_brief(owner).pk)[0]
    key = feed_key_of(owner=owner)
    assert anonymous.get(f"/feeds/{share.secret}/briefs.atom").status_code == 404
    assert anonymous.get(reverse("shared-brief", args=[key.secret])).status_code == 404
    assert BriefShare.objects.count() == 1


def test_an_inactive_owners_feed_is_a_404(owner, anonymous):
    key = feed_key_of(owner=owner)
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    assert anonymous.get(feed_path(key)).status_code == 404


def test_the_feed_only_answers_get_and_head(owner, anonymous):
    path = feed_path(feed_key_of(owner=owner))
    assert anonymous.head(path).status_code == 200
    assert anonymous.post(path).status_code == 405


def test_the_feeds_page_requires_login(anonymous):
    response = anonymous.get(reverse("feeds"))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert anonymous.post(reverse("feed-rotate")).status_code == 302
    assert FeedKey.objects.count() == 0


def test_the_feeds_page_shows_the_address_with_copy_and_rotate(owner, owner_client):
    response = owner_client.get(reverse("feeds"))
    key = FeedKey.objects.get(owner=owner)
    html = response.content.decode()
    url = f"http://testserver/feeds/{key.secret}/briefs.atom"
    assert f'<code id="feed-url-field">{url}</code>' in html
    assert 'data-copy="feed-url"' in html and 'id="feed-url"' in html
    assert 'id="feed-rotate-button"' in html
    assert response["Cache-Control"] == "no-store"
    assert owner_client.get(reverse("feeds")).context["key"].secret == key.secret  # kept


def test_the_rotate_button_makes_a_new_address(owner, owner_client):
    old = feed_key_of(owner=owner).secret
    assert owner_client.get(reverse("feed-rotate")).status_code == 405
    response = owner_client.post(reverse("feed-rotate"), follow=True)
    new = FeedKey.objects.get(owner=owner).secret
    assert new != old
    assert new in response.content.decode() and old not in response.content.decode()
    assert "The feed has a new address" in response.content.decode()


def test_rotating_needs_the_csrf_token(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    old = feed_key_of(owner=owner).secret
    assert client.post(reverse("feed-rotate")).status_code == 403
    assert FeedKey.objects.get(owner=owner).secret == old


def test_each_user_sees_only_their_own_feed(owner, other_user, owner_client, other_client):
    owner_client.get(reverse("feeds"))
    response = other_client.get(reverse("feeds"))
    mine, theirs = FeedKey.objects.get(owner=owner), FeedKey.objects.get(owner=other_user)
    assert mine.secret != theirs.secret
    assert mine.secret not in response.content.decode()


def test_the_feeds_page_speaks_chinese(owner_client):
    response = owner_client.get(reverse("feeds"), headers={"Accept-Language": "zh-hans"})
    assert "订阅" in response.content.decode()
