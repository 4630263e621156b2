"""Deleting one's account: only with one's password (a wrong one counts as a failed sign-in),
only by a POST with the CSRF token; then nothing of the person is left in any table, another
person's rows are untouched, and the browser is signed out."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.removal import account_delete
from tests.accounts.conftest import account_world, rows_of, rows_through, user_foreign_keys

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

DELETE = reverse("account-delete")


def test_the_check_asks_every_model_that_points_at_a_user():
    labels = {f"{model._meta.label}.{name}" for model, name in user_foreign_keys()}
    # The enumeration finds what the removal names and what it leaves to the cascade.
    assert {
        "briefs.Brief.owner",
        "briefs.ApiToken.user",
        "briefs.Webhook.owner",
        "sharing.FeedKey.owner",
        "watches.Watch.owner",
        "accounts.Profile.user",
        "admin.LogEntry.user",
        "auth.User_groups.user",
    } <= labels


def test_it_removes_everything_the_user_owns_and_nothing_of_anyone_else(owner, other_user):
    mine, theirs = account_world(owner), account_world(other_user, question="Other's question?")
    before = rows_of(other_user.pk)
    account_delete(user=owner)
    assert rows_of(owner.pk) == {}
    assert rows_through(mine) == {}
    assert rows_of(other_user.pk) == before
    assert set(rows_through(theirs)) == {"briefs", "shares", "steps", "watch_runs", "deliveries"}


def test_the_page_deletes_with_the_right_password_and_signs_out(owner, owner_client):
    owned = account_world(owner)
    response = owner_client.post(DELETE, {"password": "alice-pass-1234"})
    assert response.status_code == 302 and response["Location"] == reverse("login")
    assert rows_of(owner.pk) == {} and rows_through(owned) == {}
    assert "_auth_user_id" not in owner_client.session
    assert owner_client.get(reverse("home")).status_code == 302, "signed out"


@pytest.mark.parametrize("password", ["", "wrong-pass", "mallory-pass-1234", "x" * 5000])
def test_it_refuses_a_wrong_password_and_keeps_everything(owner, other_user, owner_client,
                                                          password):  # fmt: skip
    owned = account_world(owner)
    before = rows_of(owner.pk)
    response = owner_client.post(DELETE, {"password": password})
    assert response.status_code == 400
    assert rows_of(owner.pk) == before and len(rows_through(owned)) == 5


def test_wrong_passwords_count_towards_the_sign_in_lock(owner, owner_client, settings):
    for n in range(settings.LOGIN_FAILURE_LIMIT):
        owner_client.post(DELETE, {"password": f"guess-{n}"}, REMOTE_ADDR="203.0.113.9")
    response = owner_client.post(DELETE, {"password": "alice-pass-1234"}, REMOTE_ADDR="203.0.113.9")
    assert response.status_code in (400, 429), "locked: the right password is not heard"
    assert get_user_model().objects.filter(pk=owner.pk).exists()


def test_it_needs_the_csrf_token(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    response = client.post(DELETE, {"password": "alice-pass-1234"})
    assert response.status_code == 403
    assert get_user_model().objects.filter(pk=owner.pk).exists()


def test_a_get_only_asks(owner, owner_client):
    response = owner_client.get(DELETE)
    assert response.status_code == 200 and b'id="account-delete-form"' in response.content
    assert get_user_model().objects.filter(pk=owner.pk).exists()


def test_it_requires_login(client):
    response = client.post(DELETE, {"password": "x"})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
