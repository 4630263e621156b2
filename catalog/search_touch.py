"""Catalog writes that leave the search text as it was: the index is kept, not rebuilt.

Staff enabling, disabling or preferring a route (``catalog.services``) moves its ``updated_at``,
and with it the catalog's text signature (``selectors.catalog_search_version``), which used to
rebuild every process's index from scratch for one click (seconds for the snapshot, half a
minute at ten times its size). Now the rows whose ``updated_at`` moved past the index's own are
read (at most ``TOUCH_LIMIT`` of them), and when each one's search text is what the index was
built from (a digest per row, taken at the build), the index takes the new signature as its own
and only its curation is reloaded. A change of text (an import, an alias edit, a new or removed
row) still rebuilds.
"""

import hashlib
from typing import Any

from catalog import selectors

TOUCH_LIMIT = 50


def row_digest(row: tuple) -> int:
    """A digest of a text row (``selectors.PlatformRow``/``RouteRow``), the same in every process
    (``hash`` is salted per process; these digests are stored with the index file)."""
    digest = hashlib.blake2b(repr(tuple(row)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def row_digests(platforms, routes) -> tuple[dict[int, int], dict[int, int]]:
    return {p.id: row_digest(p) for p in platforms}, {r.id: row_digest(r) for r in routes}


def index_touch(index: Any, text: tuple) -> bool:
    """True when ``text`` (a new text signature) differs from the index's only by rows whose
    search text is unchanged; the index then carries ``text`` as its version."""
    old = index.version
    if index.digests is None or len(old) != 5 or len(text) != 5:
        return False
    platform_n, platform_at, aliases, route_n, route_at = old
    if (platform_n, aliases, route_n) != (text[0], text[2], text[3]):
        return False  # rows came or went, or an alias changed: the text did change
    if _earlier(text[1], platform_at) or _earlier(text[4], route_at):
        return False  # rows newer than the index went away (a rolled-back write)
    changed = selectors.text_rows_since(
        platforms_at=platform_at, routes_at=route_at, limit=TOUCH_LIMIT
    )
    if changed is None:
        return False
    platform_digests, route_digests = index.digests
    platforms, routes = changed
    if any(platform_digests.get(row.id) != row_digest(row) for row in platforms):
        return False
    if any(route_digests.get(row.id) != row_digest(row) for row in routes):
        return False
    index.version = text
    return True


def _earlier(new, old) -> bool:
    return old is not None and (new is None or new < old)
