"""``manage.py fetch PATH [--json]``."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from fetching.models import FetchAttempt
from tests.feeds import feed_reply
from tests.httpserver import Reply

pytestmark = pytest.mark.django_db

FIELDS = {"path", "outcome", "transient", "http_status", "items_new", "items_seen", "latency_ms"}


def run(*args) -> tuple[dict | str, int]:
    out = StringIO()
    try:
        call_command("fetch", *args, stdout=out)
        code = 0
    except CommandError as exc:
        code = exc.returncode
    text = out.getvalue()
    return (json.loads(text) if "--json" in args else text), code


def test_it_prints_one_json_object_and_exits_0(rsshub_at_server):
    rsshub_at_server.route("/test/1", feed_reply(5))
    data, code = run("/test/1", "--json")
    assert code == 0
    assert data.keys() >= FIELDS
    assert (data["outcome"], data["transient"], data["http_status"]) == ("ok", False, 200)
    assert (data["items_new"], data["items_seen"], data["path"]) == (5, 0, "/test/1")
    assert isinstance(data["latency_ms"], int)


def test_not_modified_also_exits_0(rsshub_at_server):
    def conditional(request):
        if request.headers.get("if-none-match") == '"v1"':
            return Reply(304)
        return feed_reply(2, ETag='"v1"')

    rsshub_at_server.route("/test/cond", conditional)
    run("/test/cond")
    data, code = run("/test/cond", "--json", "--refresh")
    assert (data["outcome"], code) == ("not_modified", 0)


def test_within_the_window_it_answers_from_the_last_fetch(rsshub_at_server):
    rsshub_at_server.route("/test/again", feed_reply(2))
    run("/test/again")
    text, code = run("/test/again")
    assert code == 0 and "no request: from a fetch" in text, text
    assert len(rsshub_at_server.requests_to("/test/again")) == 1


def test_a_failure_exits_non_zero_with_its_class(rsshub_at_server):
    rsshub_at_server.route("/test/gone", Reply(404, {}, b"nope"))
    data, code = run("/test/gone", "--json")
    assert code == 1
    assert (data["outcome"], data["transient"], data["http_status"]) == ("not_found", False, 404)


def test_a_transient_failure_says_so(rsshub_at_server):
    rsshub_at_server.route("/test/busy", Reply(429, {"Retry-After": "30"}))
    data, code = run("/test/busy", "--json")
    assert (data["outcome"], data["transient"], data["retry_after"], code) == (
        "rate_limited", True, 30, 1,
    )  # fmt: skip


def test_a_refused_path_sends_nothing_and_exits_non_zero(rsshub_at_server):
    text, code = run("/test/../rsshub/routes")
    assert code == 1
    assert text.startswith("rejected ") and "dot_segment" in text
    assert rsshub_at_server.requests == []
    assert FetchAttempt.objects.filter(outcome="rejected").count() == 1


def test_the_plain_line_names_the_outcome(rsshub_at_server):
    rsshub_at_server.route("/test/1", feed_reply(3))
    text, code = run("/test/1")
    assert code == 0
    assert text.startswith("ok /test/1: HTTP 200") and "3 new" in text


@pytest.mark.rsshub
def test_it_fetches_from_a_real_rsshub(rsshub_settings):
    data, code = run("/test/1", "--json")
    assert (data["outcome"], data["items_new"] + data["items_seen"], code) == ("ok", 5, 0)
