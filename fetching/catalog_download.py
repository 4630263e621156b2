"""RSSHub's catalog, downloaded through the one RSSHub client: ``GET {base}/api/namespace``.

The client confines the request to the base URL's origin and path (redirects too), keeps the
access key out of logs and messages, decodes gzip itself within the byte cap, and ends the whole
request at its deadline. ``catalog.importer`` decodes the JSON and converges the tables; every
refusal here is its ``CatalogSourceError``, so a caller handles one kind of failure.

``catalog_import_from_instances`` reads every enabled instance side by side, converges the
catalog on what they serve together (a namespace several serve is taken from the preferred one),
and records which instance serves which namespace (``RSSHubInstance.platforms``): a path is
never sent to an instance that lacks its namespace (``fetching.instances``). An instance that
cannot be read keeps what the last import found on it.
"""

import asyncio
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from django.db import transaction
from django.utils import timezone

from catalog.importer import (
    MAX_SOURCE_BYTES,
    CatalogSourceError,
    ImportReport,
    catalog_decode,
    catalog_import,
)
from catalog.models import Platform
from fetching.client import FetchFailed, RSSHubClient, RSSHubResponse
from fetching.instances import instances_read
from fetching.models import Outcome, RSSHubInstance
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


@dataclass
class InstancesCatalog:
    """What the instances served: the merged namespace mapping, the namespaces each instance
    serves (by id), and why the others could not be read (by name)."""

    data: dict[str, Any] = field(default_factory=dict)
    served: dict[int, set[str]] = field(default_factory=dict)
    labels: dict[int, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)


async def _download_all(rows: list[RSSHubInstance]) -> list:
    async def one(row: RSSHubInstance):
        try:
            return await _download(row.base_url, row.access_key, TIMEOUT, MAX_SOURCE_BYTES)
        except (FetchFailed, RoutePathRejected) as exc:
            return exc

    return await asyncio.gather(*(one(row) for row in rows))


def _decoded(row: RSSHubInstance, answer) -> dict[str, Any]:
    origin = f"{row.label} {NAMESPACE_PATH}"  # the name, not the address: it goes to output
    if isinstance(answer, FetchFailed):
        raise CatalogSourceError(f"{origin}: {_failure(answer, TIMEOUT, MAX_SOURCE_BYTES)}")
    if isinstance(answer, RoutePathRejected):
        raise CatalogSourceError(f"{origin}: refused ({answer.reason})")
    if answer.status != 200:
        raise CatalogSourceError(f"{origin}: HTTP {answer.status}")
    return catalog_decode(answer.body, origin=origin)


def catalog_fetch_instances() -> InstancesCatalog:
    """Every enabled instance's catalog, downloaded side by side, best priority first."""
    rows = [row for row in instances_read() if row.enabled]
    answers = async_to_sync(_download_all)(rows)
    found = InstancesCatalog()
    for row, answer in zip(rows, answers, strict=True):
        try:
            data = _decoded(row, answer)
        except CatalogSourceError as exc:
            found.failed[row.label] = str(exc)
            continue
        found.served[row.pk], found.labels[row.pk] = set(data), row.label
        for namespace, entry in data.items():
            found.data.setdefault(namespace, entry)
    return found


def instance_namespaces_record(served: dict[int, set[str]]) -> None:
    """Which namespaces each instance that was read serves (only those now in the catalog)."""
    now = timezone.now()
    with transaction.atomic():
        for instance_id, namespaces in served.items():
            instance = RSSHubInstance.objects.get(pk=instance_id)
            platforms = Platform.objects.filter(namespace__in=namespaces).values_list(
                "pk", flat=True
            )
            instance.platforms.set(list(platforms))
            RSSHubInstance.objects.filter(pk=instance_id).update(catalog_read_at=now)


def catalog_import_from_instances() -> tuple[ImportReport, InstancesCatalog]:
    """Converge the catalog on every instance that could be read, then record which serves
    what; ``CatalogSourceError`` (nothing written) when none could be read."""
    found = catalog_fetch_instances()
    if not found.served:
        reasons = "; ".join(found.failed.values()) or "no RSSHub instance is enabled"
        raise CatalogSourceError(f"no RSSHub instance could be read: {reasons}")
    with transaction.atomic():
        report = catalog_import(found.data)
        instance_namespaces_record(found.served)
    return report, found
