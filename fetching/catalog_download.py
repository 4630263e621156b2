"""RSSHub's catalog, downloaded through the one RSSHub client: ``GET {base}/api/namespace``.

The client confines the request to the base URL's origin and path (redirects too), keeps the
access key out of logs and messages, decodes gzip itself within the byte cap, and ends the whole
request at its deadline. ``catalog.importer`` decodes the JSON and converges the tables; every
refusal here is its ``CatalogSourceError``, so a caller handles one kind of failure.
"""

from typing import Any

from asgiref.sync import async_to_sync

from catalog.importer import MAX_SOURCE_BYTES, CatalogSourceError, catalog_decode
from fetching.client import FetchFailed, RSSHubClient, RSSHubResponse
from fetching.models import Outcome
from fetching.paths import RoutePathRejected

NAMESPACE_PATH = "/api/namespace"
TIMEOUT = 30.0  # seconds for the whole download: the real catalog is 3.8 MB of JSON
CONNECT_TIMEOUT = 5.0


def catalog_fetch(
    base_url: str, *, access_key: str = "", timeout: float = TIMEOUT, max_bytes: int = 0
) -> dict[str, Any]:
    """The namespace mapping RSSHub at ``base_url`` serves, or ``CatalogSourceError``.

    At most ``max_bytes`` decoded bytes (default ``catalog.importer.MAX_SOURCE_BYTES``); the
    access key goes in the query string and never into an error message."""
    max_bytes = max_bytes or MAX_SOURCE_BYTES
    origin = base_url.rstrip("/") + NAMESPACE_PATH
    try:
        response = async_to_sync(_download)(base_url, access_key, timeout, max_bytes)
    except FetchFailed as exc:
        raise CatalogSourceError(f"{origin}: {_failure(exc, timeout, max_bytes)}") from None
    except RoutePathRejected as exc:
        raise CatalogSourceError(f"{origin}: refused ({exc.reason})") from None
    if response.status != 200:
        raise CatalogSourceError(f"{origin}: HTTP {response.status}")
    return catalog_decode(response.body, origin=origin)


async def _download(
    base_url: str, access_key: str, timeout: float, max_bytes: int
) -> RSSHubResponse:
    async with RSSHubClient(
        base_url=base_url,
        access_key=access_key,
        timeout=timeout,
        connect_timeout=CONNECT_TIMEOUT,
        max_bytes=max_bytes,
    ) as client:
        return await client.get(NAMESPACE_PATH)


def _failure(exc: FetchFailed, timeout: float, max_bytes: int) -> str:
    if exc.outcome == Outcome.RSSHUB_UNAVAILABLE:
        return f"unreachable ({exc.message})"
    if exc.outcome == Outcome.TIMEOUT:
        return f"no complete answer in {timeout:.0f} s"
    if exc.outcome == Outcome.TOO_LARGE:
        return f"body larger than {max_bytes}"
    return f"{exc.outcome}: {exc.message}"
