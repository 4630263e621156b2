"""``manage.py ask``: one brief in the terminal, its steps as they happen, then the brief; or one
JSON object with ``--json``. The exit status is non-zero when the run did not succeed."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connections

from briefs.models import Brief
from briefs.services import brief_cancel
from fetching.egress import egress_startup_check
from tests.agent.conftest import NOT_FOUND, feed
from tests.databases import database_url
from tests.rsshub_replies import dns_failure

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Alpha Wire flash news"
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world", "offline")]


@pytest.fixture
def flash(stub_rsshub):
    stub_rsshub.route("/alpha/flash", feed("Chip prices fall", "Port strike ends"))
    return stub_rsshub


def cancel_then_not_found(request):
    try:
        brief = Brief.objects.get(question=QUESTION)
        brief_cancel(owner=brief.owner, brief_id=brief.pk)
    finally:
        connections.close_all()
    return NOT_FOUND


def test_json_holds_the_brief_its_citations_coverage_usage_and_steps(flash, capsys):
    call_command("ask", QUESTION, "--json", "--offline")

    result = json.loads(capsys.readouterr().out)
    assert (result["status"], result["mode"], result["fallbacks"]) == ("succeeded", "offline", [])
    assert (result["outcome"], result["reason"], result["needs"]) == ("answered", None, [])
    assert "- **Chip prices fall** · Alpha Wire · " in result["body"]
    citation = result["citations"][0]
    assert {k: citation[k] for k in ("n", "title", "path")} == {
        "n": 1,
        "title": "Chip prices fall",
        "path": "/alpha/flash",
    }
    assert citation["link"].startswith("https://example.com/")
    assert citation["published_at"].endswith("+00:00")
    assert result["coverage"]["succeeded"][0]["items"] == 2
    assert result["usage"]["steps"] == 3
    kinds = [step["kind"] for step in result["steps"]]
    assert kinds[:2] == ["run_started", "query_rewritten"]
    assert kinds[-1] == "brief_ready"
    assert [step["seq"] for step in result["steps"]] == list(range(1, len(kinds) + 1))


def test_it_prints_each_step_then_the_brief(flash, capsys):
    call_command("ask", QUESTION, "--offline")

    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "run started (mode offline, budget 8)"
    assert lines[1].startswith("query: 'Alpha Wire flash news'")
    assert "step 1 of 8: platform" in lines
    assert any(
        re.fullmatch(r"  chose alpha \(offline\): highest search score \(\d+\.\d\d\)", line)
        for line in lines
    ), "the platform step says what it chose and its score"
    assert any(line.startswith("  /alpha/flash: 2 items (") for line in lines)
    assert "  router -> summarize: 1 path returned items" in lines
    assert out.index("router -> summarize") < out.index("## Coverage")
    assert "brief ready: answered, 2 citations" in lines
    assert "- **Chip prices fall** · Alpha Wire · " in out


def test_json_says_when_nothing_was_found(stub_rsshub, capsys, settings):
    settings.AGENT_ROUTER_BUDGET = 30  # every path: 404

    call_command("ask", QUESTION, "--json", "--offline")

    result = json.loads(capsys.readouterr().out)
    assert (result["status"], result["outcome"], result["reason"]) == (
        "succeeded",
        "no_data",
        "unreachable",
    )
    assert result["steps"][-1]["outcome"] == "no_data"


def test_it_runs_as_the_cli_user_which_cannot_log_in(flash, capsys):
    call_command("ask", QUESTION, "--json")

    cli = get_user_model().objects.get(username="cli")
    assert not cli.has_usable_password()
    assert Brief.objects.get().owner == cli


def test_a_cancelled_run_fails_the_command_and_still_prints_its_json(stub_rsshub, capsys):
    stub_rsshub.route("/alpha/flash", cancel_then_not_found)

    with pytest.raises(CommandError, match="cancelled"):
        call_command("ask", QUESTION, "--json", "--offline")

    result = json.loads(capsys.readouterr().out)
    assert (result["status"], result["outcome"]) == ("cancelled", None)


def test_an_invalid_question_fails_before_any_run():
    with pytest.raises(CommandError, match="question: The question is empty"):
        call_command("ask", "   ", "--offline")

    assert not Brief.objects.exists()


def test_an_unknown_user_fails_before_any_run():
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        call_command("ask", QUESTION, "--user", "nobody")

    assert not Brief.objects.exists()


def test_the_process_exits_non_zero_when_the_run_did_not_succeed(stub_rsshub):
    stub_rsshub.route("/alpha/flash", cancel_then_not_found)
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),  # this test commits to it
        "RSSHUB_URL": stub_rsshub.url,
        "OPENAI_API_KEY": "",
        "SECRET_KEY": "x",
    }

    done = subprocess.run(
        [sys.executable, "manage.py", "ask", QUESTION, "--json", "--offline"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["status"] == "cancelled"
    assert "the run ended cancelled" in done.stderr


def test_it_says_rsshub_has_no_internet_before_the_run(stub_rsshub, capsys):
    stub_rsshub.route_default(dns_failure())  # every route, the canaries too
    egress_startup_check()  # as manage.py serve and each starting worker do
    call_command("ask", QUESTION, "--json")
    out, err = capsys.readouterr()
    assert err.startswith("RSSHub cannot reach the internet (since "), err
    assert "no source is blamed" in err
    result = json.loads(out)  # stdout is the JSON object alone
    assert (result["outcome"], result["reason"]) == ("no_data", "unreachable")


def test_it_says_nothing_of_the_internet_while_rsshub_reaches_it(flash, capsys):
    call_command("ask", QUESTION, "--json")
    assert "internet" not in capsys.readouterr().err
