"""After the answer: classify it, store its items, record the attempt, route health and the
path's shared answer (``fetching.flight``).

Writes are batched by ``Recorder``, so answers that arrive together share a transaction. What is
written per attempt: one ``FetchAttempt`` row (and one for each instance that failed on its own
before the answer: ``fetching.failover``); one ``UPDATE`` of route health, and one of the
route's health on the instance that answered (``RouteInstanceHealth``), when the outcome says
something about the route (``rsshub_unavailable``, ``rejected`` and a refused access key do
not); one ``UPDATE`` of the path's ``PathFetch`` row. (The instance's own health is written as
each try ends, by ``fetching.failover``.) A 304 writes nothing else (but the seen
times of a day-stale feed and its items: ``fetching.ingest.seen_refresh``). A 200 stores new items
only, and touches the ``Feed`` row only when it is new or its ETag / Last-Modified changed.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime

from asgiref.sync import sync_to_async
from django.db import DatabaseError, transaction
from django.utils import timezone

from fetching.circuit import HealthRecord, circuit_probe_release, routes_health_record
from fetching.client import RSSHubResponse
from fetching.flight import answers_record
from fetching.ingest import feed_details_update, feed_recent_values, items_store, seen_refresh
from fetching.instances import route_instance_health_record
from fetching.models import Feed, FetchAttempt, Item, Outcome
from fetching.outcomes import Verdict, message_clean, verdict_for_status
from fetching.parsing import FeedRejected, ParsedFeed, feed_parse
from fetching.paths import route_template_lookup
from fetching.results import Done, FetchResult

logger = logging.getLogger(__name__)


async def verdict_for(
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
    count = len(parsed.items)
    return Verdict(Outcome.OK, f"{count} item{'' if count == 1 else 's'}", status), parsed


FEED_FIELDS = ("id", "path", "etag", "last_modified", "title", "link", "last_fetched_at")


def _validators(done: Done) -> tuple[str, str]:
    headers = done.response.headers
    return headers.get("etag", "")[:500], headers.get("last-modified", "")[:100]


def _feeds_ensure(batch: list[Done], routes: list[int | None], now: datetime) -> dict:
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
        feeds |= {f.path: f for f in Feed.objects.filter(path__in=new).only(*FEED_FIELDS)}
    return feeds


def _validators_refresh(done: Done, feed: Feed, now: datetime) -> None:
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


def _health_route_id(done: Done) -> int | None:
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


def _items_ingest(done: Done, stored: _Stored, feed: Feed | None, now: datetime) -> None:
    """Store the answer's items (their ids are read afterwards, for the whole batch)."""
    if done.parsed is not None and feed is not None:
        _validators_refresh(done, feed, now)
        feed_details_update(feed=feed, parsed=done.parsed)
        stored.feed_id = feed.pk
        stored.new, stored.seen = items_store(feed=feed, items=done.parsed.items, now=now)
    elif done.verdict.outcome == Outcome.NOT_MODIFIED and stored.feed_id:
        stored.item_seen = tuple(feed_recent_values(stored.feed_id, "id", "last_seen_at"))
        stored.item_ids = tuple(pk for pk, _ in stored.item_seen)


def _item_ids_fill(batch: list[Done], stored: list[_Stored]) -> None:
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


def _answered_feeds(batch: list[Done], feeds: dict[str, Feed]) -> list[Feed]:
    """Feeds RSSHub answered for (a feed, or 304), whatever the answer held."""
    answered = (
        feeds.get(d.plan.path) if d.parsed is not None else d.plan.feed
        for d in batch
        if d.parsed is not None or d.verdict.outcome == Outcome.NOT_MODIFIED
    )
    return [feed for feed in answered if feed is not None]


def _health_apply(batch: list[Done], stored: list[_Stored], now: datetime) -> None:
    """Route health, and the route's health on the instance that answered, for the attempts
    that say something about their route; probes that were claimed but not credited are given
    back."""
    records, pairs = [], []
    for done, row in zip(batch, stored, strict=True):
        credited = row.route_id is not None and done.verdict.counts_for_route
        if credited:
            newest = _newest(done.parsed)
            records.append(HealthRecord(row.route_id, done.verdict, done.latency_ms, newest))
            if done.instance is not None and done.instance.id is not None:
                pairs.append((row.route_id, done.instance.id, done.verdict, done.latency_ms))
        plan = done.plan
        if plan.probe_at and not (credited and row.route_id == plan.route_id):
            circuit_probe_release(plan.route_id, plan.probe_at)
    if records:
        routes_health_record(records, now=now)
    if pairs:
        route_instance_health_record(pairs, now=now)


def _instance_id(done: Done) -> int | None:
    return done.instance.id if done.instance is not None else None


def _attempt_row(done: Done, stored: _Stored, brief_id: int | None, now) -> FetchAttempt:
    verdict = done.verdict
    return FetchAttempt(
        path=done.plan.path, route_id=stored.route_id, feed_id=stored.feed_id, brief_id=brief_id,
        instance_id=_instance_id(done), outcome=verdict.outcome, transient=verdict.transient,
        http_status=verdict.http_status, message=message_clean(verdict.message),
        latency_ms=done.latency_ms, items_new=stored.new, items_seen=stored.seen,
        retry_after=verdict.retry_after, created_at=now,
    )  # fmt: skip


def _failover_rows(batch: list[Done], brief_id: int | None, now) -> list[FetchAttempt]:
    """The tries an instance failed on its own before the answer: attempts of their own,
    credited to no route's health (their verdicts do not count)."""
    return [
        _attempt_row(tried, _Stored(route_id=tried.plan.route_id, feed_id=None), brief_id, now)
        for done in batch
        for tried in done.failovers
    ]


def _result(done: Done, stored: _Stored, attempt: FetchAttempt) -> FetchResult:
    verdict = done.verdict
    return FetchResult(
        path=done.plan.path, outcome=verdict.outcome, transient=verdict.transient,
        http_status=verdict.http_status, items_new=stored.new, items_seen=stored.seen,
        latency_ms=done.latency_ms, message=attempt.message, retry_after=verdict.retry_after,
        feed_id=stored.feed_id, item_ids=stored.item_ids, route_id=stored.route_id,
        attempt_id=attempt.pk, reason=verdict.reason,
        instance=done.instance.label if done.instance is not None else "",
        failed_over=tuple(tried.instance.label for tried in done.failovers),
    )  # fmt: skip


def _batch_write(batch: list[Done], brief_id: int | None) -> list[FetchResult]:
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
    attempts = FetchAttempt.objects.bulk_create(rows + _failover_rows(batch, brief_id, now))
    _health_apply(batch, stored, now)
    results = [_result(*parts) for parts in zip(batch, stored, attempts, strict=False)]
    # Written with the attempt: the runs waiting for this path read their answer here.
    answers = [
        (r, d.parsed, d.plan.claim_token, _instance_id(d))
        for r, d in zip(results, batch, strict=True)
    ]
    answers_record(answers, now=now)
    return results


def _unrecorded(done: Done) -> FetchResult:
    verdict = done.verdict
    return FetchResult(
        path=done.plan.path, outcome=verdict.outcome, transient=verdict.transient,
        http_status=verdict.http_status, latency_ms=done.latency_ms,
        message=message_clean(f"{verdict.message} (not recorded: database error)"),
        retry_after=verdict.retry_after, feed_id=done.plan.feed_id, route_id=done.plan.route_id,
        reason=verdict.reason, instance=done.instance.label if done.instance is not None else "",
    )  # fmt: skip


def _attempts_record(batch: list[Done], brief_id: int | None) -> list[FetchResult]:
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


class Recorder:
    """Writes finished requests in batches: whatever finished while one batch was being written
    goes into the next, in one thread hop and one transaction. Sixteen answers arriving
    together cost a couple of commits instead of sixteen, which is what keeps a concurrent
    batch close to the time of its slowest request."""

    def __init__(self, brief_id: int | None) -> None:
        self._brief_id = brief_id
        self._waiting: list[tuple[Done, asyncio.Future]] = []
        self._writer: asyncio.Task | None = None

    async def record(self, done: Done) -> FetchResult:
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
