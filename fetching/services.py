"""Fetching as the rest of the app sees it: paths in, one ``FetchResult`` per path out.

``fetch_paths`` runs a batch concurrently: one database round (confine every path, match its
route, claim circuits, read the feeds' validators), then the requests in parallel, each parsed in
the parse worker pool as it arrives, then the writes (items, the attempt, route health), batched
by ``_Recorder`` so answers that arrive together share a transaction. Every path ends in exactly
one outcome class; nothing raises for a bad path or a failed fetch.

What is written per attempt: one ``FetchAttempt`` row, and one ``UPDATE`` of route health when
the outcome says something about the route (``rsshub_unavailable``, ``rejected`` and a refused
access key do not). A failure where the source gave no answer at all is settled by the egress
guard (``fetching.egress``) before it is written: RSSHub's lost internet access is no route's.
A 304 writes nothing else. A 200 stores new items only, and touches the ``Feed`` row only when
it is new or its ETag / Last-Modified changed.

A route whose circuit is open is not fetched (unless ``force``): its result carries the route's
last error class (so the agent's router treats it as that failure), ``circuit_open=True`` and
``retry_after`` until the circuit may be probed; no attempt row is written, since nothing was
sent. A valid feed with no items is ``empty``: not an error of the route, but the agent got
nothing and should know it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime

from asgiref.sync import async_to_sync, sync_to_async
from django.db import DatabaseError, transaction
from django.utils import timezone

from fetching.client import FetchFailed, RSSHubClient, RSSHubResponse
from fetching.egress import EgressGuard
from fetching.health import (
    Admission,
    HealthRecord,
    circuit_probe_release,
    circuits_admit,
    routes_health_record,
)
from fetching.ingest import (
    FeedRejected,
    ParsedFeed,
    feed_details_update,
    feed_parse,
    feed_parser_warm,
    items_store,
    seen_refresh,
)
from fetching.models import Feed, FetchAttempt, Item, Outcome
from fetching.outcomes import Verdict, message_clean, outcome_is_transient, verdict_for_status
from fetching.paths import RoutePathRejected, path_confine, route_for_path, route_template_lookup

logger = logging.getLogger(__name__)

RECENT_ITEMS = 200  # item ids handed back for a 304 (the feed's newest)


@dataclass(frozen=True)
class FetchResult:
    """The end of one path's fetch. ``items_new`` were stored by this attempt; ``items_seen``
    were in the answer and already stored (so the answer held ``items_new + items_seen``).
    ``item_ids``: the answer's items (for a 304, the feed's newest stored ones)."""

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

    @property
    def ok(self) -> bool:
        return self.outcome in (Outcome.OK, Outcome.NOT_MODIFIED)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["outcome"] = str(self.outcome)
        data["item_ids"] = list(self.item_ids)
        return data


@dataclass
class _Plan:
    raw: str
    path: str = ""
    route_id: int | None = None
    route_pinned: bool = False  # the caller named the route: credit it, whatever RSSHub says
    feed: Feed | None = None  # as read before sending (validators, title, link)
    probe_at: datetime | None = None
    result: FetchResult | None = field(default=None, repr=False)  # decided before sending

    @property
    def feed_id(self) -> int | None:
        return self.feed.pk if self.feed else None


@dataclass
class _Done:
    """A finished request, waiting to be written."""

    plan: _Plan
    verdict: Verdict
    latency_ms: int
    response: RSSHubResponse | None = None
    parsed: ParsedFeed | None = None


def _storable(raw: str) -> str:
    """A refused path as it may be stored and shown: no control characters, bounded."""
    return message_clean(repr(raw)[1:-1], limit=1000)


def _rejected(raw: str, exc: RoutePathRejected) -> FetchResult:
    return FetchResult(
        path=_storable(raw),
        outcome=Outcome.REJECTED,
        transient=False,
        message=message_clean(f"path refused: {exc}"),
    )


# --- Before sending: one database round for the whole batch -------------------------------------


def _plan_confine(raw: str, *, route_id: int | None, allow_disabled: bool) -> _Plan:
    plan = _Plan(raw=raw)
    try:
        plan.path = path_confine(raw, allow_disabled=allow_disabled)
        match = route_for_path(plan.path)
        if route_id is None and match is not None and not match.enabled and not allow_disabled:
            raise RoutePathRejected("route_disabled", f"route {match.template} is disabled")
    except RoutePathRejected as exc:
        plan.result = _rejected(raw, exc)
        return plan
    plan.route_id = route_id or (match.route_id if match else None)
    plan.route_pinned = route_id is not None
    return plan


def _circuit_refusal(plan: _Plan, admission: Admission, now: datetime) -> FetchResult:
    try:
        outcome = Outcome(admission.last_error_class)
    except ValueError:
        outcome = Outcome.UPSTREAM_ERROR
    until = admission.open_until
    wait = math.ceil((until - now).total_seconds()) if until and until > now else 0
    when = until.strftime("%Y-%m-%d %H:%M:%S UTC") if until else "the next probe"
    message = f"circuit open until {when}; last error: {admission.last_error or outcome}"
    return FetchResult(
        path=plan.path,
        outcome=outcome,
        transient=outcome_is_transient(outcome),
        message=message_clean(message),
        retry_after=wait,
        feed_id=plan.feed_id,
        route_id=plan.route_id,
        circuit_open=True,
    )


def _rejections_record(plans: list[_Plan], brief_id: int | None) -> None:
    refused = [p for p in plans if p.result is not None]
    rows = FetchAttempt.objects.bulk_create(
        FetchAttempt(
            path=p.result.path, brief_id=brief_id, outcome=Outcome.REJECTED, transient=False,
            message=p.result.message,
        )
        for p in refused
    )  # fmt: skip
    for plan, row in zip(refused, rows, strict=True):
        plan.result = replace(plan.result, attempt_id=row.pk)


def _circuits_apply(live: list[_Plan], now: datetime) -> None:
    """Refuse plans whose route's circuit is open; give a half-open route's one probe to the
    first plan of the batch that wants it."""
    admissions = circuits_admit({p.route_id for p in live if p.route_id}, now=now)
    probing: set[int] = set()
    for plan in live:
        admission = admissions.get(plan.route_id)
        if admission is None or (admission.allowed and admission.probe_at is None):
            continue
        if admission.allowed and plan.route_id not in probing:
            plan.probe_at = admission.probe_at
            probing.add(plan.route_id)
        else:
            plan.result = _circuit_refusal(plan, admission, now)


def _plans_prepare(
    paths: Sequence[str],
    *,
    brief_id: int | None,
    force: bool,
    route_id: int | None,
    allow_disabled: bool,
) -> list[_Plan]:
    now = timezone.now()
    plans = [_plan_confine(p, route_id=route_id, allow_disabled=allow_disabled) for p in paths]
    _rejections_record(plans, brief_id)
    live = [p for p in plans if p.result is None]
    feeds = Feed.objects.filter(path__in={p.path for p in live}).only(*_FEED_FIELDS)
    by_path = {f.path: f for f in feeds}
    for plan in live:
        plan.feed = by_path.get(plan.path)
    if not force:
        _circuits_apply(live, now)
    return plans


# --- After the answer: classify, store, record ---------------------------------------------------


async def _verdict_for(
    response: RSSHubResponse, fetched_url: str
) -> tuple[Verdict, ParsedFeed | None]:
    status = response.status
    if status == 304:
        return Verdict(Outcome.NOT_MODIFIED, "not modified", status), None
    if not 200 <= status < 300:
        verdict = verdict_for_status(
            status,
            response.body,
            content_type=response.content_type,
            retry_after=response.headers.get("retry-after"),
            route_matched=bool(response.route_template),
        )
        return verdict, None
    try:
        parsed = await asyncio.to_thread(
            feed_parse, response.body, content_type=response.content_type, url=fetched_url
        )
    except FeedRejected as exc:
        return Verdict(exc.outcome, message_clean(exc.message), status), None
    if not parsed.items:
        return Verdict(Outcome.EMPTY, "a valid feed with no items", status), parsed
    return Verdict(Outcome.OK, f"{len(parsed.items)} items", status), parsed


_FEED_FIELDS = ("id", "path", "etag", "last_modified", "title", "link", "last_fetched_at")


def _validators(done: _Done) -> tuple[str, str]:
    headers = done.response.headers
    return headers.get("etag", "")[:500], headers.get("last-modified", "")[:100]


def _feeds_ensure(batch: list[_Done], routes: list[int | None], now: datetime) -> dict:
    """path -> Feed for every parsed answer: known feeds as read before sending, first-seen
    ones created together (insert-or-nothing, then one read: a concurrent first fetch of the
    same path is no error and needs no savepoint)."""
    feeds = {d.plan.path: d.plan.feed for d in batch if d.parsed is not None and d.plan.feed}
    new = {}
    for done, route_id in zip(batch, routes, strict=True):
        if done.parsed is None or done.plan.path in feeds or done.plan.path in new:
            continue
        etag, last_modified = _validators(done)
        new[done.plan.path] = Feed(
            path=done.plan.path, route_id=route_id, etag=etag, last_modified=last_modified,
            last_fetched_at=now, title=done.parsed.title[:500], link=done.parsed.link[:2000],
        )  # fmt: skip
    if new:
        Feed.objects.bulk_create(new.values(), ignore_conflicts=True)
        feeds |= {f.path: f for f in Feed.objects.filter(path__in=new).only(*_FEED_FIELDS)}
    return feeds


def _validators_refresh(done: _Done, feed: Feed, now: datetime) -> None:
    """Rewrite the feed's ETag / Last-Modified only when they changed: an unchanged feed costs
    no write."""
    etag, last_modified = _validators(done)
    if (feed.etag, feed.last_modified) != (etag, last_modified):
        Feed.objects.filter(pk=feed.pk).update(
            etag=etag, last_modified=last_modified, last_fetched_at=now
        )


def _newest(parsed: ParsedFeed | None) -> datetime | None:
    dates = [i.published_at for i in parsed.items if i.published_at] if parsed else []
    return max(dates, default=None)


def _health_route_id(done: _Done) -> int | None:
    """The route to credit: the one RSSHub says it ran, else the catalog match. A probe, and a
    fetch the caller named a route for, are credited to that route."""
    plan, response = done.plan, done.response
    pinned = plan.route_pinned or plan.probe_at is not None
    if not pinned and response is not None and response.route_template:
        named = route_template_lookup(response.route_template)
        if named is not None:
            return named.route_id
    return plan.route_id


@dataclass
class _Stored:
    route_id: int | None
    feed_id: int | None
    new: int = 0
    seen: int = 0
    item_ids: tuple[int, ...] = ()
    # (id, last_seen_at) of the listed items, as read: seen_refresh decides which are stale.
    item_seen: tuple[tuple[int, datetime], ...] = ()


def _items_ingest(done: _Done, stored: _Stored, feed: Feed | None, now: datetime) -> None:
    """Store the answer's items (their ids are read afterwards, for the whole batch)."""
    if done.parsed is not None and feed is not None:
        _validators_refresh(done, feed, now)
        feed_details_update(feed=feed, parsed=done.parsed)
        stored.feed_id = feed.pk
        stored.new, stored.seen = items_store(feed=feed, items=done.parsed.items, now=now)
    elif done.verdict.outcome == Outcome.NOT_MODIFIED and stored.feed_id:
        recent = Item.objects.filter(feed_id=stored.feed_id).order_by("-published_at", "-id")
        stored.item_seen = tuple(recent.values_list("id", "last_seen_at")[:RECENT_ITEMS])
        stored.item_ids = tuple(pk for pk, _ in stored.item_seen)


def _item_ids_fill(batch: list[_Done], stored: list[_Stored]) -> None:
    """The ids of every parsed item of the batch, in one query."""
    wanted = {(s.feed_id, i.guid_hash) for d, s in zip(batch, stored, strict=True) if d.parsed
              for i in d.parsed.items}  # fmt: skip
    if not wanted:
        return
    rows = Item.objects.filter(
        feed_id__in={feed for feed, _ in wanted}, guid_hash__in={h for _, h in wanted}
    ).values_list("feed_id", "guid_hash", "id", "last_seen_at")
    ids = {(feed, guid_hash): (pk, seen) for feed, guid_hash, pk, seen in rows}
    for done, row in zip(batch, stored, strict=True):
        if done.parsed:
            found = (ids.get((row.feed_id, i.guid_hash)) for i in done.parsed.items)
            row.item_seen = tuple(dict.fromkeys(pair for pair in found if pair))
            row.item_ids = tuple(pk for pk, _ in row.item_seen)


def _answered_feeds(batch: list[_Done], feeds: dict[str, Feed]) -> list[Feed]:
    """Feeds RSSHub answered for (a feed, or 304), whatever the answer held."""
    answered = (
        feeds.get(d.plan.path) if d.parsed is not None else d.plan.feed
        for d in batch
        if d.parsed is not None or d.verdict.outcome == Outcome.NOT_MODIFIED
    )
    return [feed for feed in answered if feed is not None]


def _health_apply(batch: list[_Done], stored: list[_Stored], now: datetime) -> None:
    """Route health for the attempts that say something about their route; probes that were
    claimed but not credited are given back."""
    records = []
    for done, row in zip(batch, stored, strict=True):
        credited = row.route_id is not None and done.verdict.counts_for_route
        if credited:
            newest = _newest(done.parsed)
            records.append(HealthRecord(row.route_id, done.verdict, done.latency_ms, newest))
        plan = done.plan
        if plan.probe_at and not (credited and row.route_id == plan.route_id):
            circuit_probe_release(plan.route_id, plan.probe_at)
    if records:
        routes_health_record(records, now=now)


def _attempt_row(done: _Done, stored: _Stored, brief_id: int | None, now) -> FetchAttempt:
    verdict = done.verdict
    return FetchAttempt(
        path=done.plan.path, route_id=stored.route_id, feed_id=stored.feed_id, brief_id=brief_id,
        outcome=verdict.outcome, transient=verdict.transient, http_status=verdict.http_status,
        message=message_clean(verdict.message), latency_ms=done.latency_ms,
        items_new=stored.new, items_seen=stored.seen, retry_after=verdict.retry_after,
        created_at=now,
    )  # fmt: skip


def _result(done: _Done, stored: _Stored, attempt: FetchAttempt) -> FetchResult:
    verdict = done.verdict
    return FetchResult(
        path=done.plan.path, outcome=verdict.outcome, transient=verdict.transient,
        http_status=verdict.http_status, items_new=stored.new, items_seen=stored.seen,
        latency_ms=done.latency_ms, message=attempt.message, retry_after=verdict.retry_after,
        feed_id=stored.feed_id, item_ids=stored.item_ids, route_id=stored.route_id,
        attempt_id=attempt.pk, reason=verdict.reason,
    )  # fmt: skip


def _batch_write(batch: list[_Done], brief_id: int | None) -> list[FetchResult]:
    """Feeds (created together), items, the attempt rows (one INSERT) and route health (the
    routes locked together, one UPDATE per attempt)."""
    now = timezone.now()
    stored = [_Stored(route_id=_health_route_id(d), feed_id=d.plan.feed_id) for d in batch]
    feeds = _feeds_ensure(batch, [s.route_id for s in stored], now)
    for done, row in zip(batch, stored, strict=True):
        _items_ingest(done, row, feeds.get(done.plan.path), now)
    _item_ids_fill(batch, stored)
    listed = (pair for row in stored for pair in row.item_seen)
    seen_refresh(feeds=_answered_feeds(batch, feeds), items=listed, now=now)
    rows = [_attempt_row(d, s, brief_id, now) for d, s in zip(batch, stored, strict=True)]
    attempts = FetchAttempt.objects.bulk_create(rows)
    _health_apply(batch, stored, now)
    return [_result(*parts) for parts in zip(batch, stored, attempts, strict=True)]


def _unrecorded(done: _Done) -> FetchResult:
    verdict = done.verdict
    return FetchResult(
        path=done.plan.path, outcome=verdict.outcome, transient=verdict.transient,
        http_status=verdict.http_status, latency_ms=done.latency_ms,
        message=message_clean(f"{verdict.message} (not recorded: database error)"),
        retry_after=verdict.retry_after, feed_id=done.plan.feed_id, route_id=done.plan.route_id,
        reason=verdict.reason,
    )  # fmt: skip


def _attempts_record(batch: list[_Done], brief_id: int | None) -> list[FetchResult]:
    """Record a batch in one transaction (one commit). If the database refuses any of it, each
    attempt is retried in a transaction of its own, so one bad attempt loses only itself."""
    try:
        with transaction.atomic():
            return _batch_write(batch, brief_id)
    except DatabaseError:
        if len(batch) == 1:
            logger.exception("attempt of %s not recorded", batch[0].plan.path)
            return [_unrecorded(batch[0])]
    return [_attempts_record([done], brief_id)[0] for done in batch]


class _Recorder:
    """Writes finished requests in batches: whatever finished while one batch was being written
    goes into the next, in one thread hop and one transaction. Sixteen answers arriving
    together cost a couple of commits instead of sixteen, which is what keeps a concurrent
    batch close to the time of its slowest request."""

    def __init__(self, brief_id: int | None) -> None:
        self._brief_id = brief_id
        self._waiting: list[tuple[_Done, asyncio.Future]] = []
        self._writer: asyncio.Task | None = None

    async def record(self, done: _Done) -> FetchResult:
        future = asyncio.get_running_loop().create_future()
        self._waiting.append((done, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())
        return await future

    async def _write(self) -> None:
        write = sync_to_async(_attempts_record)
        while self._waiting:
            batch, self._waiting = self._waiting, []
            try:
                results = await write([done for done, _ in batch], self._brief_id)
            except Exception as exc:  # handed to each waiting fetch, which re-raises it
                results = [exc] * len(batch)
            for (_, future), result in zip(batch, results, strict=True):
                if future.done():  # its fetch was cancelled; the row is written all the same
                    continue
                if isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    async def close(self) -> None:
        """Wait for writes in progress (also when the batch was cancelled)."""
        if self._writer is not None:
            await self._writer


# --- The batch ---------------------------------------------------------------------------------


async def _request(rsshub: RSSHubClient, plan: _Plan) -> _Done:
    feed = plan.feed
    try:
        response = await rsshub.get(
            plan.path,
            etag=feed.etag if feed else "",
            last_modified=feed.last_modified if feed else "",
        )
    except FetchFailed as exc:
        counts = exc.outcome != Outcome.RSSHUB_UNAVAILABLE  # RSSHub down: no route is sick
        verdict = Verdict(exc.outcome, exc.message, exc.http_status, counts_for_route=counts)
        return _Done(plan, verdict, exc.latency_ms)
    except RoutePathRejected as exc:  # confined already; kept so no path can slip through
        verdict = Verdict(Outcome.REJECTED, f"path refused: {exc}", counts_for_route=False)
        return _Done(plan, verdict, 0)
    verdict, parsed = await _verdict_for(response, _fetched_url(rsshub, response))
    return _Done(plan, verdict, response.latency_ms, response, parsed)


def _fetched_url(rsshub: RSSHubClient, response: RSSHubResponse) -> str:
    """The URL the feed came from: the last base for its relative links. Only joined with links,
    never requested; the path never holds the access key."""
    return rsshub.base_url.rstrip("/") + response.path


async def _plan_run(
    rsshub: RSSHubClient, plan: _Plan, recorder: _Recorder, guard: EgressGuard
) -> FetchResult:
    if plan.result is not None:
        return plan.result
    done = await _request(rsshub, plan)
    # An error page may echo the request URL; the key must not travel on into steps or logs.
    done.verdict = replace(done.verdict, message=rsshub.redact(done.verdict.message))
    # No answer from the source at all: the route's fault, or RSSHub's lost internet access?
    done.verdict = await guard.settle(plan.path, done.verdict)
    return await recorder.record(done)


@contextlib.asynccontextmanager
async def _client_scope(client: RSSHubClient | None) -> AsyncIterator[RSSHubClient]:
    if client is not None:
        yield client
        return
    async with RSSHubClient() as own:
        yield own


async def fetch_paths(
    paths: Sequence[str],
    *,
    brief_id: int | None = None,
    force: bool = False,
    route_id: int | None = None,
    allow_disabled: bool = False,
    client: RSSHubClient | None = None,
) -> list[FetchResult]:
    """Fetch every path concurrently; one ``FetchResult`` per path, in order.

    ``force`` fetches routes whose circuit is open (the agent's "nothing else is left").
    ``route_id`` credits every path to that route; with ``allow_disabled`` (staff probes) a
    disabled platform or route may be fetched. Cancelling the caller cancels the requests.
    """
    prepare = sync_to_async(_plans_prepare)
    plans = await prepare(
        list(paths), brief_id=brief_id, force=force, route_id=route_id,
        allow_disabled=allow_disabled,
    )  # fmt: skip
    if all(p.result is not None for p in plans):
        return [p.result for p in plans]
    # Start a parse worker while the requests are out, so the first parse does not wait for one.
    warm = asyncio.create_task(asyncio.to_thread(feed_parser_warm))
    recorder = _Recorder(brief_id)
    try:
        async with _client_scope(client) as rsshub:
            guard = EgressGuard(rsshub)
            try:
                runs = (_plan_run(rsshub, plan, recorder, guard) for plan in plans)
                return list(await asyncio.gather(*runs))
            finally:
                await guard.close()
    finally:
        await recorder.close()
        await warm


async def fetch_path(path: str, **options) -> FetchResult:
    """``fetch_paths`` for one path."""
    return (await fetch_paths([path], **options))[0]


def fetch_paths_sync(paths: Sequence[str], **options) -> list[FetchResult]:
    """``fetch_paths`` from synchronous code (commands, admin actions, tasks)."""
    return async_to_sync(fetch_paths)(paths, **options)


def fetch_path_sync(path: str, **options) -> FetchResult:
    return fetch_paths_sync([path], **options)[0]


def route_probe(route) -> FetchResult:
    """Staff's probe: fetch the route's example path now, open circuit or not, disabled or not,
    and record it like any attempt (a success closes the circuit)."""
    if not route.example:
        reason = RoutePathRejected("no_example", f"route {route.path} has no example path")
        return _rejected(route.path, reason)
    return fetch_path_sync(route.example, route_id=route.id, force=True, allow_disabled=True)
