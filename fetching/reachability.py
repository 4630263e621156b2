"""Is an RSSHub instance reachable, and how fast: one probe of its ``/healthz`` through the one
client.

``instance_probe`` is the only probe: a failover asks it whether a failure was the instance's
own, the status API and the dashboard's banner ask it of every instance
(``instances_reachability``; the banner through ``instances_status``, which remembers the answers
in ``fetching.status`` so that a page view does not wait on RSSHub), and ``manage.py serve``
waits on it (``rsshub_reachability``). The client adds the access key below its logs; no answer
here holds an instance's key, and only ``InstanceStatus.host`` (for staff) its address.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass

from asgiref.sync import async_to_sync
from django.conf import settings
from django.utils import timezone

from fetching.client import FetchFailed, RSSHubClient
from fetching.instances import instance_reachability_record, instances_read
from fetching.paths import RoutePathRejected
from fetching.status import rsshub_status_remember, rsshub_status_remembered

PROBE_PATH = "/healthz"
PROBE_TIMEOUT = 2.0  # seconds, for connecting and for the whole answer


@dataclass(frozen=True)
class RSSHubReachability:
    ok: bool  # RSSHub answered its health check with a 2xx
    http_status: int | None
    latency_ms: int | None
    detail: str  # short, for people: "reachable", "answered HTTP 503", "timeout: ..."

    @property
    def instance_to_blame(self) -> bool:
        """Whether a failure next to this probe is the instance's own: it gave no answer, an
        error of its own (5xx) or refused our key. A 404 is an answer: a server that lacks the
        route (a proxy, an old RSSHub) is up, so the failure stays the route's."""
        status = self.http_status
        return status is None or status >= 500 or status in (401, 403)


async def instance_probe(
    base_url: str, access_key: str, *, timeout: float = PROBE_TIMEOUT
) -> RSSHubReachability:
    """Ask one instance for ``/healthz`` now, within ``timeout`` seconds. Never raises."""
    try:
        async with RSSHubClient(
            base_url=base_url, access_key=access_key, timeout=timeout, connect_timeout=timeout
        ) as client:
            response = await client.get(PROBE_PATH)
    except FetchFailed as exc:
        detail = f"{exc.outcome}: {exc.message}"
        return RSSHubReachability(False, exc.http_status, exc.latency_ms or None, detail)
    except RoutePathRejected:  # cannot happen for a fixed path; the client's contract
        return RSSHubReachability(False, None, None, "refused")
    except OSError as exc:  # the client maps transport failures; this is a last guard
        return RSSHubReachability(False, None, None, f"unreachable ({type(exc).__name__})")
    ok = 200 <= response.status < 300
    detail = "reachable" if ok else f"answered HTTP {response.status}"
    return RSSHubReachability(ok, response.status, response.latency_ms, detail)


def rsshub_reachability(
    *, base_url: str = "", access_key: str | None = None, timeout: float = PROBE_TIMEOUT
) -> RSSHubReachability:
    """Probe one instance (by default the first the environment lists, ``RSSHUB_URL``)."""
    key = settings.RSSHUB_ACCESS_KEY if access_key is None else access_key
    return async_to_sync(instance_probe)(base_url or settings.RSSHUB_URL, key, timeout=timeout)


@dataclass(frozen=True)
class InstanceStatus:
    """One enabled instance as the banner and the status API show it: never its key."""

    id: int
    name: str
    host: str  # for staff only
    ok: bool
    http_status: int | None
    latency_ms: int | None
    detail: str
    circuit: str

    def as_dict(self) -> dict:
        return asdict(self)


def _statuses_probe() -> list[InstanceStatus]:
    rows = [row for row in instances_read() if row.enabled]

    async def probe_all():
        return await asyncio.gather(*(instance_probe(r.base_url, r.access_key) for r in rows))

    probes = async_to_sync(probe_all)()
    now = timezone.now()
    statuses = []
    for row, probe in zip(rows, probes, strict=True):
        instance_reachability_record(row.pk, reachable=probe.ok, now=now)
        statuses.append(
            InstanceStatus(
                row.pk,
                row.label,
                row.host,
                probe.ok,
                probe.http_status,
                probe.latency_ms,
                probe.detail,
                row.circuit,
            )
        )
    return statuses


def instances_reachability() -> list[InstanceStatus]:
    """Probe every enabled instance now, side by side (so the slowest bounds the wait), and
    record each answer on its row (``reachable``)."""
    return _statuses_probe()


def instances_status() -> list[InstanceStatus]:
    """Every enabled instance's reachability as remembered for the dashboard's banner: probed
    at most every ``RSSHUB_UP_SECONDS`` (``RSSHUB_DOWN_SECONDS`` while one is down), and
    forgotten at once when a fetch finds an instance unreachable (``fetching.status``)."""
    remembered = rsshub_status_remembered()
    if remembered is None:
        remembered = _statuses_probe()
        rsshub_status_remember(remembered, answers=all(s.ok for s in remembered))
    return remembered


def rsshub_answers() -> bool:
    """Whether some enabled instance answers its health check (as remembered)."""
    return any(status.ok for status in instances_status())
