"""Typed readers for configuration from the environment.

Every reader raises ``ImproperlyConfigured`` naming the variable when a value is malformed, so a
typo stops start-up instead of surfacing later as a confusing runtime error.
"""

import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

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
