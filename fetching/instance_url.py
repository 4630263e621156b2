"""What an RSSHub instance's base URL may be: the one rule, for the environment
(``RSSHUB_URL``, ``RSSHUB_URLS``) and for staff adding an instance in the admin.

An http(s) URL with a host, an optional port and an optional path prefix (an RSSHub behind a
proxy at ``/rsshub``), in plain ASCII. Refused: credentials (``user:pass@``: the access key has a
field of its own that is never shown; a URL is shown to staff and written to logs), a query or a
fragment (the client builds those), whitespace, control characters, backslashes (parsers
disagree about them), ``..`` segments and anything longer than ``MAX_LENGTH``.

Pure Python, no Django models: settings read it before the apps are loaded.
"""

from __future__ import annotations

from urllib.parse import urlsplit

MAX_LENGTH = 500  # RSSHubInstance.base_url
SCHEMES = ("http", "https")


class InstanceURLRefused(ValueError):
    """A base URL no RSSHub instance may have; the message says why, never echoes a secret."""


def _problem(url: str) -> str | None:
    if not url:
        return "is empty"
    if len(url) > MAX_LENGTH:
        return f"is longer than {MAX_LENGTH} characters"
    if not url.isascii() or not url.isprintable() or any(c.isspace() for c in url):
        return "holds whitespace, control or non-ASCII characters (write a host in punycode)"
    if "\\" in url:
        return "holds a backslash"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed or out-of-range port
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in SCHEMES or not parts.hostname:
        return "must be an http(s) URL with a host"
    if "@" in parts.netloc:
        return "must not carry credentials (give the access key in its own field)"
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        return "must not carry a query or fragment"
    if ".." in parts.path.split("/"):
        return "must not hold '..' in its path"
    return None


def instance_url_clean(url: str) -> str:
    """``url`` as the client uses it (no trailing slash), or ``InstanceURLRefused``."""
    url = url.strip()
    problem = _problem(url)
    if problem is not None:
        raise InstanceURLRefused(f"an RSSHub base URL {problem}")
    return url.rstrip("/")


def instance_host(url: str) -> str:
    """``host[:port]`` of a clean base URL: what staff see of an instance without its path."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    return f"{host}:{parts.port}" if parts.port else host
