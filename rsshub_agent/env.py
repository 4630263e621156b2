"""Typed readers for configuration from the environment.

Every reader raises ``ImproperlyConfigured`` naming the variable when a value is malformed, so a
typo stops start-up instead of surfacing later as a confusing runtime error.
"""

import json
import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from fetching.instance_url import InstanceURLRefused, instance_url_clean

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def env_str(name: str, default: str = "") -> str:
    """The stripped value; an empty value counts as unset (as in a copied .env.example)."""
    return os.environ.get(name, "").strip() or default


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name, "")
    value = raw.strip().lower()
    if value == "":
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false/1/0), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int = 0, maximum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum or (maximum is not None and value > maximum):
        upper = "" if maximum is None else f" and at most {maximum}"
        raise ImproperlyConfigured(f"{name} must be at least {minimum}{upper}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None
    if not value >= minimum:  # also refuses NaN
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {raw!r}")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env_str(name, default).upper()
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name, "")
    if raw.strip() == "":
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


def env_url(name: str, default: str, *, schemes: tuple[str, ...]) -> str:
    """An absolute URL with one of ``schemes`` and a host, without trailing slash; or ''."""
    raw = env_str(name, default)
    if raw == "":
        return ""
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        raise ImproperlyConfigured(f"{name} is not a valid URL: {raw!r}") from None
    if parts.scheme not in schemes or not parts.hostname:
        allowed = "/".join(schemes)
        raise ImproperlyConfigured(f"{name} must be a {allowed} URL with a host, got {raw!r}")
    if parts.query or parts.fragment:
        raise ImproperlyConfigured(f"{name} must not carry a query or fragment, got {raw!r}")
    return raw.rstrip("/")


def env_rsshub_urls(name: str) -> list[str]:
    """A comma-separated list of RSSHub base URLs (``fetching.instance_url`` says what one may
    be), without duplicates, in the order given; [] when unset. Errors name the entry by its
    place, never echo it: a refused URL may hold credentials."""
    urls = []
    for n, raw in enumerate(env_list(name, []), 1):
        try:
            urls.append(instance_url_clean(raw))
        except InstanceURLRefused as exc:
            raise ImproperlyConfigured(f"{name}: entry {n}: {exc}") from None
    return list(dict.fromkeys(urls))


def env_rsshub_url(name: str) -> str:
    """One RSSHub base URL (as ``env_rsshub_urls``), or "" when unset."""
    urls = env_rsshub_urls(name)
    if len(urls) > 1:
        raise ImproperlyConfigured(f"{name} holds one URL; list several in RSSHUB_URLS")
    return urls[0] if urls else ""


ENDPOINT_KEYS = frozenset({"name", "base_url", "api_key", "router_model", "writer_model"})


def env_endpoints(name: str) -> list[dict[str, str]]:
    """A JSON array of OpenAI-compatible endpoints, in the order calls try them; [] when unset.

    Each entry: ``{"base_url", "api_key", "router_model"?, "writer_model"?, "name"?}`` (all
    strings; the models default to ``OPENAI_ROUTER_MODEL``/``OPENAI_WRITER_MODEL``). Errors name
    the entry, never echo it: it holds a key.
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        return []
    try:
        entries = json.loads(raw)
    except (ValueError, RecursionError):
        raise ImproperlyConfigured(f"{name} must be a JSON array of objects") from None
    if not isinstance(entries, list) or not entries:
        raise ImproperlyConfigured(f"{name} must be a non-empty JSON array of objects")
    return [_endpoint_entry(name, n, entry) for n, entry in enumerate(entries, 1)]


def _endpoint_entry(name: str, n: int, entry: object) -> dict[str, str]:
    if not isinstance(entry, dict) or not all(isinstance(v, str) for v in entry.values()):
        raise ImproperlyConfigured(f"{name}: entry {n} must be an object of strings")
    unknown = sorted(set(entry) - ENDPOINT_KEYS)
    if unknown:
        raise ImproperlyConfigured(f"{name}: entry {n} has unknown keys {unknown}")
    url, key = entry.get("base_url", "").strip(), entry.get("api_key", "").strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
        raise ImproperlyConfigured(f"{name}: entry {n} needs an http(s) base_url with a host")
    if not key:
        raise ImproperlyConfigured(f"{name}: entry {n} needs an api_key")
    cleaned = {k: v.strip() for k, v in entry.items() if v.strip()}
    return cleaned | {"base_url": url.rstrip("/"), "name": cleaned.get("name") or parts.hostname}
