"""The one RSSHub probe, and the dashboard banner's memory of it."""

import pytest

from fetching.reachability import rsshub_answers
from fetching.services import fetch_paths_sync
from tests.httpserver import Reply, ScriptedServer

pytestmark = pytest.mark.django_db


def test_the_banner_stops_saying_rsshub_answers_once_a_fetch_finds_it_down(settings):
    with ScriptedServer() as rsshub:
        rsshub.route("/healthz", Reply(200, {"Content-Type": "text/plain"}, b"ok"))
        settings.RSSHUB_URL = rsshub.url
        assert rsshub_answers() is True
        assert rsshub_answers() is True
        assert len(rsshub.requests_to("/healthz")) == 1, "the answer is cached"
    # RSSHub is gone now (its port is closed): the next fetch finds it unreachable.
    [result] = fetch_paths_sync(["/test/1"])
    assert result.outcome == "rsshub_unavailable", result
    assert rsshub_answers() is False


def test_a_failed_probe_is_remembered_for_less_time_than_a_success():
    from fetching.status import RSSHUB_DOWN_SECONDS, RSSHUB_UP_SECONDS

    assert RSSHUB_DOWN_SECONDS < RSSHUB_UP_SECONDS
