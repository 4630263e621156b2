"""Fetch once, serve many: the freshness window and the single-flight claim of a path.

Every run fetching its paths itself makes cost grow with users: ten people asking about 36kr in
the same second make ten requests for ``/36kr/newsflashes``, each a scrape of the source site that
spends its patience (rate limits, bans) for every user. So a path is fetched once for all the runs
that need it at about the same time, the way feed readers poll a feed once for all subscribers:

- **Freshness window.** A path whose last fetch ended in a success or a *semantic* failure (not
  found, needs config, ...: ``fetching.outcomes``) less than its window ago is served from what
  that fetch stored, with no request; the result says how old that fetch is (``fetch_age_s``).
  The window is ``FETCH_FRESH_SECONDS``, or longer when the route carries one (staff curate
  ``Route.fresh_seconds``) or the feed's own ``<ttl>`` asks for one (capped at ``FEED_TTL_CAP``).
  A *transient* failure (timeout, 5xx, rate limited, RSSHub down, its egress down) is not
  remembered: the next run asks again, under the router's retry rules. Questions about "now" or
  "latest" accept the window like any other: a fetch a minute old is as new as they can get
  without costing the source a scrape per asker. ``refresh`` (staff, the API) accepts only an
  answer that ends after it asked.
- **Forced refreshes per path.** However many users ask ``refresh`` for one path, it is fetched
  by force at most once per ``FORCED_REFRESH_PATH_SECONDS`` (a compare-and-set on the row's
  ``forced_at``); the other runs take it as a plain fetch, served from the window, and their
  result says so (``refresh_limited``). So RSSHub sees at most one forced request per path and
  period from this service, whatever the number of askers.
- **Single flight.** The runs that need a path no fresh answer covers race for its claim. One
  wins and fetches; the others poll the path's ``PathFetch`` row and take the winner's answer,
  whatever it is (a transient failure too: it is just as much theirs), within their own deadline.
  The claim is a compare-and-set on that row, or ``SET NX`` in Redis when ``REDIS_URL`` is set
  (the database stays the fallback when Redis fails). Either way it expires after
  ``FETCH_CLAIM_SECONDS``, so a fetcher that crashed holds the path no longer: a waiter then
  claims it and fetches. A claim is taken only while the row holds the answer its claimant read,
  so no run claims a path whose answer arrived a moment ago.
- **Cost.** The window's read and each path's first claim attempt are part of the batch's one
  database round (``fetching.services``); the answer is written in the transaction that writes
  the attempt (``fetching.recording``), and a database claim is given back by that same
  ``UPDATE``. A Redis claim is given back right after; any claim is given back when the fetch
  failed before it was recorded, or was cancelled.

Ages and windows compare times from each host's clock (aware UTC), as everywhere here.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from datetime import datetime, timedelta
from functools import cache

import redis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db.models import Case, DateTimeField, F, Q, Value, When
from django.utils import timezone

from catalog.models import Route
from fetching.ingest import feed_recent_values
from fetching.models import SUCCESS_OUTCOMES, Outcome, PathFetch
from fetching.outcomes import message_clean
from fetching.parsing import ParsedFeed
from fetching.results import Claims, FetchResult, Plan, Ticket

logger = logging.getLogger(__name__)

FEED_TTL_CAP = 3600  # seconds: a feed's <ttl> may lengthen its window up to this, no further
POLL_FIRST, POLL_MAX = 0.05, 0.5  # seconds between a waiter's looks at the row, growing
# A waiter outlasts one whole claim: when the fetcher died, its claim expires within the wait
# and the waiter takes the path over.
WAIT_SLACK = 5.0
_REDIS_KEY = "rsshub_agent:flight:"
# Give the claim back only if it is still ours (it may have expired and gone to another run).
_REDIS_RELEASE = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
)


# --- The window ----------------------------------------------------------------------------------


def freshness_window(*, route_seconds: int | None, ttl_seconds: int | None) -> float:
    """A path's window in seconds: the setting, or longer when its route or its feed asks.
    A setting of 0 turns the window off (every run asks RSSHub; single flight still folds
    concurrent fetches): an operator's explicit choice outranks the feed's hint."""
    if settings.FETCH_FRESH_SECONDS <= 0:
        return 0.0
    ttl = min(ttl_seconds or 0, FEED_TTL_CAP)
    return max(settings.FETCH_FRESH_SECONDS, route_seconds or 0, ttl)


def feed_ttl_seconds(raw: str) -> int | None:
    """A feed's ``<ttl>`` (minutes) in seconds, capped; None when it is not a plain number."""
    raw = raw.strip()
    if not (raw.isascii() and raw.isdigit()):
        return None
    return min(int(raw) * 60, FEED_TTL_CAP)


def answer_cutoff(since: datetime, window_s: float, *, refresh: bool) -> datetime:
    """The oldest end of a fetch a run that asked at ``since`` accepts without waiting."""
    return since if refresh else since - timedelta(seconds=window_s)


def answer_servable(row: PathFetch, *, since: datetime, cutoff: datetime) -> bool:
    """An answer that ended after the run asked is served whatever it says (the run was waiting
    for it); an older one only when it is a success or a semantic failure within the window."""
    ended = row.answered_at
    if ended is None:
        return False
    return ended >= since or (not row.transient and ended >= cutoff)


def served_result(row: PathFetch, *, now: datetime, refresh_limited: bool = False) -> FetchResult:
    """The answer of the path's last fetch, as this run's result: no request was made."""
    outcome = Outcome(row.outcome)
    ok = outcome in SUCCESS_OUTCOMES and row.feed_id is not None
    return FetchResult(
        path=row.path, outcome=outcome, transient=row.transient, http_status=row.http_status,
        message=row.message, retry_after=row.retry_after, feed_id=row.feed_id,
        item_ids=tuple(pk for (pk,) in feed_recent_values(row.feed_id, "id")) if ok else (),
        route_id=row.route_id, instance=row.instance.label if row.instance_id else "",
        reason=row.reason, fetch_age_s=max(0, int((now - row.answered_at).total_seconds())),
        refresh_limited=refresh_limited,
    )  # fmt: skip


def _rows_ensure(paths: set[str]) -> dict[str, PathFetch]:
    """The paths' rows, created for paths seen the first time (insert-or-nothing, then a read)."""
    # With the instance that answered, so a served answer can say where it came from.
    known = PathFetch.objects.select_related("instance")
    rows = {row.path: row for row in known.filter(path__in=paths)}
    missing = paths - rows.keys()
    if missing:
        PathFetch.objects.bulk_create([PathFetch(path=p) for p in missing], ignore_conflicts=True)
        rows |= {row.path: row for row in known.filter(path__in=missing)}
    return rows


def forced_refresh_take(path: str, *, since: datetime) -> bool:
    """Take the path's forced fetch for this period (compare-and-set); False when another run
    took it less than ``FORCED_REFRESH_PATH_SECONDS`` ago."""
    period = timedelta(seconds=settings.FORCED_REFRESH_PATH_SECONDS)
    free = Q(forced_at__isnull=True) | Q(forced_at__lte=since - period)
    return PathFetch.objects.filter(free, path=path).update(forced_at=since) == 1


def flight_prepare(plans: list[Plan], *, since: datetime, refresh: bool) -> dict[str, PathFetch]:
    """Set each plan's window, whether it is fetched by force, and the result of each path a
    fresh answer covers. Part of the batch's one database round: one read of the rows, one of
    the routes' curated windows (and, for a forced refresh, one claim per path).
    Returns the rows, for ``flight_claims_take``."""
    if not plans:
        return {}
    rows = _rows_ensure({p.path for p in plans})
    for plan in plans if refresh else ():
        plan.refresh = forced_refresh_take(plan.path, since=since)
        plan.refresh_limited = not plan.refresh
    route_ids = {p.route_id for p in plans if p.route_id}
    curated = Route.objects.filter(pk__in=route_ids, fresh_seconds__isnull=False)
    windows = dict(curated.values_list("id", "fresh_seconds"))
    for plan in plans:
        row = rows[plan.path]
        plan.window_s = freshness_window(
            route_seconds=windows.get(plan.route_id), ttl_seconds=row.ttl_seconds
        )
        cutoff = answer_cutoff(since, plan.window_s, refresh=plan.refresh)
        if answer_servable(row, since=since, cutoff=cutoff):
            plan.result = served_result(row, now=since, refresh_limited=plan.refresh_limited)
    return rows


def answers_record(
    answers: list[tuple[FetchResult, ParsedFeed | None, str, int | None]], *, now: datetime
) -> None:
    """Write how each fetch ended on its path's row, for the runs waiting and the ones to come,
    and give back the database claim ``token`` with it when it is still the row's (one
    ``UPDATE`` each, in the caller's transaction). Each answer: the result, the parsed feed,
    the claim's token and the instance that answered."""
    for result, parsed, token, instance_id in answers:
        fields = {
            "answered_at": now, "outcome": result.outcome, "transient": result.transient,
            "http_status": result.http_status, "message": result.message,
            "retry_after": result.retry_after, "reason": result.reason,
            "route_id": result.route_id, "feed_id": result.feed_id, "instance_id": instance_id,
        }  # fmt: skip
        if parsed is not None:  # a 304 keeps the ttl of the last full answer
            fields["ttl_seconds"] = feed_ttl_seconds(parsed.ttl)
        if token:
            fields |= _claim_given_back(token)
        PathFetch.objects.filter(path=result.path).update(**fields)


def _claim_given_back(token: str) -> dict:
    """Column updates that clear the claim only where it is still ``token``'s."""
    mine = Q(claim_token=token)
    return {
        "claim_token": Case(When(mine, then=Value("")), default=F("claim_token")),
        "claim_until": Case(
            When(mine, then=Value(None)), default=F("claim_until"), output_field=DateTimeField()
        ),
    }


# --- The claim -----------------------------------------------------------------------------------


def _claim_lifetime() -> timedelta:
    return timedelta(seconds=settings.FETCH_CLAIM_SECONDS)


class DatabaseClaims:
    """The claim as a compare-and-set on the path's row: free (never taken, or expired) and
    still holding the answer the claimant read."""

    given_back_by_recording = True  # answers_record clears the row's claim with the answer

    def take(self, path: str, token: str, *, now: datetime, seen: datetime | None) -> bool:
        free = Q(claim_until__isnull=True) | Q(claim_until__lte=now)
        unchanged = Q(answered_at__isnull=True) if seen is None else Q(answered_at=seen)
        claimed = PathFetch.objects.filter(free, unchanged, path=path)
        return bool(claimed.update(claim_token=token, claim_until=now + _claim_lifetime()))

    def give_back(self, path: str, token: str) -> None:
        PathFetch.objects.filter(path=path, claim_token=token).update(
            claim_token="", claim_until=None
        )


class RedisClaims:
    """The claim as ``SET NX PX`` on a key per path; the answer stays on the database row."""

    given_back_by_recording = False

    def __init__(self, url: str) -> None:
        self._redis = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)

    @staticmethod
    def key(path: str) -> str:
        return _REDIS_KEY + hashlib.sha256(path.encode()).hexdigest()

    def take(self, path: str, token: str, *, now: datetime, seen: datetime | None) -> bool:
        lifetime_ms = int(_claim_lifetime().total_seconds() * 1000)
        if not self._redis.set(self.key(path), token, nx=True, px=lifetime_ms):
            return False
        # The answer may have arrived between the claimant's read and this claim: no fetch then.
        answered = PathFetch.objects.filter(path=path).values_list("answered_at", flat=True)
        if answered.first() != seen:
            self.give_back(path, token)
            return False
        return True

    def give_back(self, path: str, token: str) -> None:
        self._redis.eval(_REDIS_RELEASE, 1, self.key(path), token)


@cache
def _redis_claims(url: str) -> RedisClaims:
    return RedisClaims(url)


def _claim_try(
    path: str, *, since: datetime, cutoff: datetime, row: PathFetch | None = None
) -> Ticket | None:
    """Serve the path's answer, or claim the path; None while another run holds it. ``row``:
    the path's row as just read, else it is read here."""
    now = timezone.now()
    row = row or _rows_ensure({path})[path]
    if answer_servable(row, since=since, cutoff=cutoff):
        return Ticket(result=served_result(row, now=now))
    token = secrets.token_hex(16)
    claims: Claims = DatabaseClaims()
    if settings.REDIS_URL:
        try:
            redis_claims = _redis_claims(settings.REDIS_URL)
            taken = redis_claims.take(path, token, now=now, seen=row.answered_at)
            return Ticket(token=token, claims=redis_claims) if taken else None
        except redis.RedisError as exc:  # Redis is a help, not a dependency: the row will do
            logger.warning("flight claim of %s falls back to the database: %s", path, exc)
    if claims.take(path, token, now=now, seen=row.answered_at):
        return Ticket(token=token, claims=claims)
    return None


def flight_claims_take(plans: list[Plan], rows: dict[str, PathFetch], *, since: datetime) -> None:
    """Each plan still to fetch tries its path's claim once, in the batch's database round:
    ``plan.ticket`` is the claim, or another run's answer that arrived meanwhile; it stays None
    while another run holds the path (the plan then waits: ``path_acquire``)."""
    for plan in plans:
        cutoff = answer_cutoff(since, plan.window_s, refresh=plan.refresh)
        plan.ticket = _claim_try(plan.path, since=since, cutoff=cutoff, row=rows[plan.path])


def _wait_exceeded(path: str, waited_s: float) -> FetchResult:
    message = f"another run's fetch of this path did not end within {waited_s:.0f} s"
    return FetchResult(
        path=path, outcome=Outcome.TIMEOUT, transient=True, message=message_clean(message)
    )


async def path_acquire(
    path: str, *, since: datetime, cutoff: datetime, wait_s: float | None = None
) -> Ticket:
    """Serve, claim, or wait for the run that holds the path, up to ``wait_s`` (by default
    one claim lifetime and a little: a dead fetcher's claim expires within it)."""
    wait_s = settings.FETCH_CLAIM_SECONDS + WAIT_SLACK if wait_s is None else wait_s
    deadline, pause = time.monotonic() + wait_s, POLL_FIRST
    attempt = sync_to_async(_claim_try)
    while True:
        ticket = await attempt(path, since=since, cutoff=cutoff)
        if ticket is not None:
            return ticket
        if time.monotonic() >= deadline:
            return Ticket(result=_wait_exceeded(path, wait_s))
        await asyncio.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 1.5, POLL_MAX)


async def path_release(path: str, ticket: Ticket) -> None:
    """Give the claim back (shielded: a cancelled run still frees its path at once)."""
    if not ticket.token or ticket.claims is None:
        return
    give_back = sync_to_async(ticket.claims.give_back)
    try:
        await asyncio.shield(give_back(path, ticket.token))
    except redis.RedisError as exc:  # the claim expires by itself
        logger.warning("flight claim of %s not given back: %s", path, exc)
