"""Path confinement and route-path building (DESIGN.md section 5).

Every path that reaches RSSHub, whether it came from the catalog, a person or a model, passes
``path_confine`` first. It either returns the canonical form (one leading ``/``, each segment
percent-encoded once) or raises ``RoutePathRejected`` with a named reason, before any request.

The checks run on the raw text and again on each percent-decoded level (up to three), so
``%2e%2e`` and ``%252e%252e`` are refused like ``..``.

An ``@`` stands inside a parameter's segment (``/mastodon/acct/Gargron@mastodon.social/statuses``,
``/npm/package/@vue%2Fcore``: routes take handles and scoped names) but never in the first
segment, raw or percent-encoded: a path is always joined after the base URL's own ``/`` and
re-parsed (``url_for_path``), so no ``@`` after the first ``/`` can become userinfo, and the
namespace segment, the one a careless join would put right after the host, holds none.

``path_build`` fills a Hono route template (``:p``, ``:p?``, ``:p{regex}``, ``*``) from
parameters; ``route_for_path`` finds the catalog route a concrete path belongs to.
"""

from __future__ import annotations

import re
import threading
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

MAX_PATH_LENGTH = 1000  # Feed.path and FetchAttempt.path hold at most this
MAX_DECODE_DEPTH = 3
# RFC 3986 pchar minus "%" (always an escape here).
SEGMENT_SAFE = "-._~!$&'()*+,;=:@"
UTILITY_NAMESPACES = frozenset({"rsshub"})  # /rsshub/transform/... can fetch any URL
CATALOG_CACHE_SECONDS = 30.0

_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_BAD_ESCAPE_RE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_PARAM_RE = re.compile(r"^:(?P<name>\w+)(?:\{(?P<regex>.*)\})?(?P<optional>\?)?$", re.DOTALL)
# Split a template on "/" but not inside a {regex} (npm's regex holds a "/").
_TEMPLATE_SPLIT_RE = re.compile(r"/(?![^{]*\})")


class RoutePathRejected(ValueError):
    """A path or its parameters failed validation; nothing was sent.

    ``reason`` is a short stable name (``dot_segment``, ``unknown_namespace``...), ``detail``
    says what exactly, for people.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


# --- Syntax ------------------------------------------------------------------------------------


def _is_control(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Zl", "Zp")


def _decoded_levels(text: str) -> list[str]:
    """``text`` and each successive percent-decoding of it, while decoding changes something."""
    levels = [text]
    for _ in range(MAX_DECODE_DEPTH):
        current = levels[-1]
        if "%" not in current:
            break
        try:
            decoded = unquote(current, errors="strict")
        except UnicodeDecodeError:
            break  # deeper levels are data, not escapes we would ever send decoded
        if decoded == current:
            break
        levels.append(decoded)
    return levels


def _level_check(level: str) -> None:
    if "\\" in level:
        raise RoutePathRejected("backslash", "a backslash, raw or percent-encoded")
    if any(_is_control(c) for c in level):
        raise RoutePathRejected("control_character", "CR, LF, NUL or another control character")
    if "@" in level.lstrip("/").split("/", 1)[0]:
        raise RoutePathRejected("at_sign", "an @ in the namespace segment, raw or encoded")
    if any(part in (".", "..") for part in level.split("/")):
        raise RoutePathRejected("dot_segment", "a . or .. segment, raw or percent-encoded")


def _prefix_check(path: str) -> None:
    if not path:
        raise RoutePathRejected("empty", "no path")
    if _SCHEME_RE.match(path):
        raise RoutePathRejected("absolute_url", "a URL with a scheme, not a path")
    if path.startswith("//") or path.startswith("/\\"):
        raise RoutePathRejected("scheme_relative", "starts with // (another host)")
    if not path.startswith("/"):
        raise RoutePathRejected("not_absolute", "must start with /")
    if "?" in path:
        raise RoutePathRejected("query", "query strings are added by the client only")
    if "#" in path:
        raise RoutePathRejected("fragment", "a # fragment")


def _segment_canonical(segment: str) -> str:
    if _BAD_ESCAPE_RE.search(segment):
        raise RoutePathRejected("bad_escape", "a % not followed by two hex digits")
    try:
        value = unquote(segment, errors="strict")
    except UnicodeDecodeError:
        raise RoutePathRejected("bad_escape", "percent-escapes that are not UTF-8") from None
    return quote(value, safe=SEGMENT_SAFE)


def path_normalise(path: str) -> str:
    """The catalog-free half of ``path_confine``: the canonical path, or ``RoutePathRejected``.

    The client applies it (and the origin check) to every redirect target too; the namespace
    check is not repeated there, since RSSHub itself chose the target."""
    if not isinstance(path, str):
        raise RoutePathRejected("empty", "not a string")
    _prefix_check(path)
    for level in _decoded_levels(path):
        _level_check(level)
    segments = path[1:].split("/")
    if len(segments) > 1 and segments[-1] == "":
        segments.pop()  # one trailing slash is the same route
    if "" in segments:
        raise RoutePathRejected("empty_segment", "an empty segment (//)")
    canonical = "/" + "/".join(_segment_canonical(s) for s in segments)
    if len(canonical) > MAX_PATH_LENGTH:
        raise RoutePathRejected("too_long", f"longer than {MAX_PATH_LENGTH} characters")
    first = unquote(segments[0])
    if first.lower() in UTILITY_NAMESPACES:
        raise RoutePathRejected("utility_route", f"/{first}/... is RSSHub's own utility route")
    return canonical


def path_segments(canonical: str) -> list[str]:
    """Decoded segments of a canonical path ("%2F" inside a segment stays one segment)."""
    return [unquote(s) for s in canonical[1:].split("/")]


# --- The catalog, cached per process ------------------------------------------------------------


@dataclass(frozen=True)
class RouteTemplate:
    route_id: int
    template: str
    enabled: bool
    pattern: re.Pattern[str]
    specificity: tuple[int, ...]


class _CatalogCache:
    """Namespaces and route templates, re-read after ``CATALOG_CACHE_SECONDS``.

    Staff changes (disable a platform) take effect within that time; tests clear it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[Any, tuple[float, Any]] = {}

    def get(self, key: Any, load) -> Any:
        now = time.monotonic()
        with self._lock:
            hit = self._entries.get(key)
            if hit and hit[0] > now:
                return hit[1]
        value = load()  # outside the lock: a DB read must not block other threads' hits
        with self._lock:
            self._entries[key] = (now + CATALOG_CACHE_SECONDS, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_catalog_cache = _CatalogCache()


def catalog_cache_clear() -> None:
    _catalog_cache.clear()


def _namespaces_load() -> dict[str, bool]:
    from catalog.models import Platform, UpstreamState

    rows = Platform.objects.values_list("namespace", "enabled", "upstream_state")
    return {ns: enabled and state == UpstreamState.PRESENT for ns, enabled, state in rows}


def namespaces_known() -> dict[str, bool]:
    """namespace -> usable (enabled and present upstream), for every platform in the catalog."""
    return _catalog_cache.get("namespaces", _namespaces_load)


def path_namespace(canonical: str, namespaces: Mapping[str, bool]) -> str | None:
    """The catalog namespace a canonical path starts with (nested ``gov/ah`` first)."""
    segments = path_segments(canonical)
    if len(segments) >= 2 and f"{segments[0]}/{segments[1]}" in namespaces:
        return f"{segments[0]}/{segments[1]}"
    return segments[0] if segments[0] in namespaces else None


def path_confine(path: str, *, allow_disabled: bool = False) -> str:
    """The canonical form of ``path`` if RSSHub may be asked for it, else ``RoutePathRejected``.

    ``allow_disabled`` lets staff probe a route of a disabled platform; the namespace must still
    exist in the catalog.
    """
    canonical = path_normalise(path)
    first = path_segments(canonical)[0]
    namespaces = namespaces_known()
    namespace = path_namespace(canonical, namespaces)
    if namespace is None:
        raise RoutePathRejected("unknown_namespace", f"no platform {first!r} in the catalog")
    if not namespaces[namespace] and not allow_disabled:
        raise RoutePathRejected("disabled_namespace", f"platform {namespace!r} is disabled")
    return canonical


def url_for_path(base_url: str, canonical: str) -> str:
    """Join the RSSHub base URL and a confined path, and re-parse the result to prove it stays
    on the configured scheme, host and port (and under the base path)."""
    base = urlsplit(base_url)
    url = base_url.rstrip("/") + canonical
    final = urlsplit(url)
    try:
        same_origin = (
            canonical.startswith("/")
            and (final.scheme, final.hostname, final.port)
            == (base.scheme, base.hostname, base.port)
            and final.username is None
            and final.password is None
        )
    except ValueError:  # an unreadable port: whatever it is, it is not ours
        same_origin = False
    if not same_origin or final.query or final.fragment:
        raise RoutePathRejected("origin_mismatch", "the URL leaves the RSSHub origin")
    if _leaves_base_path(final.path, base.path):
        raise RoutePathRejected("origin_mismatch", "the URL leaves the RSSHub base path")
    return url


def _leaves_base_path(path: str, base_path: str) -> bool:
    """True unless ``path`` lies under ``base_path`` as the server will see it: HTTP clients
    resolve ``..`` before sending (``/rss/../admin`` goes out as ``/admin``) and servers may
    decode ``%2e`` first, so a dot segment, plain or escaped, counts as leaving."""
    prefix = base_path.rstrip("/") + "/"
    tail = path[len(prefix) :].split("/")
    return not path.startswith(prefix) or any(unquote(s) in (".", "..") for s in tail)


# --- Hono templates ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    literal: str = ""
    name: str = ""  # "" for a literal, "*" for the wildcard
    regex: str = ""
    optional: bool = False


def _template_tokens(template: str) -> list[_Token]:
    if not template.startswith("/"):
        raise RoutePathRejected("bad_template", "a route template starts with /")
    tokens = []
    for part in _TEMPLATE_SPLIT_RE.split(template[1:]):
        if part == "*":
            tokens.append(_Token(name="*", optional=True))
            continue
        match = _PARAM_RE.match(part)
        if match is None:
            tokens.append(_Token(literal=part))
            continue
        optional = bool(match["optional"])
        tokens.append(_Token(name=match["name"], regex=match["regex"] or "", optional=optional))
    return tokens


def _value_encode(token: _Token, value: str) -> str:
    """Encode one parameter value; a value its regex lets span segments keeps its slashes."""
    spans = token.name == "*" or (token.regex and "/" in value)
    if spans:
        return "/".join(quote(part, safe=SEGMENT_SAFE) for part in value.split("/"))
    return quote(value, safe=SEGMENT_SAFE)


def _value_check(token: _Token, value: str) -> None:
    if token.regex:
        try:
            matched = re.fullmatch(token.regex, value)
        except re.error:
            raise RoutePathRejected("bad_template", f"regex of :{token.name}") from None
        if matched is None:
            raise RoutePathRejected("parameter_mismatch", f":{token.name} must match {token.regex}")


def path_build(template: str, params: Mapping[str, Any]) -> str:
    """Fill a Hono route template and confine the result; ``RoutePathRejected`` when a required
    parameter is missing, a value breaks its regex, or an optional one is skipped before a given
    one (Hono only lets trailing optionals go)."""
    values = {k: str(v) for k, v in params.items() if v is not None and str(v) != ""}
    out: list[str] = []
    skipped = ""
    for token in _template_tokens(template):
        if not token.name:
            if skipped:
                raise RoutePathRejected("parameter_gap", f":{skipped} is needed before {token}")
            out.append(token.literal)
            continue
        value = values.pop(token.name, None)
        if value is None:
            if not token.optional:
                raise RoutePathRejected("missing_parameter", f":{token.name} is required")
            skipped = skipped or token.name
            continue
        if skipped:
            raise RoutePathRejected("parameter_gap", f":{token.name} given but :{skipped} not")
        _value_check(token, value)
        out.append(_value_encode(token, value))
    if values:
        raise RoutePathRejected("unknown_parameter", ", ".join(sorted(values)))
    return path_confine("/" + "/".join(out))


def _token_pattern(token: _Token) -> str:
    if not token.name:
        return "/" + re.escape(token.literal)
    if token.name == "*":
        return "(?:/.*)?"
    inner = f"(?:{token.regex})" if token.regex else "[^/]+"
    return f"(?:/{inner})?" if token.optional else f"/{inner}"


def template_compile(route_id: int, template: str, enabled: bool) -> RouteTemplate | None:
    try:
        tokens = _template_tokens(template)
        pattern = re.compile("".join(_token_pattern(t) for t in tokens) + "/?")
    except (RoutePathRejected, re.error):
        return None
    literals = sum(1 for t in tokens if not t.name)
    constrained = sum(1 for t in tokens if t.regex)
    required = sum(1 for t in tokens if t.name and not t.optional)
    # Static segments beat parameters, as in Hono; enabled routes beat disabled ones.
    specificity = (int(enabled), literals, constrained, required, -len(tokens))
    return RouteTemplate(route_id, template, enabled, pattern, specificity)


def _templates_load(namespace: str) -> list[RouteTemplate]:
    from catalog.models import Route, UpstreamState

    rows = Route.objects.filter(
        platform__namespace=namespace, upstream_state=UpstreamState.PRESENT
    ).values_list("id", "path", "enabled")
    compiled = (template_compile(*row) for row in rows)
    return sorted((t for t in compiled if t), key=lambda t: t.specificity, reverse=True)


def _match_text(canonical: str) -> str:
    # Decode everything but an encoded "/" (Hono routes on decodeURI's output, which keeps it).
    kept = re.sub(r"%2[Ff]", "%252F", canonical)
    return unquote(kept)


def route_for_path(canonical: str) -> RouteTemplate | None:
    """The catalog route a canonical path falls under, best match first (static segments beat
    parameters, enabled beats disabled), or None when no template of its namespace fits."""
    namespace = path_namespace(canonical, namespaces_known())
    if namespace is None:
        return None
    text = _match_text(canonical)
    templates = _catalog_cache.get(("routes", namespace), lambda: _templates_load(namespace))
    return next((t for t in templates if t.pattern.fullmatch(text)), None)


def route_template_lookup(template: str) -> RouteTemplate | None:
    """The catalog route whose template is exactly ``template`` (RSSHub's ``x-rsshub-route``)."""
    if not template.startswith("/"):
        return None
    namespaces = namespaces_known()
    first_two = "/".join(template[1:].split("/")[:2])
    namespace = first_two if first_two in namespaces else template[1:].split("/")[0]
    if namespace not in namespaces:
        return None
    templates = _catalog_cache.get(("routes", namespace), lambda: _templates_load(namespace))
    return next((t for t in templates if t.template == template), None)


def template_parameters(template: str) -> list[tuple[str, str, bool]]:
    """(name, regex, optional) of each parameter of a Hono template, in path order."""
    return [(t.name, t.regex, t.optional) for t in _template_tokens(template) if t.name]


def rest_parameters(template: str) -> set[str]:
    """The parameters of a Hono template that take the rest of a path (``:path{.+}``)."""
    return {name for name, regex, _optional in template_parameters(template) if "." in regex}


def template_values(template: str, path: str) -> dict[str, str]:
    """The parameter values a concrete (decoded) path gives a template; {} when it does not fit.

    The wildcard ``*`` is reported under the name ``*``.
    """
    groups: dict[str, str] = {}
    parts = []
    for index, token in enumerate(_template_tokens(template)):
        if not token.name:
            parts.append(_token_pattern(token))
            continue
        group = f"p{index}"
        groups[group] = token.name
        inner = ".*" if token.name == "*" else (token.regex or "[^/]+")
        slash = "/" if token.name != "*" else "/?"
        parts.append(f"(?:{slash}(?P<{group}>{inner})){'?' if token.optional else ''}")
    try:
        match = re.fullmatch("".join(parts) + "/?", path)
    except re.error:
        return {}
    if match is None:
        return {}
    return {groups[g]: v for g, v in match.groupdict().items() if v}
