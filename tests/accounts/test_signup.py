"""Self sign-up: off unless SIGNUP_OPEN; when on, an inactive account and an email with a signed
link; opening the link asks first, then activates and signs in, once; a forged, expired or
reused link activates nothing."""

import pytest
from django.contrib.auth import get_user_model
from django.core import signing
from django.test import Client
from django.urls import reverse

from accounts.signup import SIGNUP_SALT

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

SIGNUP = "/accounts/signup/"
FORM = {
    "username": "newcomer",
    "email": "new@example.org",
    "password1": "a-long-Pass-phrase-42",
    "password2": "a-long-Pass-phrase-42",
}


@pytest.fixture
def open_signup(settings):
    settings.SIGNUP_OPEN = True


def verify_path(mail) -> str:
    line = next(line for line in mail.body.splitlines() if "/accounts/signup/verify/" in line)
    return line[line.index("/accounts/") :].strip()


def test_it_is_off_by_default(client, settings):
    assert settings.SIGNUP_OPEN is False
    assert client.get(SIGNUP).status_code == 404
    assert client.post(SIGNUP, FORM).status_code == 404
    assert b'id="signup-link"' not in client.get(reverse("login")).content


def test_a_sign_up_waits_for_its_email(client, open_signup, mailoutbox):
    assert b'id="signup-link"' in client.get(reverse("login")).content
    response = client.post(SIGNUP, FORM)
    assert response.status_code == 200 and b'id="signup-sent"' in response.content
    user = get_user_model().objects.get(username="newcomer")
    assert not user.is_active and user.email == "new@example.org"
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["new@example.org"]
    client.post(reverse("login"), {"username": "newcomer", "password": FORM["password1"]})
    assert "_auth_user_id" not in client.session, "an inactive account does not sign in"


def test_the_link_asks_then_activates_and_signs_in_once(client, open_signup, mailoutbox):
    client.post(SIGNUP, FORM)
    path = verify_path(mailoutbox[0])
    page = client.get(path)
    assert page.status_code == 200 and page["Referrer-Policy"] == "same-origin"
    newcomer = get_user_model().objects.get(username="newcomer")
    assert not newcomer.is_active, "a GET activates nothing"
    response = client.post(path)
    assert response.status_code == 302 and response["Location"] == reverse("profile")
    assert get_user_model().objects.get(username="newcomer").is_active
    assert "_auth_user_id" in client.session
    again = Client()
    assert again.post(path).status_code == 404
    assert "_auth_user_id" not in again.session, "a second opening signs nobody in"


def test_the_email_is_in_the_readers_language(client, open_signup, mailoutbox):
    client.post(SIGNUP, FORM, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "RSSHub Agent" in mailoutbox[0].subject
    assert any("\u4e00" <= ch <= "\u9fff" for ch in mailoutbox[0].body)


@pytest.mark.parametrize(
    "token",
    [
        "not-a-token",
        "x" * 5000,
        signing.dumps({"u": 1, "e": "new@example.org"}, salt="another.salt"),
        signing.dumps({"u": "1"}, salt=SIGNUP_SALT),
        signing.dumps([1, 2], salt=SIGNUP_SALT),
    ],
    # Named, not shown: a signed token holds its signing time, and every worker must collect the
    # same test ids.
    ids=["not a token", "huge", "another salt", "user id as text", "a list"],
)
def test_a_forged_link_activates_nothing(client, open_signup, token):
    client.post(SIGNUP, FORM)
    response = client.post(f"/accounts/signup/verify/{token}/")
    assert response.status_code == 404
    assert not get_user_model().objects.get(username="newcomer").is_active


def test_an_expired_link_activates_nothing(client, open_signup, mailoutbox, settings):
    client.post(SIGNUP, FORM)
    path = verify_path(mailoutbox[0])
    settings.SIGNUP_VERIFY_HOURS = 0  # every token is now older than its allowance
    assert client.post(path).status_code == 404
    assert not get_user_model().objects.get(username="newcomer").is_active


def test_a_link_for_another_email_activates_nothing(client, open_signup, mailoutbox):
    client.post(SIGNUP, FORM)
    user = get_user_model().objects.get(username="newcomer")
    token = signing.dumps({"u": user.pk, "e": "someone@else.org"}, salt=SIGNUP_SALT)
    assert client.post(f"/accounts/signup/verify/{token}/").status_code == 404


def test_a_deactivated_account_is_not_reopened_by_its_old_link(client, open_signup, mailoutbox):
    client.post(SIGNUP, FORM)
    path = verify_path(mailoutbox[0])
    client.post(path)
    get_user_model().objects.filter(username="newcomer").update(is_active=False)  # by staff
    assert Client().post(path).status_code == 404
    assert not get_user_model().objects.get(username="newcomer").is_active


def test_the_form_checks_the_password_and_the_name(client, open_signup, owner, mailoutbox):
    for changes in ({"password2": "other"}, {"username": "alice"}, {"email": "not-an-email"}):
        assert client.post(SIGNUP, {**FORM, **changes}).status_code == 400
    assert not mailoutbox


def test_it_needs_the_csrf_token(open_signup, mailoutbox):
    assert Client(enforce_csrf_checks=True).post(SIGNUP, FORM).status_code == 403
    assert not mailoutbox


def test_sign_up_emails_share_the_password_resets_budget(client, open_signup, settings,
                                                        mailoutbox):  # fmt: skip
    settings.PASSWORD_RESETS_PER_ADDRESS_HOUR = 1
    assert client.post(SIGNUP, FORM).status_code == 200
    second = {**FORM, "username": "another", "email": "another@example.org"}
    response = client.post(SIGNUP, second)
    assert response.status_code == 429
    assert len(mailoutbox) == 1
    assert not get_user_model().objects.filter(username="another").exists()
