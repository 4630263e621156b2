"""Authentication: bearer tokens (hashed, expiring, revocable, named) and the session."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from briefs.models import ApiToken
from briefs.tokens.service import TOKEN_RE, token_digest, token_issue
from tests.api.conftest import ApiClient, error_of

pytestmark = pytest.mark.django_db

BRIEFS = "/api/v1/briefs"


def assert_401(response, fragment: str) -> None:
    assert response.status_code == 401, response.content
    assert response["WWW-Authenticate"].startswith("Bearer"), "401 without WWW-Authenticate"
    message = error_of(response)["message"]
    assert fragment.lower() in message.lower(), f"{fragment!r} not in {message!r}"


def test_it_requires_credentials(anon):
    assert_401(anon.get(BRIEFS), "credentials were not provided")


def test_it_accepts_a_valid_token(api, owner):
    response = api.get(BRIEFS)
    assert response.status_code == 200, response.content


def test_it_refuses_a_malformed_token(anon):
    assert_401(ApiClient("not-a-token").get(BRIEFS), "malformed token")


def test_it_refuses_an_unknown_token(owner):
    issued = token_issue(user=owner, name="real")
    forged = issued.secret[:-1] + ("A" if issued.secret[-1] != "A" else "B")
    assert_401(ApiClient(forged).get(BRIEFS), "invalid token")


def test_it_refuses_an_expired_token(owner):
    issued = token_issue(user=owner, name="short")
    ApiToken.objects.filter(pk=issued.token.pk).update(expires_at=timezone.now())
    assert_401(ApiClient(issued.secret).get(BRIEFS), "expired")


def test_it_refuses_a_revoked_token(owner):
    issued = token_issue(user=owner, name="gone")
    ApiToken.objects.filter(pk=issued.token.pk).update(revoked_at=timezone.now())
    assert_401(ApiClient(issued.secret).get(BRIEFS), "revoked")


def test_it_refuses_the_token_of_an_inactive_user(owner, api):
    owner.is_active = False
    owner.save()
    assert_401(api.get(BRIEFS), "inactive")


def test_it_refuses_another_scheme(anon):
    response = anon.get(BRIEFS, headers={"Authorization": "Basic YWxpY2U6cHc="})
    assert_401(response, "use 'Bearer <token>'")


def test_it_refuses_a_bearer_header_without_token(anon):
    assert_401(anon.get(BRIEFS, headers={"Authorization": "Bearer"}), "no token")


def test_it_refuses_a_token_with_spaces(anon):
    assert_401(anon.get(BRIEFS, headers={"Authorization": "Bearer rsa_a rsa_b"}), "spaces")


def test_it_refuses_non_ascii_bytes_in_the_header(anon):
    # WSGI hands header bytes over as latin-1 text: a token with é is malformed, not a 500.
    response = anon.get(BRIEFS, headers={"Authorization": "Bearer rsa_caf\u00e9"})
    assert_401(response, "malformed")


def test_it_stores_only_a_digest_of_the_token(owner):
    issued = token_issue(user=owner, name="hashed")
    row = ApiToken.objects.values().get(pk=issued.token.pk)
    assert TOKEN_RE.match(issued.secret), issued.secret
    assert row["digest"] == token_digest(issued.secret)
    stored = " ".join(str(v) for v in row.values())
    assert issued.secret not in stored, "the secret itself reached the database"
    assert issued.secret[PREFIX_LEN:] not in stored, "more than the display prefix was stored"


PREFIX_LEN = 12


def test_it_gives_tokens_the_configured_lifetime(owner, settings):
    settings.API_TOKEN_TTL_DAYS = 3
    issued = token_issue(user=owner, name="ttl")
    lifetime = issued.token.expires_at - issued.token.created_at
    assert lifetime == timedelta(days=3)


def test_it_records_when_a_token_was_last_used(owner):
    issued = token_issue(user=owner, name="used")
    assert issued.token.last_used_at is None
    ApiClient(issued.secret).get(BRIEFS)
    issued.token.refresh_from_db()
    assert issued.token.last_used_at is not None


def test_it_lets_a_user_hold_several_named_tokens(owner, api):
    token_issue(user=owner, name="chat bot")
    token_issue(user=owner, name="cron job")
    body = api.get("/api/v1/tokens").json()
    names = sorted(t["name"] for t in body["results"])
    assert names == ["chat bot", "cron job", "test"]
    assert all("secret" not in t and "digest" not in t for t in body["results"])
    assert [t["current"] for t in body["results"] if t["name"] == "test"] == [True]


def test_it_revokes_a_token_through_the_api(owner, api):
    other = token_issue(user=owner, name="to revoke")
    response = api.delete(f"/api/v1/tokens/{other.token.pk}")
    assert response.status_code == 204, response.content
    assert_401(ApiClient(other.secret).get(BRIEFS), "revoked")
    names = [t["name"] for t in api.get("/api/v1/tokens").json()["results"]]
    assert names == ["test"], "a revoked token is still listed"


def test_it_does_not_revoke_another_users_token(other_user, api):
    theirs = token_issue(user=other_user, name="theirs")
    response = api.delete(f"/api/v1/tokens/{theirs.token.pk}")
    assert response.status_code == 404, response.content
    assert ApiClient(theirs.secret).get(BRIEFS).status_code == 200


# --- Session authentication -----------------------------------------------------------------


def test_it_accepts_the_dashboard_session(client, owner):
    client.force_login(owner)
    assert client.get(BRIEFS).status_code == 200


def test_it_requires_the_csrf_token_on_session_writes(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    response = client.post(BRIEFS, {"question": "news"}, content_type="application/json")
    assert response.status_code == 403, response.content
    assert "CSRF" in error_of(response)["message"]


def test_it_accepts_session_writes_with_the_csrf_token(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    token = "c" * 32  # a CSRF secret in the cookie and the same in the header
    client.cookies["csrftoken"] = token
    response = client.post(
        BRIEFS,
        {"question": "news"},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 202, response.content


# --- issue_token ----------------------------------------------------------------------------


def test_issue_token_prints_only_a_working_token(owner):
    out = StringIO()
    call_command("issue_token", "alice", "--name", "newsroom", stdout=out)
    secret = out.getvalue().strip()
    assert out.getvalue() == secret + "\n", "more than the token was printed"
    assert TOKEN_RE.match(secret), secret
    assert ApiClient(secret).get(BRIEFS).status_code == 200
    assert ApiToken.objects.get(user=owner).name == "newsroom"


def test_issue_token_refuses_an_unknown_user(db):
    with pytest.raises(CommandError, match="No user named"):
        call_command("issue_token", "nobody", stdout=StringIO())


def test_issue_token_refuses_a_bad_lifetime(owner):
    with pytest.raises(CommandError, match="--days"):
        call_command("issue_token", "alice", "--days", "0", stdout=StringIO())
