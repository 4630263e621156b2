"""Catalog import: converge the Platform and Route tables on RSSHub's ``/api/namespace``.

The source is a file (``catalog_read_file``) or RSSHub itself, downloaded through the one RSSHub
client (``fetching.catalog_download``); either way ``catalog_decode`` reads the bytes.

``catalog_import(data)`` computes the desired upstream state, applies only the difference in one
transaction, and never writes a curated field (enabled, priority, aliases, note) of a row that
already exists. Running it twice with the same input writes nothing the second time.
"""

import gzip
import io
import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from catalog.aliases import STARTING_ALIASES
from catalog.models import Platform, Route, UpstreamState

MAX_SOURCE_BYTES = 256 * 1024 * 1024  # the real snapshot is 3.8 MB; this bounds a gzip bomb
NAMESPACE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9._-]+)*$")
# A route key: starts with "/", then Hono syntax; no whitespace, control characters, "//" or "..".
ROUTE_KEY_RE = re.compile(r"^/[^\s\x00-\x1f\x7f\\]*$")

TRANSLATION_KEYS = ("zh", "zh-TW", "ja", "en")


class CatalogSourceError(Exception):
    """The catalog source cannot be used; nothing was written."""


@dataclass
class ImportCounts:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0


@dataclass
class ImportReport:
    platforms: ImportCounts = field(default_factory=ImportCounts)
    routes: ImportCounts = field(default_factory=ImportCounts)
    skipped: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(c.added or c.updated or c.removed for c in (self.platforms, self.routes))


# --- Reading a source ---------------------------------------------------------------------------


def catalog_decode(raw: bytes, *, origin: str) -> dict[str, Any]:
    """Bytes (plain or gzip JSON) -> the namespace mapping, or ``CatalogSourceError``."""
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip_bounded(raw, origin=origin)
    if not raw.strip():
        raise CatalogSourceError(f"{origin}: empty body, expected RSSHub's namespace JSON")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CatalogSourceError(f"{origin}: not JSON ({exc})") from None
    if not isinstance(data, dict) or not data:
        kind = type(data).__name__
        raise CatalogSourceError(
            f"{origin}: wrong shape, expected a non-empty object of namespaces, got {kind}"
        )
    return data


def _gunzip_bounded(raw: bytes, *, origin: str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
            out = stream.read(MAX_SOURCE_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise CatalogSourceError(f"{origin}: broken gzip ({exc})") from None
    if len(out) > MAX_SOURCE_BYTES:
        raise CatalogSourceError(f"{origin}: decompresses past {MAX_SOURCE_BYTES} bytes")
    return out


def catalog_read_file(path: Path) -> dict[str, Any]:
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            raise CatalogSourceError(f"{path}: larger than {MAX_SOURCE_BYTES} bytes")
        raw = path.read_bytes()
    except OSError as exc:
        raise CatalogSourceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return catalog_decode(raw, origin=str(path))


# --- From upstream JSON to desired rows ---------------------------------------------------------


def _text(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _string_list(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _translations(entry: dict[str, Any]) -> dict[str, dict[str, str]]:
    found = {}
    for lang in TRANSLATION_KEYS:
        value = entry.get(lang)
        if isinstance(value, dict):
            found[lang] = {k: v for k, v in value.items() if isinstance(v, str)}
    return found


def platform_fields(namespace: str, entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": _text(entry.get("name"), 300) or namespace,
        "url": _text(entry.get("url"), 500),
        "lang": _text(entry.get("lang"), 20),
        "categories": _string_list(entry.get("categories")),
        "description": _text(entry.get("description"), 20_000),
        "translations": _translations(entry),
    }


def _mandatory_config(features: dict[str, Any]) -> list[str]:
    required = features.get("requireConfig")
    if not isinstance(required, list):
        return []
    return [
        item["name"]
        for item in required
        if isinstance(item, dict) and isinstance(item.get("name"), str) and not item.get("optional")
    ]


def _disabled_reason(*, config: list[str], browser: bool, nsfw: bool) -> str:
    reasons = []
    if config:
        reasons.append("needs config " + ", ".join(config))
    if browser:
        reasons.append("needs a browser (Puppeteer)")
    if nsfw:
        reasons.append("nsfw")
    return "; ".join(reasons)[:300]


def route_full_path(namespace: str, key: str) -> str:
    return f"/{namespace}" if key == "/" else f"/{namespace}{key}"


def route_key_normalise(key: Any) -> Any:
    """Upstream writes a few keys without the leading "/" (and one as ""): same route."""
    if isinstance(key, str) and not key.startswith("/"):
        return "/" + key
    return key


def route_key_problem(key: Any) -> str | None:
    """Why a route key cannot be imported, or None when it is well formed."""
    if not isinstance(key, str) or not ROUTE_KEY_RE.match(key):
        return "path holds whitespace, control characters or a backslash"
    if "//" in key or ".." in key:
        return "path holds // or .."
    if key.count("{") != key.count("}") or key.count("(") != key.count(")"):
        return "path has unbalanced brackets"
    if len(key) > 480:
        return "path is too long"
    return None


def route_fields(entry: dict[str, Any], key: str) -> dict[str, Any]:
    features = entry.get("features") if isinstance(entry.get("features"), dict) else {}
    config = _mandatory_config(features)
    browser = features.get("requirePuppeteer") is True
    nsfw = features.get("nsfw") is True
    parameters = entry.get("parameters")
    view = entry.get("view")
    return {
        "key": key,
        "name": _text(entry.get("name"), 500) or key,
        "description": _text(entry.get("description"), 50_000),
        "example": _text(entry.get("example"), 1000),
        "url": _text(entry.get("url"), 500),
        "parameters": parameters if isinstance(parameters, dict) else {},
        "features": features,
        "categories": _string_list(entry.get("categories")),
        "radar": entry.get("radar") if isinstance(entry.get("radar"), list) else [],
        "translations": _translations(entry),
        "view": view if isinstance(view, int) and 0 <= view < 100 else None,
        "require_config": bool(config),
        "config_variables": config,
        "require_browser": browser,
        "anti_crawler": features.get("antiCrawler") is True,
        "nsfw": nsfw,
        "import_disabled_reason": _disabled_reason(config=config, browser=browser, nsfw=nsfw),
    }


@dataclass
class DesiredCatalog:
    platforms: dict[str, dict[str, Any]]
    routes: dict[str, dict[str, Any]]  # full path -> fields
    route_namespaces: dict[str, str]  # full path -> namespace
    skipped: list[str]


def catalog_desired(data: dict[str, Any]) -> DesiredCatalog:
    """Validate the upstream mapping; skip and list single malformed namespaces or routes."""
    desired = DesiredCatalog(platforms={}, routes={}, route_namespaces={}, skipped=[])
    for namespace, entry in data.items():
        if not NAMESPACE_RE.match(namespace) or len(namespace) > 100:
            desired.skipped.append(f"namespace {namespace[:80]!r}: malformed name")
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("routes"), dict):
            desired.skipped.append(f"namespace {namespace!r}: no routes object")
            continue
        desired.platforms[namespace] = platform_fields(namespace, entry)
        for raw_key, route in entry["routes"].items():
            key = route_key_normalise(raw_key)
            problem = route_key_problem(key)
            if problem is None and not isinstance(route, dict):
                problem = "route is not an object"
            if problem:
                desired.skipped.append(f"route /{namespace}{str(key)[:80]!r}: {problem}")
                continue
            path = route_full_path(namespace, key)
            if path in desired.routes:
                desired.skipped.append(f"route {path!r}: duplicate full path")
                continue
            desired.routes[path] = route_fields(route, key)
            desired.route_namespaces[path] = namespace
    if not desired.routes:
        raise CatalogSourceError(
            "wrong shape: no well-formed routes found"
            + (f" ({len(desired.skipped)} entries skipped)" if desired.skipped else "")
        )
    return desired


# --- Applying the difference --------------------------------------------------------------------


def _changed_fields(row: Any, fields: dict[str, Any]) -> tuple[str, ...]:
    changed = tuple(name for name, value in fields.items() if getattr(row, name) != value)
    if row.upstream_state != UpstreamState.PRESENT:
        changed += ("upstream_state",)
    return changed


def _converge(
    model: type[Platform] | type[Route],
    key: str,
    desired: dict[str, dict[str, Any]],
    new_row: Callable[[str, dict[str, Any]], Any],
    counts: ImportCounts,
) -> None:
    """Apply the difference between ``desired`` (key -> upstream fields) and the table.

    Updates are grouped by the set of fields that changed, so a typical upstream change
    rewrites a few columns of a few rows; vanished rows get one UPDATE of their state.
    """
    now = timezone.now()
    existing = {getattr(row, key): row for row in model.objects.all()}
    to_create, to_update = [], defaultdict(list)
    for value, fields in desired.items():
        row = existing.get(value)
        if row is None:
            to_create.append(new_row(value, fields))
        elif changed := _changed_fields(row, fields):
            for name, field_value in fields.items():
                setattr(row, name, field_value)
            row.upstream_state, row.updated_at = UpstreamState.PRESENT, now
            to_update[changed].append(row)
    gone = [
        row.id
        for value, row in existing.items()
        if value not in desired and row.upstream_state != UpstreamState.REMOVED
    ]
    model.objects.bulk_create(to_create, batch_size=500)
    for changed, rows in to_update.items():
        model.objects.bulk_update(rows, [*changed, "upstream_state", "updated_at"], batch_size=500)
    if gone:
        model.objects.filter(id__in=gone).update(
            upstream_state=UpstreamState.REMOVED, updated_at=now
        )
    counts.added, counts.removed = len(to_create), len(gone)
    counts.updated = sum(len(rows) for rows in to_update.values())
    counts.unchanged = len(desired) - counts.added - counts.updated


def _new_platform(namespace: str, fields: dict[str, Any]) -> Platform:
    aliases = STARTING_ALIASES.get(namespace, [])
    return Platform(namespace=namespace, aliases=aliases, **fields)


def catalog_import(data: dict[str, Any]) -> ImportReport:
    """Converge the catalog on ``data`` (the ``/api/namespace`` mapping) in one transaction."""
    desired = catalog_desired(data)
    report = ImportReport(skipped=desired.skipped)
    with transaction.atomic():
        _converge(Platform, "namespace", desired.platforms, _new_platform, report.platforms)
        platforms = {p.namespace: p for p in Platform.objects.all()}

        def new_route(path: str, fields: dict[str, Any]) -> Route:
            namespace = desired.route_namespaces[path]
            enabled = not fields["import_disabled_reason"]
            return Route(path=path, platform=platforms[namespace], enabled=enabled, **fields)

        _converge(Route, "path", desired.routes, new_route, report.routes)
    return report
