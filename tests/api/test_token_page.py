"""The dashboard's token page: a token is shown once, when created; tokens can be revoked."""

import re

import pytest

from briefs.models import ApiToken
from briefs.tokens.service import token_issue
from tests.api.conftest import ApiClient

pytestmark = pytest.mark.django_db

SECRET_RE = re.compile(r"rsa_[A-Za-z0-9_-]{43}")


def test_it_requires_login(client):
    response = client.get("/tokens/")
    assert response.status_code == 302
    assert "next=/tokens/" in response["Location"], response["Location"]


def test_it_lists_the_users_tokens_without_secrets(client, owner, other_user):
    mine = token_issue(user=owner, name="chat bot")
    theirs = token_issue(user=other_user, name="their cron")
    client.force_login(owner)
    page = client.get("/tokens/").content.decode()
    assert "chat bot" in page and mine.token.prefix in page
    assert "their cron" not in page, "another user's token is listed"
    assert not SECRET_RE.search(page), "a secret appears on a plain visit"
    assert theirs.secret not in page


def test_it_shows_a_new_token_once(client, owner):
    client.force_login(owner)
    response = client.post("/tokens/", {"name": "newsroom", "lifetime_days": "30"})
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    secret = SECRET_RE.search(response.content.decode()).group(0)
    assert ApiClient(secret).get("/api/v1/briefs").status_code == 200
    token = ApiToken.objects.get(user=owner)
    assert (token.expires_at - token.created_at).days == 30
    again = client.get("/tokens/").content.decode()
    assert secret not in again, "the secret is shown a second time"


def test_it_refuses_a_blank_name(client, owner):
    client.force_login(owner)
    response = client.post("/tokens/", {"name": "   ", "lifetime_days": "30"})
    assert response.status_code == 400
    assert not ApiToken.objects.exists()


def test_it_revokes_a_token(client, owner):
    issued = token_issue(user=owner, name="old")
    client.force_login(owner)
    response = client.post(f"/tokens/{issued.token.pk}/revoke")
    assert response.status_code == 302
    assert ApiClient(issued.secret).get("/api/v1/briefs").status_code == 401


def test_it_does_not_revoke_another_users_token(client, owner, other_user):
    theirs = token_issue(user=other_user, name="theirs")
    client.force_login(owner)
    assert client.post(f"/tokens/{theirs.token.pk}/revoke").status_code == 404
    assert ApiClient(theirs.secret).get("/api/v1/briefs").status_code == 200


def test_the_new_token_has_a_copy_button_and_no_inline_script(client, owner):
    client.force_login(owner)
    body = client.post("/tokens/", {"name": "copy me", "lifetime_days": "7"}).content.decode()
    secret = SECRET_RE.search(body).group(0)
    assert 'data-copy="token-secret-json"' in body
    assert f'<script id="token-secret-json" type="application/json">"{secret}"</script>' in body
    scripts = re.findall(r"<script(?![^>]*(?:src=|application/json))[^>]*>", body)
    assert not scripts, f"an inline script the policy would block: {scripts}"
