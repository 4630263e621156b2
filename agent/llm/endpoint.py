"""The one HTTP client to the LLM endpoints: the official SDK with bounded waits, and redaction.

The endpoints are ``settings.OPENAI_ENDPOINTS`` in order, or the single endpoint of
``OPENAI_BASE_URL``/``OPENAI_API_KEY`` when that list is empty.

Bounds: each HTTP attempt has ``settings.OPENAI_TIMEOUT`` seconds (connect: at most 5 s); the SDK
retries at most once (429, 5xx, connect errors), never after the endpoint stalled mid-request, and
honours ``Retry-After`` only up to ``RETRY_AFTER_MAX_SECONDS`` (longer: fail fast, rate limited).
"""

import email.utils
import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx2  # the HTTP library the openai SDK is built on; its exceptions reach our client
import openai
from django.conf import settings

DEFAULT_BASE_URL = "https://api.openai.com/v1"
CONNECT_TIMEOUT_SECONDS = 5.0
RETRY_AFTER_MAX_SECONDS = 20.0


class EndpointStalled(openai.OpenAIError):
    """Raised for a read/write timeout: the SDK re-raises OpenAIErrors without retrying them."""


class _BoundedClient(openai.DefaultHttpxClient):
    """The SDK's HTTP client with two limits the SDK lacks.

    A timed-out read is not retried: the endpoint accepted the request and went silent, and a
    second wait would double the worst case to two timeouts. A 429 whose ``Retry-After`` exceeds
    ``RETRY_AFTER_MAX_SECONDS`` is marked ``x-should-retry: false`` (a header the SDK obeys), so
    the call fails fast as rate limited instead of sleeping up to the SDK's two minutes.
    """

    def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
        try:
            response = super().send(request, **kwargs)
        except (httpx2.ReadTimeout, httpx2.WriteTimeout):
            raise EndpointStalled("the endpoint stopped answering") from None
        if response.status_code == 429:
            wait = _retry_after_seconds(response.headers)
            if wait is not None and wait > RETRY_AFTER_MAX_SECONDS:
                response.headers["x-should-retry"] = "false"
        return response


def _retry_after_seconds(headers: httpx2.Headers) -> float | None:
    """Seconds the server asks for (``retry-after-ms``, or ``Retry-After`` in seconds or as a
    date), the way the SDK reads them; None when absent or unreadable."""
    millis, value = headers.get("retry-after-ms"), headers.get("retry-after")
    try:
        if millis is not None:
            return float(millis) / 1000
        if value is None:
            return None
        if re.fullmatch(r"\s*[0-9.]+\s*", value):
            return float(value)
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return (when - datetime.now(UTC)).total_seconds() if when.tzinfo else None


@functools.lru_cache(maxsize=16)
def client_for(base_url: str, api_key: str, timeout_seconds: float) -> openai.OpenAI:
    """One pooled client per configuration (thread-safe; reused across calls)."""
    timeout = openai.Timeout(timeout_seconds, connect=min(CONNECT_TIMEOUT_SECONDS, timeout_seconds))
    http_client = _BoundedClient(timeout=timeout, follow_redirects=False)
    return openai.OpenAI(
        api_key=api_key, base_url=base_url, timeout=timeout, max_retries=1, http_client=http_client
    )


@dataclass(frozen=True)
class Endpoint:
    """One OpenAI-compatible endpoint. ``name`` is what steps and usage show (never the key)."""

    name: str
    base_url: str
    api_key: str
    router_model: str
    writer_model: str

    def model(self, role: str) -> str:
        return self.router_model if role == "router" else self.writer_model

    def client(self, timeout_seconds: float) -> openai.OpenAI:
        return client_for(self.base_url, self.api_key, timeout_seconds)


def endpoints_configured() -> list[Endpoint]:
    """The endpoints a call tries, in order; [] when no key is set (offline)."""
    router, writer = settings.OPENAI_ROUTER_MODEL, settings.OPENAI_WRITER_MODEL
    entries = settings.OPENAI_ENDPOINTS or []
    if not entries and settings.OPENAI_API_KEY:
        url = (settings.OPENAI_BASE_URL or DEFAULT_BASE_URL).rstrip("/")
        entries = [{"name": _host(url), "base_url": url, "api_key": settings.OPENAI_API_KEY}]
    return [
        Endpoint(
            name=entry.get("name") or _host(entry["base_url"]),
            base_url=entry["base_url"].rstrip("/"),
            api_key=entry["api_key"],
            router_model=entry.get("router_model") or router,
            writer_model=entry.get("writer_model") or writer,
        )
        for entry in entries
    ]


def _host(url: str) -> str:
    return urlsplit(url).hostname or "endpoint"


_KEY_LIKE = re.compile(r"sk-[A-Za-z0-9_\-]{6,}")


def redact(text: str) -> str:
    """Remove every configured API key (and anything key-shaped) from text bound for exceptions
    and logs."""
    keys = {settings.OPENAI_API_KEY, *(e.get("api_key", "") for e in settings.OPENAI_ENDPOINTS)}
    for key in sorted(filter(None, keys), key=len, reverse=True):
        text = text.replace(key, "[redacted]")
    return _KEY_LIKE.sub("sk-[redacted]", text)
