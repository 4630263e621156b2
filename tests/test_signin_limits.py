"""Sign-in that resists guessing and cannot be aimed: failures are limited per pair (account,
address), with a slower back-off per account that never refuses the right password from an
address that has not failed; for the dashboard's sign-in, the admin's and the change-password
form alike; API tokens are untouched; staff unlock in the admin.

Settings as shipped: LOGIN_FAILURE_LIMIT=5 (the 5th failure locks; later attempts are refused
without checking the password) and a LOGIN_COOLOFF_MINUTES cool-off. Time passes by moving the
stored attempt times back, not by waiting.
"""

import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from axes.models import AccessAttempt
from django.conf import settings
from django.db import connections
from django.test import RequestFactory
from django.utils import translation

from accounts.lockout import client_address
from briefs.tokens.service import token_issue

DASHBOARD = "/accounts/login/"
ADMIN = "/admin/login/"
ATTACKER = "203.0.113.7"
ELSEWHERE = "198.51.100.20"


def sign_in(client, url: str, username: str, password: str, address: str = ATTACKER):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=address)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def fail_until_locked(client, url: str, username: str, address: str = ATTACKER) -> list[int]:
    """Five wrong passwords; the status codes they got."""
    return [
        sign_in(client, url, username, f"wrong-guess-{n}", address).status_code
        for n in range(settings.LOGIN_FAILURE_LIMIT)
    ]


@pytest.mark.parametrize("url", [DASHBOARD, ADMIN])
def test_the_sixth_attempt_is_refused_even_with_the_right_password(client, staff, url):
    statuses = fail_until_locked(client, url, "sam")
    assert statuses == [200, 200, 200, 200, 429], "four form errors, then the lock-out"
    response = sign_in(client, url, "sam", "sam-pass-1234")
    assert response.status_code == 429, "the right password is not heard while locked"
    assert not signed_in(client)
    wrong = sign_in(client, url, "sam", "wrong-again")
    assert wrong.status_code == 429


def test_the_lockout_page_says_when_to_try_again(client, staff):
    fail_until_locked(client, DASHBOARD, "sam")
    response = sign_in(client, DASHBOARD, "sam", "sam-pass-1234")
    page = response.content.decode()
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    assert f"Try again in {minutes} minutes" in page
    assert response["Retry-After"] == str(int(settings.AXES_COOLOFF_TIME.total_seconds()))


def test_the_lockout_tells_nothing_about_whether_an_account_exists(client, staff):
    fail_until_locked(client, DASHBOARD, "sam", address=ATTACKER)
    known = sign_in(client, DASHBOARD, "sam", "x", address=ATTACKER)
    fail_until_locked(client, DASHBOARD, "nobody-by-this-name", address=ELSEWHERE)
    unknown = sign_in(client, DASHBOARD, "nobody-by-this-name", "x", address=ELSEWHERE)
    assert known.status_code == unknown.status_code == 429
    assert page_text(known) == page_text(unknown)


def page_text(response) -> str:
    """The page's message, without the time stamp (the two pages were made a moment apart)."""
    [section] = re.findall(
        r'<section class="card" id="locked-out">.*?</section>', response.content.decode(), re.S
    )
    return re.sub(r"after [^.]+\.", "after <time>.", section)


@pytest.mark.parametrize("url", [DASHBOARD, ADMIN])
def test_the_right_password_works_after_the_cool_off(client, staff, url):
    fail_until_locked(client, url, "sam")
    past = settings.AXES_COOLOFF_TIME + timedelta(seconds=1)
    for attempt in AccessAttempt.objects.all():
        AccessAttempt.objects.filter(pk=attempt.pk).update(attempt_time=attempt.attempt_time - past)
    response = sign_in(client, url, "sam", "sam-pass-1234")
    assert response.status_code == 302, response.content.decode()[:500]
    assert signed_in(client)


def test_a_locked_account_does_not_block_another(client, owner, other_user):
    fail_until_locked(client, DASHBOARD, "mallory", address=ATTACKER)
    response = sign_in(client, DASHBOARD, "alice", "alice-pass-1234", address=ELSEWHERE)
    assert response.status_code == 302
    assert signed_in(client)


@pytest.mark.parametrize("url", [DASHBOARD, ADMIN])
def test_five_wrong_passwords_from_one_address_do_not_lock_the_owner_out_elsewhere(
    client, staff, url
):
    fail_until_locked(client, url, "sam", address=ATTACKER)
    response = sign_in(client, url, "sam", "sam-pass-1234", address=ELSEWHERE)
    assert response.status_code == 302, "a stranger's guesses locked the owner out"
    assert signed_in(client)


def test_on_a_shared_address_one_persons_typos_do_not_lock_a_colleague(client, owner):
    fail_until_locked(client, DASHBOARD, "bob", address=ATTACKER)  # bob's typos at the office
    response = sign_in(client, DASHBOARD, "alice", "alice-pass-1234", address=ATTACKER)
    assert response.status_code == 302, "one account's failures locked the whole address"


def test_a_guess_spread_over_addresses_slows_to_one_try_per_address(client, owner, settings):
    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 8
    for n in range(2):  # 4 failures from each of two addresses: 8 for the account
        for k in range(4):
            sign_in(client, DASHBOARD, "alice", f"guess-{n}-{k}", address=f"192.0.2.{n}")
    once = sign_in(client, DASHBOARD, "alice", "guess-again", address="192.0.2.50")
    assert once.status_code == 429, "past the account's back-off an address gets one try"
    again = sign_in(client, DASHBOARD, "alice", "alice-pass-1234", address="192.0.2.0")
    assert again.status_code == 429, "an address that failed is locked past the back-off"
    fresh = sign_in(client, DASHBOARD, "alice", "alice-pass-1234", address=ELSEWHERE)
    assert fresh.status_code == 302, "the right password from an address that never failed"


def test_the_sign_in_page_says_how_many_tries_are_left(client, owner):
    first = sign_in(client, DASHBOARD, "alice", "wrong-1")
    assert first.status_code == 200
    left = settings.LOGIN_FAILURE_LIMIT - 1
    assert f"{left} tries left from here before a pause." in first.content.decode()
    for n in range(2, settings.LOGIN_FAILURE_LIMIT):
        last = sign_in(client, DASHBOARD, "alice", f"wrong-{n}")
    assert "1 try left from here before a pause." in last.content.decode()
    fresh = client.get(DASHBOARD).content.decode()
    assert 'id="tries-left"' not in fresh, "the count shows before any failure"


def test_the_tries_left_are_translated(client, owner):
    client.cookies["django_language"] = "zh-hans"
    try:
        page = sign_in(client, DASHBOARD, "alice", "wrong-1").content.decode()
    finally:
        translation.deactivate()
    assert f"从这里还可尝试 {settings.LOGIN_FAILURE_LIMIT - 1} 次" in page, page


def test_api_tokens_work_for_a_locked_account(client, owner):
    secret = token_issue(user=owner, name="ci").secret
    fail_until_locked(client, DASHBOARD, "alice")
    response = client.get(
        "/api/v1/quota", HTTP_AUTHORIZATION=f"Bearer {secret}", REMOTE_ADDR=ATTACKER
    )
    assert response.status_code == 200, response.content


def test_staff_unlock_an_account_in_the_admin(client, owner, staff):
    fail_until_locked(client, DASHBOARD, "alice", address=ATTACKER)
    client.force_login(staff)
    listing = client.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200
    [attempt] = AccessAttempt.objects.filter(username="alice")
    assert "alice" in listing.content.decode()
    deleted = client.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302
    client.logout()
    response = sign_in(client, DASHBOARD, "alice", "alice-pass-1234", address=ELSEWHERE)
    assert response.status_code == 302, "unlocked by staff"


def test_the_address_comes_from_the_socket_unless_proxies_are_trusted(settings):
    factory = RequestFactory()
    request = factory.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9")
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_address(request) == "10.0.0.1", "a client's own header is not believed"
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_address(request) == "203.0.113.9", "the entry the proxy appended"
    settings.TRUSTED_PROXY_COUNT = 3
    assert client_address(request) == "10.0.0.1", "fewer entries than proxies: not proxied"


def test_https_alone_trusts_no_forwarded_address(settings):
    settings.HTTPS, settings.TRUSTED_PROXY_COUNT = True, 0
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6")
    assert client_address(request) == "10.0.0.1"


# --- The change-password form counts as a sign-in --------------------------------------------

CHANGE = "/accounts/password_change/"
NEW = "N3w-pass-word-9"


def change_password(client, old: str, address: str = ATTACKER):
    data = {"old_password": old, "new_password1": NEW, "new_password2": NEW}
    return client.post(CHANGE, data, REMOTE_ADDR=address)


def test_guessing_the_current_password_locks_like_sign_in(client, owner):
    client.force_login(owner)
    statuses = [
        change_password(client, f"guess-{n}").status_code
        for n in range(settings.LOGIN_FAILURE_LIMIT)
    ]
    assert statuses == [200] * (settings.LOGIN_FAILURE_LIMIT - 1) + [429], statuses
    right = change_password(client, "alice-pass-1234")
    assert right.status_code == 429, "the right password was heard while locked"
    owner.refresh_from_db()
    assert owner.check_password("alice-pass-1234"), "the password changed during the lock"


def test_the_current_password_changes_it_when_not_locked(client, owner):
    client.force_login(owner)
    response = change_password(client, "alice-pass-1234")
    assert response.status_code == 302
    owner.refresh_from_db()
    assert owner.check_password(NEW)


# --- Password reset: throttled per account and per address, answering the same ---------------

RESET = "/accounts/password_reset/"
RESET_DONE = "/accounts/password_reset/done/"


def test_password_reset_sends_a_few_emails_per_account_and_answers_the_same(
    client, owner, settings, mailoutbox
):
    owner.email = "alice@example.org"
    owner.save(update_fields=["email"])
    answers = [
        client.post(RESET, {"email": "alice@example.org"}, REMOTE_ADDR=f"192.0.2.{n}")
        for n in range(6)
    ]
    assert len(mailoutbox) == settings.PASSWORD_RESETS_PER_ACCOUNT_HOUR
    assert {(r.status_code, r["Location"]) for r in answers} == {(302, RESET_DONE)}


def test_password_reset_is_throttled_per_address(client, owner, other_user, settings, mailoutbox):
    settings.PASSWORD_RESETS_PER_ADDRESS_HOUR = 2
    for user, email in ((owner, "alice@example.org"), (other_user, "mallory@example.org")):
        user.email = email
        user.save(update_fields=["email"])
    for email in ("alice@example.org", "mallory@example.org", "alice@example.org"):
        response = client.post(RESET, {"email": email}, REMOTE_ADDR=ATTACKER)
        assert (response.status_code, response["Location"]) == (302, RESET_DONE)
    assert len(mailoutbox) == 2, "one address sent past its limit"


def test_the_lockout_page_is_translated(client, staff):
    client.cookies["django_language"] = "zh-hans"
    fail_until_locked(client, DASHBOARD, "sam")
    try:
        page = sign_in(client, DASHBOARD, "sam", "sam-pass-1234").content.decode()
    finally:
        translation.deactivate()  # the middleware leaves the language active in this thread
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    assert f"请在 {minutes} 分钟后" in page, page


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_lockout_holds_when_served_over_asgi(async_client, staff):
    """Daphne runs the middleware chain asynchronously: django-axes takes another path there."""
    statuses = []
    try:
        for n in range(settings.LOGIN_FAILURE_LIMIT + 1):
            password = "sam-pass-1234" if n == settings.LOGIN_FAILURE_LIMIT else f"wrong-{n}"
            response = await async_client.post(
                DASHBOARD, {"username": "sam", "password": password}, REMOTE_ADDR=ATTACKER
            )
            statuses.append(response.status_code)
    finally:
        # The handler's worker thread holds a connection the test database's teardown waits on.
        await sync_to_async(connections.close_all)()
    assert statuses == [200, 200, 200, 200, 429, 429], statuses
    assert "Try again in" in response.content.decode()
