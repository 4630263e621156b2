"""The one HTTP client to RSSHub (DESIGN.md section 5): everything that fetches goes through here.

Per request: a total deadline (``asyncio.timeout`` around connect, headers *and* body, so a
server dripping one byte a second cannot outlive it), a connect timeout, a cap on decoded bytes
(we decompress ourselves with ``max_length``, so a gzip bomb costs at most the cap in memory),
conditional GET, and redirects followed only within the RSSHub origin, at most three.

Concurrency: a global limit (``FETCH_GLOBAL_CONCURRENCY``) and one per RSSHub instance
(``RSSHUB_CONCURRENCY``), both per event loop: asyncio semaphores cannot be shared across loops,
and one worker runs one brief (one loop) at a time.

The access key is added by the transport, below httpx's request logging, so neither logs nor
``response.request`` nor any message here ever holds it; messages are also redacted.

Failures never escape as httpx exceptions: ``get`` returns an ``RSSHubResponse`` for any HTTP
answer, or raises ``FetchFailed`` with an outcome class and a short message.
"""

from __future__ import annotations

import asyncio
import functools
import re
import ssl
import threading
import time
import weakref
import zlib
from dataclasses import dataclass

import httpx
from django.conf import settings

from fetching.models import Outcome
from fetching.outcomes import ERROR_BODY_LIMIT, message_clean
from fetching.paths import RoutePathRejected, path_normalise, url_for_path
from fetching.status import rsshub_status_forget

USER_AGENT = "RSSHubAgent/1.0 (+https://github.com/DIYgod/RSSHub; self-hosted reader)"
ACCEPT = (
    "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"
)
MAX_REDIRECTS = 3
REDIRECT_PATH = "rsshub_agent.redirect_path"  # where _redirect_read leaves a target's path
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# A credential in an address's query: its key and the "=" kept, its value masked
CREDENTIAL_RE = re.compile(
    r"([?&](?:api_?key|key|access_?token|token|secret|client_secret|sig|signature)=)[^&\s\"'<>]+",
    re.I,
)


class FetchFailed(Exception):
    """A request that ended without a usable HTTP answer, already classified."""

    def __init__(
        self, outcome: Outcome, message: str, *, http_status: int | None = None, latency_ms: int = 0
    ) -> None:
        self.outcome = outcome
        self.message = message
        self.http_status = http_status
        self.latency_ms = latency_ms
        super().__init__(f"{outcome}: {message}")


@dataclass(frozen=True)
class RSSHubResponse:
    path: str  # the final canonical path, after redirects; never holds the key
    status: int
    headers: httpx.Headers
    body: bytes
    latency_ms: int
    redirects: int = 0

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def route_template(self) -> str:
        """The route RSSHub says it ran (``x-rsshub-route``), "" when it matched none."""
        return self.headers.get("x-rsshub-route", "")


class _AccessKeyTransport(httpx.AsyncBaseTransport):
    """Adds ``key=`` to the request actually sent. httpx logs and keeps the request it built,
    which never had the key, so the key cannot leak through logs or ``response.request``."""

    def __init__(self, inner: httpx.AsyncBaseTransport, key: str) -> None:
        self._inner = inner
        self._key = key

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._key:
            request = httpx.Request(
                request.method,
                request.url.copy_merge_params({"key": self._key}),
                headers=request.headers,
                stream=request.stream,
                extensions=request.extensions,
            )
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class _BodyDecoder:
    """Content decoding with a bound on output, chunk by chunk (zlib's ``max_length``)."""

    def __init__(self, encoding: str) -> None:
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            self._zlib = None
        elif encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj()
        else:
            raise FetchFailed(Outcome.UPSTREAM_ERROR, f"unsupported content encoding {encoding!r}")

    def feed(self, data: bytes, room: int) -> bytes:
        """At most ``room`` decoded bytes; reaching ``room`` means the cap is passed."""
        if self._zlib is None:
            return data
        try:
            return self._zlib.decompress(data, room)
        except zlib.error:
            raise FetchFailed(Outcome.UPSTREAM_ERROR, "corrupt compressed body") from None

    def flush(self, room: int) -> bytes:
        return self._zlib.flush(room) if self._zlib is not None else b""


_limits_lock = threading.Lock()
_loop_limits: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _semaphore(name: str, size: int) -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    with _limits_lock:
        table = _loop_limits.setdefault(loop, {})
        return table.setdefault((name, size), asyncio.Semaphore(size))


def _sendable(validator: str) -> str:
    """A stored ETag or Last-Modified as a header value, or "" when it cannot be one: it came
    from an upstream's header, and a non-ASCII or control character would break the request
    (httpx raises a bare ``UnicodeEncodeError``) instead of just making it unconditional."""
    return validator if validator.isascii() and validator.isprintable() else ""


def _if_none_match(etag: str) -> str:
    """The stored ETag, plus its strong form when it is weak. Compression turns RSSHub's ETag
    into ``W/"..."``, but RSSHub compares ``If-None-Match`` strongly (RFC 9110 says weakly), so
    only the strong form earns its 304. A list of tags is valid for any server."""
    if etag.startswith("W/") and len(etag) > 2:
        return f"{etag}, {etag[2:]}"
    return etag


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every client: building one loads the CA bundle, ~10 ms at rest and
    far more on a busy machine, and a batch makes a client per RSSHub instance it asks. A
    context is safe to share between connections and threads."""
    return httpx.create_ssl_context()


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


class RSSHubClient:
    """One RSSHub instance. Use as ``async with RSSHubClient() as client``; defaults come from
    settings (``RSSHUB_URL``, ``RSSHUB_ACCESS_KEY``, ``RSSHUB_TIMEOUT``...)."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        access_key: str | None = None,
        timeout: float | None = None,
        connect_timeout: float | None = None,
        max_bytes: int | None = None,
        concurrency: int | None = None,
        global_concurrency: int | None = None,
    ) -> None:
        self.base_url = (base_url or settings.RSSHUB_URL).rstrip("/")
        self._key = settings.RSSHUB_ACCESS_KEY if access_key is None else access_key
        self.timeout = timeout or settings.RSSHUB_TIMEOUT
        self.max_bytes = max_bytes or settings.RSSHUB_MAX_BYTES
        self.concurrency = concurrency or settings.RSSHUB_CONCURRENCY
        self.global_concurrency = global_concurrency or settings.FETCH_GLOBAL_CONCURRENCY
        connect = connect_timeout or settings.RSSHUB_CONNECT_TIMEOUT
        self._origin = httpx.URL(self.base_url)
        self._http = httpx.AsyncClient(
            transport=_AccessKeyTransport(
                httpx.AsyncHTTPTransport(verify=_tls_context()), self._key
            ),
            timeout=httpx.Timeout(self.timeout, connect=min(connect, self.timeout)),
            follow_redirects=False,
            event_hooks={"response": [self._redirect_read]},
            trust_env=False,  # no proxy or .netrc from the environment: RSSHub is ours
            headers={"User-Agent": USER_AGENT, "Accept": ACCEPT, "Accept-Encoding": "gzip"},
        )

    async def __aenter__(self) -> RSSHubClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def redact(self, text: str) -> str:
        """``text`` without the access key, nor a credential an upstream address RSSHub echoes
        holds (``apikey=...`` of a site's API that RSSHub's error names)."""
        text = text.replace(self._key, "***") if self._key else text
        return CREDENTIAL_RE.sub(r"\1***", text)

    async def get(
        self, path: str, *, etag: str = "", last_modified: str = "", limit: int | None = None
    ) -> RSSHubResponse:
        """GET one path (confined by the caller; re-checked here without the catalog).

        Raises ``RoutePathRejected`` before sending anything, or ``FetchFailed``."""
        canonical = path_normalise(path)
        url_for_path(self.base_url, canonical)
        headers = {}
        if etag := _sendable(etag):
            headers["If-None-Match"] = _if_none_match(etag)
        if last_modified := _sendable(last_modified):
            headers["If-Modified-Since"] = last_modified
        params = {"limit": str(limit)} if limit else None
        async with (
            _semaphore("*", self.global_concurrency),
            _semaphore(self.base_url, self.concurrency),
        ):
            return await self._get_within_deadline(canonical, headers, params)

    async def _get_within_deadline(
        self, canonical: str, headers: dict[str, str], params: dict[str, str] | None
    ) -> RSSHubResponse:
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.timeout):
                return await self._get_following(canonical, headers, params, started)
        except TimeoutError:
            message = f"no complete answer within {self.timeout:g} s"
            raise FetchFailed(Outcome.TIMEOUT, message, latency_ms=_elapsed_ms(started)) from None
        except FetchFailed as exc:
            exc.latency_ms = exc.latency_ms or _elapsed_ms(started)
            raise
        except httpx.HTTPError as exc:
            failure = self._transport_failure(exc, started)
            if failure.outcome == Outcome.RSSHUB_UNAVAILABLE:
                await rsshub_status_forget()  # the banner must not keep saying it answers
            raise failure from None

    def _transport_failure(self, exc: httpx.HTTPError, started: float) -> FetchFailed:
        detail = self.redact(message_clean(str(exc), limit=200)) or type(exc).__name__
        latency = _elapsed_ms(started)
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
            message = f"cannot connect to RSSHub ({detail})"
            return FetchFailed(Outcome.RSSHUB_UNAVAILABLE, message, latency_ms=latency)
        if isinstance(exc, httpx.TimeoutException):
            return FetchFailed(Outcome.TIMEOUT, f"timed out ({detail})", latency_ms=latency)
        if isinstance(exc, httpx.RemoteProtocolError):
            message = f"RSSHub broke off the answer ({detail})"
            return FetchFailed(Outcome.UPSTREAM_ERROR, message, latency_ms=latency)
        message = f"{type(exc).__name__}: {detail}"
        return FetchFailed(Outcome.UPSTREAM_ERROR, message, latency_ms=latency)

    async def _get_following(
        self,
        canonical: str,
        headers: dict[str, str],
        params: dict[str, str] | None,
        started: float,
    ) -> RSSHubResponse:
        for hop in range(MAX_REDIRECTS + 1):
            url = url_for_path(self.base_url, canonical)
            async with self._http.stream("GET", url, headers=headers, params=params) as response:
                location = response.headers.get("location")
                if response.status_code in REDIRECT_STATUSES and location:
                    if hop == MAX_REDIRECTS:
                        message = f"more than {MAX_REDIRECTS} redirects (a loop?)"
                        raise FetchFailed(
                            Outcome.UPSTREAM_ERROR, message, http_status=response.status_code
                        )
                    canonical = response.extensions[REDIRECT_PATH]
                    continue
                body = await self._body_read(response)
                return RSSHubResponse(
                    canonical, response.status_code, response.headers, body,
                    _elapsed_ms(started), hop,
                )  # fmt: skip
        raise AssertionError("unreachable: the loop returns or raises")

    async def _redirect_read(self, response: httpx.Response) -> None:
        """Read a redirect's target as soon as its headers arrive (an httpx response hook).

        httpx builds the next request from ``Location`` even when it will not follow it, and a
        hostile ``Location`` makes that raise a bare ``ValueError``. Read first, here, a bad one
        ends the request as ``FetchFailed``; a good one is what httpx reads without trouble."""
        location = response.headers.get("location")
        if response.status_code in REDIRECT_STATUSES and location:
            response.extensions[REDIRECT_PATH] = self._redirect_path(
                response.url, location, response.status_code
            )

    def _redirect_path(self, current: httpx.URL, location: str, status: int) -> str:
        """The canonical path of a redirect target on our own origin, else ``FetchFailed``."""
        try:
            target = current.join(location)
        except (httpx.InvalidURL, ValueError):  # httpx's own, or urllib's (a bad IPv6 host)
            message = "unreadable redirect"
            raise FetchFailed(Outcome.UPSTREAM_ERROR, message, http_status=status) from None
        same_origin = (target.scheme, target.host, target.port) == (
            self._origin.scheme,
            self._origin.host,
            self._origin.port,
        )
        if not same_origin or target.userinfo:
            where = message_clean(f"{target.host}:{target.port or ''}", limit=100)
            message = f"redirect to another origin ({where}) refused"
            raise FetchFailed(Outcome.REJECTED, message, http_status=status)
        if target.query:
            message = "redirect carries a query string; refused"
            raise FetchFailed(Outcome.REJECTED, message, http_status=status)
        raw = target.raw_path.decode("ascii")
        base_path = self._origin.raw_path.decode("ascii").rstrip("/")
        try:
            return path_normalise(raw[len(base_path) :] if raw.startswith(base_path) else raw)
        except RoutePathRejected as exc:
            message = f"redirect to a refused path ({exc.reason})"
            raise FetchFailed(Outcome.REJECTED, message, http_status=status) from None

    async def _body_read(self, response: httpx.Response) -> bytes:
        """The decoded body: capped at ``max_bytes`` for a 2xx (past it: ``too_large``), and
        silently truncated for error pages, which we only read for their message."""
        if response.status_code == 304 or response.request.method == "HEAD":
            return b""
        is_feed = 200 <= response.status_code < 300
        cap = self.max_bytes if is_feed else ERROR_BODY_LIMIT
        declared = response.headers.get("content-length", "")
        if is_feed and declared.isdigit() and int(declared) > cap:
            raise self._too_large(response, f"declares {int(declared)} bytes")
        decoder = _BodyDecoder(response.headers.get("content-encoding", ""))
        body = bytearray()
        async for chunk in response.aiter_raw():
            body += decoder.feed(chunk, cap - len(body) + 1)
            if len(body) > cap:
                if not is_feed:
                    return bytes(body[:cap])
                raise self._too_large(response, f"passes {cap} bytes")
        body += decoder.flush(cap - len(body) + 1)
        if len(body) > cap:
            raise self._too_large(response, f"passes {cap} bytes")
        return bytes(body)

    def _too_large(self, response: httpx.Response, detail: str) -> FetchFailed:
        message = f"the answer {detail} (limit {self.max_bytes})"
        return FetchFailed(Outcome.TOO_LARGE, message, http_status=response.status_code)
