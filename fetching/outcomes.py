"""The error taxonomy (DESIGN.md 2.3): from an HTTP status and RSSHub's error body to one class.

RSSHub answers most route errors with a 503, so the status alone says little. Its error page
(HTML by default, ``{"error": {"message": ...}}`` with ``?format=json``) carries the error name
and message, e.g. ``ConfigNotFoundError: ...``, ``FetchError: ... ENOTFOUND www.36kr.com``,
``browserType.launch: Executable doesn't exist`` or ``this route is empty``; the patterns below
read it. The first pattern that matches wins, so the specific ones come first.

| status | body says | class | counts against the route |
|---|---|---|---|
| 304 | | not_modified | success |
| 404 | | not_found | only when RSSHub matched no route (no ``x-rsshub-route``) |
| 401, 403 | | auth_required | not when RSSHub refused *our* access key |
| 429 | | rate_limited (``Retry-After`` kept) | yes |
| other 4xx | | not_found | yes |
| 5xx | ConfigNotFoundError / config not found | needs_config | yes |
| 5xx | Chrome, Puppeteer, Playwright, browserType.launch | needs_browser | yes |
| 5xx | this route is empty | empty | success (the route ran; the source had nothing) |
| 5xx | CaptchaError / captcha | auth_required | yes |
| 5xx | InvalidParameterError | not_found | no (the parameters were wrong) |
| 5xx | Response code 429 / Too Many Requests | rate_limited | yes |
| 5xx | Response code 404 / 410 (from the source) | not_found | yes |
| 5xx | Response code 401 / 403 (from the source) | auth_required | yes |
| 5xx | ENOTFOUND, EAI_AGAIN, ECONNREFUSED/RESET, timeouts | upstream_error, network | see below |
| 5xx | anything else (fetch failed, a source's 5xx) | upstream_error | yes |

A ``network`` failure says RSSHub got no answer at all from the source. Either the source is gone
or RSSHub itself cannot reach the internet (its DNS or outbound network is down), in which case
every route fails the same way and none of them is to blame. ``fetching.egress`` tells the two
apart with one canary check per instance and minute. The verdict here only marks the suspicion.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from fetching.models import SUCCESS_OUTCOMES, TRANSIENT_OUTCOMES, Outcome
from fetching.plaintext import text_cut

MESSAGE_LIMIT = 500  # FetchAttempt.message
ACCESS_KEY_REASON = "access_key"  # Verdict.reason: the instance refused our access key
RETRY_AFTER_CAP = 24 * 3600
ERROR_BODY_LIMIT = 64 * 1024  # enough for RSSHub's ~6 KB error page

_BODY_PATTERNS: list[tuple[re.Pattern[str], Outcome, bool]] = [
    (re.compile(r"ConfigNotFoundError|config(?:uration)? not found", re.I), Outcome.NEEDS_CONFIG,
     True),
    (
        re.compile(
            r"Could not find (?:Chrome|Chromium)|browserType\.launch|Failed to launch the browser"
            r"|chrome-headless-shell|puppeteer|playwright|Executable doesn't exist",
            re.I,
        ),
        Outcome.NEEDS_BROWSER,
        True,
    ),
    (re.compile(r"this route is empty", re.I), Outcome.EMPTY, True),
    (re.compile(r"CaptchaError|captcha", re.I), Outcome.AUTH_REQUIRED, True),
    (re.compile(r"InvalidParameterError", re.I), Outcome.NOT_FOUND, False),
    (re.compile(r"Response code 429|Too Many Requests", re.I), Outcome.RATE_LIMITED, True),
    (re.compile(r"Response code (?:404|410)|NotFoundError", re.I), Outcome.NOT_FOUND, True),
    (re.compile(r"Response code 40[13]", re.I), Outcome.AUTH_REQUIRED, True),
]  # fmt: skip
# RSSHub's access-control middleware: our key is wrong or missing, no route is to blame.
# No answer from the source at all: DNS (``getaddrinfo ENOTFOUND``, ``EAI_AGAIN``), a connection
# refused, reset or unreachable, a connect, TLS or socket timeout; as node's fetch (undici),
# got and Chromium word them. A source that answered (``Response code 502``) matched above.
_NETWORK_RE = re.compile(
    r"\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|ENETUNREACH"
    r"|EHOSTUNREACH|UND_ERR_CONNECT_TIMEOUT|UND_ERR_SOCKET|UND_ERR_HEADERS_TIMEOUT)\b"
    r"|Connect Timeout Error|socket hang up|before secure TLS connection was established"
    r"|net::ERR_(?:NAME_NOT_RESOLVED|CONNECTION_(?:REFUSED|RESET|TIMED_OUT)|TIMED_OUT"
    r"|INTERNET_DISCONNECTED|ADDRESS_UNREACHABLE|NETWORK_CHANGED)",
)
_ACCESS_DENIED_RE = re.compile(r"Authentication failed\. Access denied", re.I)
_HTML_MESSAGE_RE = re.compile(r"Error Message:\s*(?:<br\s*/?>)?\s*<code[^>]*>(.*?)</code>", re.S)
_HTML_TITLE_RE = re.compile(r"<title[^>]*>(.*?)</title>", re.S | re.I)
_TAG_RE = re.compile(r"<[^>]+>")
_SPACE_RE = re.compile(r"\s+")
_DRAWING_RE = re.compile(r"[\u2500-\u257f]+")  # Playwright's box-drawing banner


@dataclass(frozen=True)
class Verdict:
    """How one attempt ended: its class, a short message, and how it weighs on route health."""

    outcome: Outcome
    message: str = ""
    http_status: int | None = None
    retry_after: int | None = None
    counts_for_route: bool = True
    # RSSHub got no answer from the source at all (DNS, refused, reset, timeout): the route or
    # RSSHub's own egress is to blame, which ``fetching.egress`` settles before it is recorded.
    network: bool = False
    # Why a class was chosen when the class alone does not say: "egress" (fetching.egress),
    # "instance" (the instance failed on its own: fetching.failover), "access_key".
    reason: str = ""

    @property
    def transient(self) -> bool:
        return outcome_is_transient(self.outcome)

    @property
    def success(self) -> bool:
        return outcome_is_success(self.outcome)


def outcome_is_transient(outcome: str) -> bool:
    """Transient classes may succeed on retry; the rest are semantic (retrying will not help)."""
    return outcome in TRANSIENT_OUTCOMES


def outcome_is_success(outcome: str) -> bool:
    """For route health: the route ran and answered properly. ``empty`` is one: the route
    worked and the source had nothing (a quiet feed, a search without hits)."""
    return outcome in SUCCESS_OUTCOMES or outcome == Outcome.EMPTY


def message_clean(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """One line of plain text: tags, control characters and banners removed, length capped
    after a whole word (``fetching.plaintext.text_cut``)."""
    text = html.unescape(_TAG_RE.sub(" ", text))
    text = _DRAWING_RE.sub(" ", text)
    text = "".join(c if c.isprintable() else " " for c in text)
    text = _SPACE_RE.sub(" ", text).strip()
    return text_cut(text, limit)


def rsshub_error_message(body: bytes, content_type: str = "") -> str:
    """The error message of RSSHub's error page or JSON error object ("" when neither)."""
    text = body[:ERROR_BODY_LIMIT].decode("utf-8", "replace")
    if "json" in content_type or text.lstrip().startswith("{"):
        try:
            message = json.loads(text)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = None
        if isinstance(message, str):
            return message_clean(message)
    match = _HTML_MESSAGE_RE.search(text)
    if match:
        return message_clean(match.group(1))
    match = _HTML_TITLE_RE.search(text)
    if match:
        return message_clean(match.group(1))
    return message_clean(text, limit=200)


def retry_after_parse(value: str | None, *, now: datetime | None = None) -> int | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date), capped at a day."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        seconds = int(value)
    else:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = int((when - (now or datetime.now(UTC))).total_seconds())
    return max(0, min(seconds, RETRY_AFTER_CAP))


def _body_verdict(message: str, status: int) -> Verdict:
    for pattern, outcome, counts in _BODY_PATTERNS:
        if pattern.search(message):
            return Verdict(outcome, message, status, counts_for_route=counts)
    text = message or f"RSSHub answered HTTP {status}"
    network = bool(_NETWORK_RE.search(message))
    return Verdict(Outcome.UPSTREAM_ERROR, text, status, network=network)


def verdict_for_status(
    status: int,
    body: bytes = b"",
    *,
    content_type: str = "",
    retry_after: str | None = None,
    route_matched: bool = False,
) -> Verdict:
    """Classify an answer that is not a 2xx feed. ``route_matched``: RSSHub named the route it
    ran (``x-rsshub-route``), so a 404 is about the parameters, not a missing route."""
    message = rsshub_error_message(body, content_type) if body else ""
    wait = retry_after_parse(retry_after)
    if status == 304:
        return Verdict(Outcome.NOT_MODIFIED, "", status)
    if status == 429:
        text = message or "RSSHub answered 429 Too Many Requests"
        return Verdict(Outcome.RATE_LIMITED, text, status, retry_after=wait)
    if status in (401, 403):
        if _ACCESS_DENIED_RE.search(message):  # the instance refused our key: no route's fault
            text = "RSSHub refused the access key (check RSSHUB_ACCESS_KEY)"
            return Verdict(
                Outcome.AUTH_REQUIRED, text, status, counts_for_route=False,
                reason=ACCESS_KEY_REASON,
            )  # fmt: skip
        return Verdict(Outcome.AUTH_REQUIRED, message, status)
    if status in (404, 410):
        text = message or f"RSSHub answered {status}"
        return Verdict(Outcome.NOT_FOUND, text, status, counts_for_route=not route_matched)
    if 400 <= status < 500:
        return Verdict(Outcome.NOT_FOUND, message or f"RSSHub answered {status}", status)
    if status >= 500:
        verdict = _body_verdict(message, status)
        return replace(verdict, retry_after=wait)
    return Verdict(Outcome.UPSTREAM_ERROR, f"unexpected HTTP {status} from RSSHub", status)
