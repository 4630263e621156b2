"""Is RSSHub reachable, and how fast: one probe of its ``/healthz`` through the one client.

``rsshub_reachability`` is the only probe: the status API reports it, ``manage.py serve`` waits
on it, and the dashboard's banner reads it through ``rsshub_answers``, which remembers the
answer (``fetching.status``) so that a page view does not wait on RSSHub. The client adds the
access key below its logs; no answer here holds RSSHub's address or key.
"""

from dataclasses import dataclass

from asgiref.sync import async_to_sync

from fetching.client import FetchFailed, RSSHubClient
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


async def _probe(timeout: float) -> RSSHubReachability:
    async with RSSHubClient(timeout=timeout, connect_timeout=timeout) as client:
        try:
            response = await client.get(PROBE_PATH)
        except FetchFailed as exc:
            detail = f"{exc.outcome}: {exc.message}"
            return RSSHubReachability(False, exc.http_status, exc.latency_ms or None, detail)
        except RoutePathRejected:  # cannot happen for a fixed path; the client's contract
            return RSSHubReachability(False, None, None, "refused")
    ok = 200 <= response.status < 300
    detail = "reachable" if ok else f"answered HTTP {response.status}"
    return RSSHubReachability(ok, response.status, response.latency_ms, detail)


def rsshub_reachability(*, timeout: float = PROBE_TIMEOUT) -> RSSHubReachability:
    """Ask the configured RSSHub for ``/healthz`` now, within ``timeout`` seconds. Never raises."""
    try:
        return async_to_sync(_probe)(timeout)
    except OSError as exc:  # the client maps transport failures; this is a last guard
        return RSSHubReachability(False, None, None, f"unreachable ({type(exc).__name__})")


def rsshub_answers() -> bool:
    """Whether RSSHub answers its health check, as remembered for the dashboard's banner: a
    probe at most every ``RSSHUB_UP_SECONDS`` (``RSSHUB_DOWN_SECONDS`` while it is down), and
    forgotten at once when a fetch finds RSSHub unreachable (``fetching.status``)."""
    answer = rsshub_status_remembered()
    if answer is None:
        answer = rsshub_reachability().ok
        rsshub_status_remember(answer)
    return answer
