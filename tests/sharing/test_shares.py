"""Share links: the owner makes, copies and revokes one from the brief's page; anyone with it
reads the brief without login and sees nothing else of the owner; every other URL is a 404."""

from html.parser import HTMLParser

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from briefs.models import Brief, BriefStatus
from sharing.models import BriefShare
from sharing.services import ShareRefused, brief_share_create, brief_share_revoke
from tests.brief_examples import ITEM_URL, finished_brief, make_brief
from tests.sharing.conftest import BAD_SECRETS

pytestmark = pytest.mark.django_db


def shared_path(share: BriefShare) -> str:
    return reverse("shared-brief", args=[share.secret])


class PageParts(HTMLParser):
    """The links, forms and scripts of a page, as a browser would find them."""

    def __init__(self):
        super().__init__()
        self.hrefs, self.forms, self.scripts, self.data_attrs = [], [], [], []

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        self.data_attrs += [name for name, _ in attrs if name.startswith("data-")]
        if tag == "a":
            self.hrefs.append(found.get("href") or "")
        elif tag == "form":
            self.forms.append(found.get("action") or "")
        elif tag == "script":
            self.scripts.append(found)


def page_parts(response) -> PageParts:
    parts = PageParts()
    parts.feed(response.content.decode())
    return parts


@pytest.fixture
def brief(owner):
    first = finished_brief(owner, question="The earlier question")
    return finished_brief(owner, question="What changed on alpha?", follow_up_of=first)


@pytest.fixture
def share(owner, brief):
    return brief_share_create(owner=owner, brief_id=brief.pk)[0]


def test_anyone_with_the_link_reads_the_brief(anonymous, brief, share):
    response = anonymous.get(shared_path(share))
    assert response.status_code == 200
    html = response.content.decode()
    assert "What changed on alpha?" in html
    assert "Title one" in html and f'href="{ITEM_URL}"' in html  # the answer cites its item
    assert 'id="sources"' in html


def test_the_shared_page_exposes_nothing_of_the_owner(anonymous, owner, brief, share):
    response = anonymous.get(shared_path(share))
    html = response.content.decode()
    parts = page_parts(response)
    assert owner.get_username() not in html
    assert "The earlier question" not in html  # the brief it follows up
    internal = [h for h in parts.hrefs if h.startswith("/") and h != "/"]
    # No link to another brief, the markdown or any action: only the way to ask one's own.
    assert internal == [reverse("login")], internal
    assert parts.forms == ["/i18n/setlang/"]  # only the language switch: no follow-up, no rerun
    assert "data-brief" not in parts.data_attrs and "data-ws" not in parts.data_attrs
    assert "/briefs/" not in html and "/ws/" not in html
    for word in ("Rerun", "Delete", "Follow up", "Usage", "Steps", "Coverage"):
        assert f">{word}<" not in html, word


def test_the_shared_page_keeps_the_policy_and_runs_no_inline_script(anonymous, share):
    response = anonymous.get(shared_path(share))
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    scripts = page_parts(response).scripts
    assert scripts, "the dashboard script and the markdown data"
    assert all(s.get("src") or s.get("type") == "application/json" for s in scripts), scripts
    assert response["Referrer-Policy"] == "same-origin"  # never to another site
    assert response["Cache-Control"] == "private, no-store"
    assert "noindex" in response["X-Robots-Tag"]


def test_a_revoked_link_is_a_404(owner, anonymous, brief, share):
    assert brief_share_revoke(owner=owner, brief_id=brief.pk) == 1
    assert anonymous.get(shared_path(share)).status_code == 404
    assert brief_share_revoke(owner=owner, brief_id=brief.pk) == 0


def test_a_new_link_after_revoking_has_a_new_secret(owner, anonymous, brief, share):
    brief_share_revoke(owner=owner, brief_id=brief.pk)
    again = brief_share_create(owner=owner, brief_id=brief.pk)[0]
    assert again.secret != share.secret
    assert anonymous.get(shared_path(again)).status_code == 200
    assert anonymous.get(shared_path(share)).status_code == 404


def test_a_brief_has_one_live_link(owner, brief, share):
    assert brief_share_create(owner=owner, brief_id=brief.pk) == (share, False)
    with pytest.raises(IntegrityError), transaction.atomic():
        BriefShare.objects.create(brief=brief, secret="x", digest="y")


def test_a_deleted_brief_takes_its_link_with_it(anonymous, brief, share):
    Brief.objects.filter(pk=brief.pk).delete()
    assert anonymous.get(shared_path(share)).status_code == 404


def test_an_inactive_owners_link_is_a_404(owner, anonymous, share):
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    assert anonymous.get(shared_path(share)).status_code == 404


@pytest.mark.parametrize("secret", BAD_SECRETS)
def test_a_bad_secret_is_a_404(anonymous, share, secret):
    assert anonymous.get(f"/s/{secret}").status_code == 404


def test_the_link_opens_its_own_brief_and_no_other(owner, anonymous, brief, share):
    other = finished_brief(owner, question="Another brief of alice")
    other_share = brief_share_create(owner=owner, brief_id=other.pk)[0]
    assert "Another brief" not in anonymous.get(shared_path(share)).content.decode()
    assert "Another brief" in anonymous.get(shared_path(other_share)).content.decode()
    assert anonymous.get(shared_path(share) + "/").status_code == 404
    assert anonymous.get(reverse("brief-detail", args=[other.pk])).status_code == 302  # login


def test_only_a_finished_brief_is_shared(owner):
    queued = make_brief(owner)
    with pytest.raises(ShareRefused):
        brief_share_create(owner=owner, brief_id=queued.pk)[0]
    assert not BriefShare.objects.exists()


def test_a_failed_brief_shares_without_its_error(owner, anonymous):
    failed = make_brief(
        owner, status=BriefStatus.FAILED, error="internal error: KeyError at /srv/x"
    )
    share = brief_share_create(owner=owner, brief_id=failed.pk)[0]
    html = anonymous.get(shared_path(share)).content.decode()
    assert "This brief failed" in html and "KeyError" not in html


# --- the owner's controls ------------------------------------------------------------------------


def test_the_brief_page_offers_to_share(owner_client, brief):
    html = owner_client.get(brief.get_absolute_url()).content.decode()
    assert 'id="share-create-button"' in html
    assert reverse("brief-share", args=[brief.pk]) in html


def test_an_unfinished_brief_page_offers_no_share(owner, owner_client):
    html = owner_client.get(make_brief(owner).get_absolute_url()).content.decode()
    assert 'id="share-create-button"' not in html
    assert owner_client.post(reverse("brief-share", args=[make_brief(owner).pk])).status_code == 302
    assert not BriefShare.objects.exists()


def test_the_share_button_makes_a_link_to_copy_and_revoke(owner_client, brief, anonymous):
    response = owner_client.post(reverse("brief-share", args=[brief.pk]), follow=True)
    share = BriefShare.objects.get(brief=brief)
    html = response.content.decode()
    url = f"http://testserver/s/{share.secret}"
    assert f'<code id="share-url-field">{url}</code>' in html and 'data-copy="share-url"' in html
    assert 'id="share-revoke-button"' in html
    owner_client.post(reverse("brief-share", args=[brief.pk]))  # again: the same link
    assert BriefShare.objects.filter(brief=brief).count() == 1
    owner_client.post(reverse("brief-share-revoke", args=[brief.pk]))
    assert anonymous.get(f"/s/{share.secret}").status_code == 404
    html = owner_client.get(brief.get_absolute_url()).content.decode()
    assert share.secret not in html and 'id="share-create-button"' in html


def test_another_user_can_neither_share_nor_revoke(other_client, brief, share, anonymous):
    assert other_client.post(reverse("brief-share", args=[brief.pk])).status_code == 404
    assert other_client.post(reverse("brief-share-revoke", args=[brief.pk])).status_code == 404
    assert BriefShare.objects.filter(brief=brief).count() == 1
    assert anonymous.get(shared_path(share)).status_code == 200
    assert other_client.post(reverse("brief-share", args=[999_999_999])).status_code == 404


def test_sharing_needs_login_post_and_csrf(owner, brief, anonymous):
    assert anonymous.post(reverse("brief-share", args=[brief.pk])).status_code == 302
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.get(reverse("brief-share", args=[brief.pk])).status_code == 405
    assert client.post(reverse("brief-share", args=[brief.pk])).status_code == 403
    assert not BriefShare.objects.exists()


def test_the_feeds_page_lists_live_links_and_revokes_them(owner_client, brief, share, anonymous):
    html = owner_client.get(reverse("feeds")).content.decode()
    assert "What changed on alpha?" in html and f"/s/{share.secret}" in html
    response = owner_client.post(reverse("brief-share-revoke", args=[brief.pk]), {"next": "feeds"})
    assert response["Location"] == reverse("feeds")
    assert f"/s/{share.secret}" not in owner_client.get(reverse("feeds")).content.decode()
    assert anonymous.get(shared_path(share)).status_code == 404


def test_the_shared_page_speaks_chinese(anonymous, share):
    response = anonymous.get(shared_path(share), headers={"Accept-Language": "zh-hans"})
    assert "来源" in response.content.decode() and "分享" in response.content.decode()
