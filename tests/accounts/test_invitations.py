"""Invitations: staff make one in the admin and see its link once; the database keeps only the
digest; the link makes one account (Django's password rules apply) and signs its owner in;
a used, expired, unknown or malformed link is the same 404 page; a race makes one account."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.invitations import InvitationClosed, invitation_accept, invitation_issue
from accounts.models import Invitation
from tests.sharing.conftest import BAD_SECRETS

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

GOOD = {"username": "newcomer", "password1": "a-long-Pass-phrase-42", "password2": "a-long-Pass-phrase-42"}  # noqa: E501  # fmt: skip


def issued(staff=None, **fields) -> tuple[Invitation, str]:
    invitation = Invitation(**fields)
    return invitation, invitation_issue(invitation=invitation, created_by=staff)


def link(secret: str) -> str:
    return reverse("invitation-accept", args=[secret])


def test_staff_make_one_in_the_admin_and_see_the_link_once(staff_client, staff, settings):
    response = staff_client.post(
        reverse("admin:accounts_invitation_add"), {"note": "for Bob"}, follow=True
    )
    assert response.status_code == 200
    invitation = Invitation.objects.get()
    shown = [str(m) for m in response.context["messages"]]
    url = next(word for m in shown for word in m.split() if "/accounts/invitation/" in word)
    secret = url.rstrip("/").rsplit("/", 1)[1]
    assert secret not in invitation.digest and len(invitation.digest) == 64
    assert not any(secret in str(v) for v in Invitation.objects.values().get().values())
    assert invitation.created_by == staff and invitation.note == "for Bob"
    expected = invitation.created_at + timedelta(days=settings.INVITATION_DAYS)
    assert invitation.expires_at == expected
    change = staff_client.get(reverse("admin:accounts_invitation_change", args=[invitation.pk]))
    assert secret.encode() not in change.content, "the link is not shown again"


def test_a_user_who_is_not_staff_cannot_make_one(owner_client):
    response = owner_client.post(reverse("admin:accounts_invitation_add"), {"note": "x"})
    assert response.status_code == 302 and Invitation.objects.count() == 0


def test_the_link_makes_an_account_and_signs_it_in(client):
    invitation, secret = issued(note="bob")
    page = client.get(link(secret))
    assert page.status_code == 200 and page["Referrer-Policy"] == "same-origin"
    assert "no-store" in page["Cache-Control"]
    response = client.post(link(secret), GOOD)
    assert response.status_code == 302 and response["Location"] == reverse("profile")
    user = get_user_model().objects.get(username="newcomer")
    assert user.check_password(GOOD["password1"]) and user.is_active and not user.is_staff
    assert client.session["_auth_user_id"] == str(user.pk)
    invitation.refresh_from_db()
    assert invitation.used_by == user and invitation.used_at is not None


def test_a_used_link_is_closed(client):
    _invitation, secret = issued()
    assert client.post(link(secret), GOOD).status_code == 302
    again = Client()
    assert again.get(link(secret)).status_code == 404
    second = dict(GOOD, username="second")
    response = again.post(link(secret), second)
    assert response.status_code == 404 and b'id="invitation-closed"' in response.content
    assert not get_user_model().objects.filter(username="second").exists()


def test_an_expired_link_is_closed(client):
    invitation, secret = issued()
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now())
    assert client.get(link(secret)).status_code == 404
    assert client.post(link(secret), GOOD).status_code == 404
    assert not get_user_model().objects.filter(username="newcomer").exists()


@pytest.mark.parametrize("bad", BAD_SECRETS)
def test_a_wrong_or_malformed_link_is_the_same_page(client, bad):
    issued()
    response = client.get(f"/accounts/invitation/{bad}/")
    assert response.status_code == 404
    response = client.post(f"/accounts/invitation/{bad}/", GOOD)
    assert response.status_code == 404
    assert not get_user_model().objects.filter(username="newcomer").exists()


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"password1": "short", "password2": "short"}, "password2"),
        ({"password1": "password123", "password2": "password123"}, "password2"),
        ({"password2": "something-else-entirely"}, "password2"),
        ({"username": "alice"}, "username"),  # taken
        ({"username": "bad name!"}, "username"),
        ({"username": "x" * 200}, "username"),
    ],
)
def test_the_passwords_and_names_are_checked_and_the_link_stays_open(client, owner, changes,
                                                                     field):  # fmt: skip
    invitation, secret = issued()
    response = client.post(link(secret), {**GOOD, **changes})
    assert response.status_code == 400
    assert response.context["form"].errors[field]
    invitation.refresh_from_db()
    assert invitation.used_at is None, "a refused form does not use up the link"


def test_taking_it_needs_the_csrf_token():
    _invitation, secret = issued()
    client = Client(enforce_csrf_checks=True)
    assert client.post(link(secret), GOOD).status_code == 403
    assert not get_user_model().objects.filter(username="newcomer").exists()


def test_two_takers_make_one_account():
    _invitation, secret = issued()
    invitation_accept(secret=secret, username="first", password=GOOD["password1"])
    with pytest.raises(InvitationClosed):
        invitation_accept(secret=secret, username="second", password=GOOD["password1"])
    assert not get_user_model().objects.filter(username="second").exists()


def test_a_name_taken_meanwhile_leaves_the_link_open(owner):
    invitation, secret = issued()
    with pytest.raises(InvitationClosed):
        invitation_accept(secret=secret, username="alice", password=GOOD["password1"])
    invitation.refresh_from_db()
    assert invitation.used_at is None
