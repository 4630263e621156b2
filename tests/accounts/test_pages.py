"""The account pages as a person reads them: sign-in leads to "forgot password?" (the reset,
throttled as before, in the dashboard's own pages); a shared brief says in one line what made it
and how to ask one's own; in Chinese no page shows the catalog's English."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.invitations import invitation_issue
from accounts.models import Invitation
from sharing.services import brief_share_create
from tests.brief_examples import finished_brief
from tests.untranslated import untranslated_in_html, untranslated_in_text

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


@pytest.fixture(autouse=True)
def language_kept():
    language = translation.get_language()
    yield
    translation.activate(language)


def test_sign_in_offers_the_password_reset_and_the_reset_is_the_dashboards(client):
    page = client.get(reverse("login")).content.decode()
    assert f'href="{reverse("password_reset")}" id="forgot-password"' in page
    reset = client.get(reverse("password_reset"))
    assert reset.status_code == 200 and b'id="reset-form"' in reset.content


def test_the_reset_sends_its_email_and_stays_throttled(client, owner, settings, mailoutbox):
    get_user_model().objects.filter(pk=owner.pk).update(email="alice@example.org")
    settings.PASSWORD_RESETS_PER_ACCOUNT_HOUR = 1
    for _n in range(3):
        response = client.post(reverse("password_reset"), {"email": "alice@example.org"})
        assert response.status_code == 302
    assert len(mailoutbox) == 1, "the throttle of accounts.signin still holds"
    link = re.search(r"https?://\S+/reset/\S+/", mailoutbox[0].body).group(0)
    form = client.get(link, follow=True)
    assert b'id="reset-confirm-form"' in form.content
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a-new-Pass-phrase-42", "new_password2": "a-new-Pass-phrase-42"},
        follow=True,
    )
    assert b'id="reset-complete"' in done.content
    owner.refresh_from_db()
    assert owner.check_password("a-new-Pass-phrase-42")


def shared(owner):
    brief = finished_brief(owner, language="en")  # its body is English, marked so on the page
    share, _made = brief_share_create(owner=owner, brief_id=brief.pk)
    return brief, reverse("shared-brief", args=[share.secret])


def test_a_shared_brief_says_what_made_it_and_how_to_ask(owner, client, other_client):
    _brief, path = shared(owner)
    line = re.search(
        r'<p class="muted" id="made-by">(.*?)</p>', client.get(path).content.decode(), re.S
    )
    text = " ".join(re.sub(r"<[^>]+>", " ", line.group(1)).split())
    assert text.startswith("Made by RSSHub Agent from 1 source fetched at "), text
    assert f'href="{reverse("login")}" id="made-by-sign-in"' in line.group(1)
    signed_in = other_client.get(path).content.decode()
    assert 'id="made-by-ask"' in signed_in and 'id="made-by-sign-in"' not in signed_in


def test_the_line_counts_the_cited_feeds_when_no_coverage_is_kept(owner, client):
    brief = finished_brief(owner, coverage={})
    share, _made = brief_share_create(owner=owner, brief_id=brief.pk)
    page = client.get(reverse("shared-brief", args=[share.secret])).content.decode()
    assert "from 1 source fetched at" in page


def test_in_chinese_no_account_page_shows_catalog_english(owner, settings, mailoutbox):
    settings.SIGNUP_OPEN = True
    invitation = Invitation(note="x")
    secret = invitation_issue(invitation=invitation, created_by=None)
    _brief, shared_path = shared(owner)
    anonymous, signed = Client(**ZH), Client(**ZH)
    signed.force_login(owner)
    pages = {
        "login": anonymous.get(reverse("login")),
        "reset": anonymous.get(reverse("password_reset")),
        "invitation": anonymous.get(reverse("invitation-accept", args=[secret])),
        "invitation-closed": anonymous.get(reverse("invitation-accept", args=["A" * 43])),
        "signup": anonymous.get(reverse("signup")),
        "signup-sent": anonymous.post(
            reverse("signup"),
            {
                "username": "bo",
                "email": "bo@example.org",
                "password1": "a-long-Pass-42x",
                "password2": "a-long-Pass-42x",
            },
        ),
        "verify": anonymous.get(reverse("signup-verify", args=["x"])),
        "refused": anonymous.post(reverse("signup-verify", args=["x"])),
        "shared": anonymous.get(shared_path),
        "profile": signed.get(reverse("profile")),
        "delete": signed.get(reverse("account-delete")),
        "delete-wrong": signed.post(reverse("account-delete"), {"password": "nope"}),
    }
    for name, response in pages.items():
        assert response.status_code in (200, 400, 404), name
        found = untranslated_in_html(response.content.decode())
        assert not found, f"{name}: {found}"
    assert not untranslated_in_text(mailoutbox[0].subject + "\n" + mailoutbox[0].body)
