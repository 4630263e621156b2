"""Feed keys and share links in the admin: listed with a hint of the secret, never the secret;
share links revoked from the list."""

import pytest
from django.test import Client

from sharing.models import BriefShare, FeedKey
from sharing.services import brief_share_create, feed_key_of
from tests.brief_examples import finished_brief

pytestmark = pytest.mark.django_db


def test_feed_keys_are_listed_without_their_secret(staff_client, owner):
    key = feed_key_of(owner=owner)
    for url in ("/admin/sharing/feedkey/", f"/admin/sharing/feedkey/{key.pk}/change/"):
        html = staff_client.get(url).content.decode()
        assert key.secret[:6] in html, url
        assert key.secret not in html and key.digest not in html, url
    assert staff_client.get("/admin/sharing/feedkey/add/").status_code == 403


def test_share_links_are_listed_without_their_secret(staff_client, owner):
    share = brief_share_create(owner=owner, brief_id=finished_brief(owner).pk)[0]
    for url in ("/admin/sharing/briefshare/", f"/admin/sharing/briefshare/{share.pk}/change/"):
        html = staff_client.get(url).content.decode()
        assert share.secret[:6] in html and "alice" in html, url
        assert share.secret not in html and share.digest not in html, url
    live = staff_client.get("/admin/sharing/briefshare/?revoked_at__isempty=1")
    assert share.secret[:6] in live.content.decode()


def test_the_admin_revokes_share_links(staff_client, owner, anonymous):
    share = brief_share_create(owner=owner, brief_id=finished_brief(owner).pk)[0]
    response = staff_client.post(
        "/admin/sharing/briefshare/",
        {"action": "revoke", "_selected_action": [share.pk]},
        follow=True,
    )
    assert "1 share link revoked." in response.content.decode()
    assert BriefShare.objects.get(pk=share.pk).revoked_at is not None
    assert anonymous.get(f"/s/{share.secret}").status_code == 404


def test_a_user_without_staff_rights_sees_no_admin(owner):
    client = Client()
    client.force_login(owner)
    feed_key_of(owner=owner)
    assert client.get("/admin/sharing/feedkey/").status_code == 302
    assert FeedKey.objects.count() == 1
