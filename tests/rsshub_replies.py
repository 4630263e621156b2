"""RSSHub's own answers, as a real instance gives them, for stand-ins on 127.0.0.1.

``dns_failure`` is what an RSSHub without a way out to the internet answers for every route that
needs one (measured on a real RSSHub 503 page; only the error text is kept, it is what is read).
"""

from __future__ import annotations

from html import escape

from tests.httpserver import Reply

CANARIES = ("/github/repos/DIYgod", "/hackernews", "/sspai/index")  # RSSHUB_EGRESS_CANARIES
CANARY = CANARIES[0]


def rsshub_error_page(message: str) -> Reply:
    """RSSHub's HTML error page (its default format) carrying ``message``."""
    body = (
        "<!DOCTYPE html><html><head><title>Welcome to RSSHub!</title></head><body>"
        '<div>Error Message:<br/><code class="mt-2 block">'
        f"{escape(message)}</code></div></body></html>"
    )
    return Reply(503, {"Content-Type": "text/html; charset=UTF-8"}, body.encode())


def dns_failure(host: str = "www.36kr.com") -> Reply:
    """The source's name does not resolve: RSSHub's DNS, or its whole egress, is down."""
    return rsshub_error_page(
        f'FetchError: [GET] "https://{host}/newsflashes": <no response> fetch failed '
        f"(getaddrinfo ENOTFOUND {host})"
    )


def source_refused(host: str = "www.36kr.com") -> Reply:
    return rsshub_error_page(
        f'FetchError: [GET] "https://{host}/": <no response> fetch failed '
        f"(connect ECONNREFUSED 203.0.113.7:443)"
    )
