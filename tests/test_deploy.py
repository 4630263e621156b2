"""Ready for the open internet: `check --deploy` is clean under the TLS settings the README
describes, HTTPS=true behind a proxy gives secure cookies, HSTS and the redirect, and every
response carries the security headers.

The HTTPS cases run in a fresh interpreter: settings are read from the environment once, at
start-up, which is the part under test.
"""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tls_environment(tmp_path: Path, **extra: str) -> dict:
    """The production settings of the README's TLS deployment (SQLite under tmp_path)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HSTS_", "OPENAI_", "REDIS_", "RSSHUB_", "ADMIN_"))
        and k not in ("DATABASE_URL", "HTTPS", "TRUSTED_PROXY_COUNT")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="rsshub_agent.settings",
        SECRET_KEY=secrets.token_urlsafe(50),
        DEBUG="0",
        HTTPS="true",
        ALLOWED_HOSTS="agent.example.org",
        CSRF_TRUSTED_ORIGINS="https://agent.example.org",
        DATA_DIR=str(tmp_path),
        DATABASE_URL="",
    )
    return {**env, **extra}


def manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_check_deploy_passes_under_the_tls_settings(tmp_path):
    result = manage(tls_environment(tmp_path), "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_warns_without_https(tmp_path):
    env = tls_environment(tmp_path, HTTPS="false")
    result = manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0, "plain http must not pass the deploy check"
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr, f"{warning} missing:\n{result.stderr}"


def test_hsts_opt_ins_are_separate(tmp_path):
    env = tls_environment(tmp_path, HSTS_INCLUDE_SUBDOMAINS="true")
    result = manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    preload_alone = tls_environment(tmp_path, HSTS_PRELOAD="true")
    refused = manage(preload_alone, "check")
    assert refused.returncode != 0
    assert "HSTS_PRELOAD needs HSTS_INCLUDE_SUBDOMAINS=true" in refused.stderr


# In the fresh interpreter: a user, a sign-in through the proxy (X-Forwarded-Proto: https), and
# a plain request; what the responses said, as JSON.
SIGN_IN_BEHIND_PROXY = """
import json
import django
django.setup()
from django.core.management import call_command
from django.contrib.auth import get_user_model
from django.test import Client

call_command("migrate", verbosity=0)
get_user_model().objects.create_user("alice", password="alice-pass-1234")
client = Client(HTTP_HOST="agent.example.org", HTTP_X_FORWARDED_PROTO="https")
page = client.get("/accounts/login/")
signed = client.post("/accounts/login/", {
    "username": "alice", "password": "alice-pass-1234",
    "csrfmiddlewaretoken": page.cookies["csrftoken"].value,
})
plain = Client(HTTP_HOST="agent.example.org").get("/accounts/login/")
cookies = {**page.cookies, **signed.cookies}
print(json.dumps({
    "signed_in": signed.status_code,
    "hsts": page.headers.get("Strict-Transport-Security"),
    "cookies": {name: {"secure": bool(c["secure"]), "httponly": bool(c["httponly"])}
                for name, c in cookies.items()},
    "plain": [plain.status_code, plain.headers.get("Location")],
}))
"""


@pytest.fixture(scope="module")
def behind_proxy(tmp_path_factory) -> dict:
    tmp_path = tmp_path_factory.mktemp("tls")
    done = subprocess.run(
        [sys.executable, "-c", SIGN_IN_BEHIND_PROXY],
        cwd=ROOT,
        env={**tls_environment(tmp_path), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_https_cookies_are_secure_and_http_only(behind_proxy):
    assert behind_proxy["signed_in"] == 302, "the sign-in through the proxy worked"
    cookies = behind_proxy["cookies"]
    for name in ("sessionid", "csrftoken"):
        assert cookies[name] == {"secure": True, "httponly": True}, f"{name}: {cookies[name]}"


def test_https_sends_hsts_with_the_documented_max_age(behind_proxy):
    assert behind_proxy["hsts"] == "max-age=31536000"


def test_plain_http_is_redirected_to_https(behind_proxy):
    assert behind_proxy["plain"] == [301, "https://agent.example.org/accounts/login/"]


@pytest.mark.django_db
def test_every_response_carries_the_security_headers(client):
    response = client.get("/accounts/login/")
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert "camera=()" in response["Permissions-Policy"]
    assert "Strict-Transport-Security" not in response, "no HSTS over plain http"


@pytest.mark.django_db
def test_the_api_docs_page_has_no_inline_script_or_style(client, owner):
    client.force_login(owner)
    page = client.get("/api/docs/").content.decode()
    assert "<script>" not in page and "<style>" not in page, page
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle(" in script.content.decode()
