"""Classification of RSSHub's answers into the error taxonomy (no network here; the real pages
are exercised in test_rsshub.py)."""

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from fetching.models import TRANSIENT_OUTCOMES, Outcome
from fetching.outcomes import (
    message_clean,
    outcome_is_success,
    outcome_is_transient,
    retry_after_parse,
    rsshub_error_message,
    verdict_for_status,
)


def error_page(message: str) -> bytes:
    """RSSHub's HTML error page, trimmed to the markup around the message (as served by
    1.0.0-master.f99e982)."""
    return (
        '<html><head><title>Welcome to RSSHub!</title></head><body><div class="space-y-2">'
        '<p class="mb-2 font-bold">Helpful Information</p><p class="message">Error Message:<br/>'
        '<code class="mt-2 block max-h-28 overflow-auto whitespace-pre-line">'
        f"{message}</code></p>"
        '<p class="message">Route: <code class="ml-2">/test/:id/:params?</code></p>'
        "</div></body></html>"
    ).encode()


def json_error(message: str) -> bytes:
    return json.dumps({"error": {"message": message}}).encode()


HTML = "text/html; charset=UTF-8"
JSON = "application/feed+json; charset=UTF-8"


@pytest.mark.parametrize(
    ("message", "outcome"),
    [
        ("ConfigNotFoundError: Test config not found error", Outcome.NEEDS_CONFIG),
        ("Error: Could not find Chrome (ver. 131.0.6778.204)", Outcome.NEEDS_BROWSER),
        (
            "Error: browserType.launch: Executable doesn&#39;t exist at /root/.cache/ms-playwright"
            "/chromium_headless_shell-1243/chrome-headless-shell\n╔════╗\n║ Looks like ║",
            Outcome.NEEDS_BROWSER,
        ),
        (
            "Error: this route is empty, please check the original site or &lt;a href=&quot;"
            "https://github.com/DIYgod/RSSHub/issues/new/choose&quot;&gt;create an issue&lt;/a&gt;",
            Outcome.EMPTY,
        ),
        ("CaptchaError: Test captcha error", Outcome.AUTH_REQUIRED),
        ("InvalidParameterError: Test invalid parameter error", Outcome.NOT_FOUND),
        (
            "FetchError: [GET] &quot;https://www.36kr.com/newsflashes&quot;: &lt;no response&gt; "
            "fetch failed (getaddrinfo ENOTFOUND www.36kr.com)",
            Outcome.UPSTREAM_ERROR,
        ),
        ("HTTPError: Response code 429 (Too Many Requests)", Outcome.RATE_LIMITED),
        ("HTTPError: Response code 404 (Not Found)", Outcome.NOT_FOUND),
        ("HTTPError: Response code 403 (Forbidden)", Outcome.AUTH_REQUIRED),
        ("Error: Error test", Outcome.UPSTREAM_ERROR),
        ("RequestInProgressError: This path is currently fetching", Outcome.UPSTREAM_ERROR),
    ],
)
def test_it_reads_the_503_error_page(message, outcome):
    verdict = verdict_for_status(503, error_page(message), content_type=HTML)
    assert verdict.outcome == outcome
    assert verdict.http_status == 503
    # The page's own markup is gone (what the message itself quotes stays, as text).
    assert "<code" not in verdict.message and "\n" not in verdict.message


@pytest.mark.parametrize(
    "message",
    [
        "FetchError: [GET] &quot;https://www.36kr.com/newsflashes&quot;: &lt;no response&gt; "
        "fetch failed (getaddrinfo ENOTFOUND www.36kr.com)",
        "RequestError: getaddrinfo EAI_AGAIN api.github.com",
        "FetchError: [GET] &quot;https://a.example/&quot;: fetch failed (connect ECONNREFUSED "
        "203.0.113.7:443)",
        "RequestError: read ECONNRESET",
        "FetchError: fetch failed (Connect Timeout Error (attempted address: a.example:443))",
        "RequestError: Client network socket disconnected before secure TLS connection was "
        "established",
        "TimeoutError: connect ETIMEDOUT 203.0.113.7:443",
        "Error: net::ERR_NAME_NOT_RESOLVED at https://a.example/",
    ],
)
def test_it_marks_a_source_that_gave_no_answer_as_a_network_failure(message):
    verdict = verdict_for_status(503, error_page(message), content_type=HTML)
    assert (verdict.outcome, verdict.network) == (Outcome.UPSTREAM_ERROR, True)
    assert verdict.counts_for_route, "only the egress guard may excuse it, after its check"


@pytest.mark.parametrize(
    "message",
    [
        "HTTPError: Response code 502 (Bad Gateway)",
        "Error: Error test",
        "FetchError: [GET] &quot;https://a.example/&quot;: 500 Internal Server Error",
        "Error: the page says ENOTFOUNDATION is hiring",  # a word, not the error code
    ],
)
def test_a_source_that_answered_is_no_network_failure(message):
    verdict = verdict_for_status(503, error_page(message), content_type=HTML)
    assert verdict.network is False, message


def test_a_network_failure_needing_config_is_needs_config():
    body = json_error("ConfigNotFoundError: token missing; getaddrinfo ENOTFOUND a.example")
    verdict = verdict_for_status(503, body, content_type=JSON)
    assert (verdict.outcome, verdict.network) == (Outcome.NEEDS_CONFIG, False)


def test_it_reads_the_json_error_object():
    body = json_error("Test config not found error")
    assert verdict_for_status(503, body, content_type=JSON).outcome == Outcome.NEEDS_CONFIG
    body = json_error("this route is empty, please check the original site")
    assert verdict_for_status(503, body, content_type=JSON).outcome == Outcome.EMPTY


def test_the_message_is_plain_text():
    body = error_page("FetchError: [GET] &quot;https://a.example/&quot;: fetch failed")
    assert (
        rsshub_error_message(body, HTML) == 'FetchError: [GET] "https://a.example/": fetch failed'
    )


def test_the_message_drops_playwrights_banner():
    body = error_page("Error: browserType.launch: x\n╔═══╗\n║ Please run ║\n╚═══╝")
    assert rsshub_error_message(body, HTML) == "Error: browserType.launch: x Please run"


def test_a_foreign_error_page_gives_its_title():
    body = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
    verdict = verdict_for_status(502, body, content_type=HTML)
    assert (verdict.outcome, verdict.message) == (Outcome.UPSTREAM_ERROR, "502 Bad Gateway")


def test_a_404_counts_against_a_route_only_when_rsshub_matched_none():
    page = error_page("NotFoundError: The route does not exist or has been deleted.")
    unmatched = verdict_for_status(404, page, content_type=HTML)
    matched = verdict_for_status(404, page, content_type=HTML, route_matched=True)
    assert unmatched.outcome == matched.outcome == Outcome.NOT_FOUND
    assert unmatched.counts_for_route and not matched.counts_for_route


def test_a_refused_access_key_is_not_the_routes_fault():
    page = error_page("RejectError: Authentication failed. Access denied.\n/test/1")
    verdict = verdict_for_status(403, page, content_type=HTML)
    assert verdict.outcome == Outcome.AUTH_REQUIRED
    assert not verdict.counts_for_route
    assert "RSSHUB_ACCESS_KEY" in verdict.message


def test_401_is_auth_required():
    assert verdict_for_status(401).outcome == Outcome.AUTH_REQUIRED


def test_429_keeps_retry_after_seconds():
    verdict = verdict_for_status(429, retry_after="120")
    assert (verdict.outcome, verdict.retry_after, verdict.transient) == (
        Outcome.RATE_LIMITED, 120, True,
    )  # fmt: skip


def test_retry_after_reads_an_http_date():
    now = datetime(2026, 11, 29, 12, tzinfo=UTC)
    assert (
        retry_after_parse(format_datetime(now + timedelta(seconds=90), usegmt=True), now=now) == 90
    )
    assert retry_after_parse(format_datetime(now - timedelta(hours=1), usegmt=True), now=now) == 0
    assert retry_after_parse("soon", now=now) is None
    assert retry_after_parse("99999999") == 24 * 3600


def test_a_503_keeps_retry_after_too():
    verdict = verdict_for_status(503, error_page("Error: x"), content_type=HTML, retry_after="30")
    assert verdict.retry_after == 30


@pytest.mark.parametrize("status", [400, 405, 410, 414])
def test_other_client_errors_are_semantic(status):
    verdict = verdict_for_status(status)
    assert verdict.outcome == Outcome.NOT_FOUND and not verdict.transient


def test_every_class_is_marked_transient_or_semantic():
    for outcome in Outcome:
        assert outcome_is_transient(outcome) == (outcome in TRANSIENT_OUTCOMES)
    assert {o for o in Outcome if outcome_is_transient(o)} == {
        Outcome.RATE_LIMITED, Outcome.TIMEOUT, Outcome.UPSTREAM_ERROR,
        Outcome.RSSHUB_UNAVAILABLE, Outcome.PARSE_TIMEOUT,
    }  # fmt: skip


def test_empty_counts_as_a_working_route():
    assert outcome_is_success(Outcome.EMPTY)
    assert outcome_is_success(Outcome.NOT_MODIFIED)
    assert not outcome_is_success(Outcome.NEEDS_BROWSER)


def test_messages_are_capped():
    assert len(message_clean("x" * 5000)) == 500
    assert message_clean("a\x00b\r\nc") == "a b c"
