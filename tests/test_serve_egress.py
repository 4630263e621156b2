"""``manage.py serve`` asks whether RSSHub reaches the internet before it starts the web server,
and says what it found (the full command starts processes; its check is tested alone)."""

import io

import pytest
from django.core.management.base import OutputWrapper

from fetching.egress import egress_outage
from rsshub_agent.management.commands.serve import Command
from tests.feeds import feed_reply
from tests.httpserver import ScriptedServer
from tests.rsshub_replies import CANARIES, dns_failure

pytestmark = pytest.mark.django_db


@pytest.fixture
def rsshub(settings):
    with ScriptedServer(default=dns_failure()) as server:
        settings.RSSHUB_URL = server.url
        settings.RSSHUB_URLS = []
        settings.RSSHUB_TIMEOUT = 2.0
        yield server


def checked() -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    command = Command(stdout=out, stderr=err)
    command.stdout, command.stderr = OutputWrapper(out), OutputWrapper(err)
    command._check_egress()
    return out.getvalue(), err.getvalue()


def test_serve_says_rsshub_cannot_reach_the_internet_before_anyone_asks(rsshub):
    out, err = checked()
    assert "reaches the internet" not in out
    assert "cannot reach the internet" in err and rsshub.url in err
    assert egress_outage() is not None, "the banner would not know"


def test_serve_says_rsshub_reaches_the_internet_when_a_canary_answers(rsshub):
    rsshub.route(CANARIES[1], feed_reply(2))
    out, err = checked()
    assert f"RSSHub at {rsshub.url} reaches the internet" in out and err == ""
    assert egress_outage() is None
