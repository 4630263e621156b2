"""What one path's fetch hands back (``FetchResult``), and the records a batch passes between
deciding (``fetching.services``), sharing (``fetching.flight``) and writing
(``fetching.recording``) it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from fetching.client import RSSHubResponse
from fetching.models import Feed, Outcome
from fetching.outcomes import Verdict, message_clean
from fetching.parsing import ParsedFeed
from fetching.paths import RoutePathRejected

if TYPE_CHECKING:
    from fetching.instances import InstanceRef


@dataclass(frozen=True)
class FetchResult:
    """The end of one path's fetch. ``items_new`` were stored by this attempt; ``items_seen``
    were in the answer and already stored (so the answer held ``items_new + items_seen``).
    ``item_ids``: the answer's items (for a 304, or an answer served from an earlier fetch, the
    feed's newest stored ones). ``fetch_age_s`` is set when no request was made for this result:
    it is the answer of a fetch that ended that many seconds earlier (within the path's
    freshness window, or the fetch of another run this one waited for). ``instance``: the name
    of the RSSHub instance that answered (never its address or key); ``failed_over``: the
    instances tried before it that failed on their own (``fetching.failover``)."""

    path: str
    outcome: Outcome
    transient: bool
    http_status: int | None = None
    items_new: int = 0
    items_seen: int = 0
    latency_ms: int = 0
    message: str = ""
    retry_after: int | None = None
    feed_id: int | None = None
    item_ids: tuple[int, ...] = ()
    route_id: int | None = None
    attempt_id: int | None = None
    circuit_open: bool = False
    reason: str = ""  # "egress": RSSHub cannot reach the internet (fetching.egress)
    fetch_age_s: int | None = None
    instance: str = ""
    failed_over: tuple[str, ...] = ()
    # A forced refresh was asked and refused: the path was fetched by force less than
    # ``FORCED_REFRESH_PATH_SECONDS`` ago, so the freshness window served it (fetching.flight).
    refresh_limited: bool = False

    @property
    def ok(self) -> bool:
        return self.outcome in (Outcome.OK, Outcome.NOT_MODIFIED)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["outcome"] = str(self.outcome)
        data["item_ids"] = list(self.item_ids)
        data["failed_over"] = list(self.failed_over)
        return data


class Claims(Protocol):
    """A path's claim (``fetching.flight``: on the path's row, or in Redis)."""

    given_back_by_recording: bool  # recording an attempt's answer also gives the claim back

    def take(self, path: str, token: str, *, now: datetime, seen: datetime | None) -> bool: ...

    def give_back(self, path: str, token: str) -> None: ...


@dataclass(frozen=True)
class Ticket:
    """What a run got for a path: an answer to serve (no request), or the claim to fetch it."""

    result: FetchResult | None = None
    token: str = ""
    claims: Claims | None = None

    def given_back_with(self, result: FetchResult) -> bool:
        """Whether recording ``result`` gave the claim back (a database claim, recorded)."""
        return bool(self.claims and self.claims.given_back_by_recording) and (
            result.attempt_id is not None
        )


@dataclass
class Plan:
    """One path of a batch, as decided before sending."""

    raw: str
    path: str = ""
    route_id: int | None = None
    route_pinned: bool = False  # the caller named the route: credit it, whatever RSSHub says
    feed: Feed | None = None  # as read before sending (validators, title, link)
    probe_at: datetime | None = None
    window_s: float = 0.0  # the path's freshness window (fetching.flight)
    refresh: bool = False  # fetched by force: only an answer ending after the run asked serves
    refresh_limited: bool = False  # a forced refresh was asked and refused (fetching.flight)
    namespace: str = ""
    instances: list[InstanceRef] = field(default_factory=list)  # best first (fetching.instances)
    ticket: Ticket | None = None  # the path's claim, once taken (fetching.flight)
    result: FetchResult | None = field(default=None, repr=False)  # decided before sending

    @property
    def feed_id(self) -> int | None:
        return self.feed.pk if self.feed else None

    @property
    def claim_token(self) -> str:
        return self.ticket.token if self.ticket else ""


@dataclass
class Done:
    """A finished request, waiting to be written."""

    plan: Plan
    verdict: Verdict
    latency_ms: int
    response: RSSHubResponse | None = None
    parsed: ParsedFeed | None = None
    instance: InstanceRef | None = None  # the instance asked (None: nothing was sent)
    # The tries before this one that failed on their instance's own fault, written with it.
    failovers: list[Done] = field(default_factory=list)


def _storable(raw: str) -> str:
    """A refused path as it may be stored and shown: no control characters, bounded."""
    return message_clean(repr(raw)[1:-1], limit=1000)


def result_rejected(raw: str, exc: RoutePathRejected) -> FetchResult:
    return FetchResult(
        path=_storable(raw),
        outcome=Outcome.REJECTED,
        transient=False,
        message=message_clean(f"path refused: {exc}"),
    )
