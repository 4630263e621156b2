"""The first command's last step, `manage.py serve`: sets up, serves, and stops everything."""

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command

from rsshub_agent.management.commands.ensure_staff import Command as EnsureStaff
from tests.ports import free_port

ROOT = Path(__file__).resolve().parent.parent


def read_until(stream, marker: str, lines: list[str], limit: int = 400) -> bool:
    for _ in range(limit):
        line = stream.readline()
        if not line:
            return False
        lines.append(line)
        if marker in line:
            return True
    return False


def supervising(pid: int, seconds: float = 10) -> bool:
    """Whether ``pid`` runs rsshub_agent/supervisor.py (the exec follows the ready line)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if b"supervisor.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return True
        time.sleep(0.05)
    return False


def test_serve_sets_up_serves_and_stops_with_an_unreachable_rsshub(tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": "",
        "DATA_DIR": str(tmp_path),
        "SECRET_KEY": "serve-test",
        "RSSHUB_URL": "http://127.0.0.1:9",  # nothing listens: the seed is imported instead
        "ADMIN_USERNAME": "",
        "ADMIN_PASSWORD": "",
    }
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--no-worker"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,  # not a terminal: the first account gets a random username
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    try:
        ready = read_until(serve.stdout, "Press Ctrl-C", lines)
        output = "".join(lines)
        assert ready, f"serve never became ready:\n{output[-2000:]}"
        assert "using the seed" in output
        assert "3905 routes added" in output
        assert re.search(r"created staff account 'staff-[0-9a-f]{8}' with password", output)
        assert read_until(serve.stdout, "Listening on TCP address", lines), "daphne did not listen"
        assert supervising(serve.pid), "serve did not hand over to the Django-free supervisor"
        response = httpx.get(f"http://127.0.0.1:{port}/admin/login/", timeout=10)
        assert response.status_code == 200
        assert f"MCP: http://127.0.0.1:{port}/mcp/" in output
        mcp = httpx.post(f"http://127.0.0.1:{port}/mcp/", json={}, timeout=10)
        assert mcp.status_code == 401, "the MCP server answers next to Django, token first"
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=30)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/admin/login/", timeout=5)


@pytest.mark.django_db
def test_ensure_staff_prints_a_password_once_then_never_again(capsys):
    command = EnsureStaff()
    command.handle()
    first = capsys.readouterr().out
    command.handle()
    second = capsys.readouterr().out
    assert "with password" in first
    assert "exists already" in second
    assert "with password" not in second, "the password must be shown only once"


@pytest.mark.django_db
def test_ensure_staff_takes_credentials_from_the_environment(monkeypatch, django_user_model):
    monkeypatch.setenv("ADMIN_USERNAME", "boss")
    monkeypatch.setenv("ADMIN_PASSWORD", "a-long-given-password")
    EnsureStaff().handle()
    user = django_user_model.objects.get(username="boss")
    assert user.is_staff and user.check_password("a-long-given-password")


@pytest.mark.django_db
def test_ensure_staff_without_a_terminal_picks_a_random_username(django_user_model):
    out = io.StringIO()
    call_command("ensure_staff", "--noinput", stdout=out)
    [user] = django_user_model.objects.all()
    assert re.fullmatch(r"staff-[0-9a-f]{8}", user.username), user.username
    assert user.is_superuser and user.is_staff
    password = re.search(r"with password (\S+)", out.getvalue()).group(1)
    assert user.check_password(password), "the printed password is the account's"


@pytest.mark.django_db
def test_ensure_staff_at_a_terminal_asks_for_the_username(django_user_model):
    django_user_model.objects.create_user("taken", password="x-long-password-1")
    answers = io.StringIO("\nbad name!\ntaken\nchief\n")
    out, err = io.StringIO(), io.StringIO()
    call_command("ensure_staff", stdin=answers, stdout=out, stderr=err)
    chief = django_user_model.objects.get(username="chief")
    assert chief.is_superuser, "the answered name becomes the staff account"
    problems = err.getvalue()
    assert "a username is required" in problems
    assert "valid username" in problems, problems
    assert "'taken' is taken" in problems
    assert out.getvalue().count("with password") == 1


@pytest.mark.django_db
def test_ensure_staff_falls_back_to_a_random_username_when_input_ends(django_user_model):
    call_command("ensure_staff", stdin=io.StringIO(""), stdout=io.StringIO())
    [user] = django_user_model.objects.all()
    assert user.username.startswith("staff-")


@pytest.mark.django_db
def test_ensure_staff_never_logs_the_password(caplog):
    out = io.StringIO()
    with caplog.at_level("DEBUG"):
        call_command("ensure_staff", "--noinput", stdout=out)
    password = re.search(r"with password (\S+)", out.getvalue()).group(1)
    assert password not in caplog.text, "the password went through logging"
