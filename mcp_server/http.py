"""Streamable HTTP at ``/mcp/``, next to Django in the ASGI application (``rsshub_agent/asgi.py``).

Before the SDK sees a request, Django's own rules decide whether it may: the ``Host`` header
against ``ALLOWED_HOSTS`` (400), plain http when ``HTTPS`` is on (a redirect to https, as the
site's), and the API token of ``Authorization: Bearer ...`` through the API's own parsing and
checks (``briefs.tokens.auth.token_from_header``). No token, a malformed, wrong, expired or revoked
one: 401 with a JSON-RPC error saying which, the message the REST API gives. Then every request
counts against the caller's API request throttle (``api.base.throttle_check``), whatever it asks:
``initialize``, ``tools/list``, ``resources/list``, ``resources/read``, a tool call or a
notification; past the rate it is a 429 with ``Retry-After``, before the SDK sees it. (New briefs
have their own limits besides, every way in alike: ``briefs.admission``.)

Why a fresh, stateless session manager per request: Daphne speaks no ASGI lifespan, so nothing
would enter the SDK's ``StreamableHTTPSessionManager.run()`` (the task group every request
needs) at start-up. A manager started lazily by the first request would keep sessions in one
process's memory, tied to one event loop: a second web process, or a restart, would not know
them. In stateless mode nothing is kept between requests: each POST is a whole exchange whose
progress notifications ride its own SSE response, and each request runs a manager of its own
for its own duration. That costs a task group and a transport per request (``bench/mcp.py``
measures the whole of ``ask`` against the REST API).
"""

import io
import json
from collections.abc import Awaitable, Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import INVALID_REQUEST
from rest_framework.exceptions import Throttled

from api.base import max_body_bytes, throttle_check
from briefs.tokens.auth import token_from_header
from briefs.tokens.service import TokenRejected
from mcp_server.caller import Caller
from mcp_server.follow import in_thread
from mcp_server.server import CALLER_KEY

Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]
ASGIApp = Callable[[dict, Receive, Send], Awaitable[None]]
WWW_AUTHENTICATE = (b"www-authenticate", b'Bearer realm="mcp"')
NOT_PROVIDED = "Authentication credentials were not provided."  # DRF's NotAuthenticated


class Refused(Exception):
    """The request may not be served: answered with ``status`` and a JSON-RPC error."""

    def __init__(self, status: int, message: str, headers: tuple = ()):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


def caller_authenticate(scope: dict) -> Caller:
    """Who the request is from, or ``Refused`` saying why it may not be served."""
    request = ASGIRequest(scope, io.BytesIO())  # the headers only: the SDK reads the body
    try:
        host = request.get_host()
    except DisallowedHost:
        raise Refused(400, "Invalid Host header.") from None
    if settings.SECURE_SSL_REDIRECT and not request.is_secure():
        raise Refused(308, "Use https.", ((b"location", f"https://{host}{request.path}".encode()),))
    try:
        token = token_from_header(request.META.get("HTTP_AUTHORIZATION", ""))
    except TokenRejected as exc:
        raise Refused(401, exc.message, (WWW_AUTHENTICATE,)) from None
    if token is None:
        raise Refused(401, NOT_PROVIDED, (WWW_AUTHENTICATE,))
    return Caller(user=token.user, site_url=f"{request.scheme}://{host}")


def caller_throttle(caller: Caller) -> None:
    """Count the request against the caller's throttle; ``Refused`` (429) past it."""
    try:
        throttle_check(user=caller.user)
    except Throttled as exc:
        wait = max(1, int(exc.wait or 1))
        raise Refused(429, str(exc.detail), ((b"retry-after", str(wait).encode()),)) from None


async def _refuse(send: Send, refused: Refused) -> None:
    error = {"code": INVALID_REQUEST, "message": refused.message}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *refused.headers,
    ]
    await send({"type": "http.response.start", "status": refused.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _with_nosniff(send: Send) -> Send:
    async def sending(message: dict) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers") or [])
            if not any(name.lower() == b"x-content-type-options" for name, _ in headers):
                headers.append((b"x-content-type-options", b"nosniff"))
            message = {**message, "headers": headers}
        await send(message)

    return sending


class McpHttpApp:
    """The ASGI application of ``/mcp/``."""

    def __init__(self, server: Server):
        self.server = server

    async def __call__(self, scope: dict, receive: Receive, send: Send) -> None:
        send = _with_nosniff(send)
        try:
            caller = await in_thread(caller_authenticate)(scope)
            if scope["method"] != "POST":
                # Stateless: no stream to open (GET) and no session to end (DELETE); the
                # protocol's answer for a server without them is 405.
                raise Refused(405, "Method not allowed: send POST.", ((b"allow", b"POST"),))
            await in_thread(caller_throttle)(caller)
        except Refused as refused:
            await _refuse(send, refused)
            return
        manager = StreamableHTTPSessionManager(
            app=self.server, stateless=True, max_request_body_size=max_body_bytes()
        )
        async with manager.run():
            await manager.handle_request({**scope, CALLER_KEY: caller}, receive, send)
