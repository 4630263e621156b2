"""Fetching as the rest of the app sees it: paths in, one ``FetchResult`` per path out.

``fetch_paths`` runs a batch concurrently: one database round (confine every path, match its
route, read the feeds' validators and the paths' shared answers, rank the RSSHub instances for
each path (``fetching.instances``), claim circuits), then for each path still to fetch its claim
(``fetching.flight``: fetch once, serve many; any instance may serve it), the requests in
parallel, each sent to its best instance and moved on to the next when one fails on its own
(``fetching.failover``), each parsed in the parse worker pool as it arrives, then the writes
(``fetching.recording``). Every path ends in exactly one outcome class; nothing raises for a bad
path or a failed fetch.

A path that another run fetched within its freshness window, or is fetching now, is not fetched
again: its result is that fetch's answer, with ``fetch_age_s`` set and no attempt row (nothing
was sent). ``refresh`` fetches anyway (staff, the API), sharing only a fetch that ends after it
asked, once per path and ``FORCED_REFRESH_PATH_SECONDS`` across all runs (``fetching.flight``).

What is written per attempt: see ``fetching.recording``. A failure where the source gave no
answer at all is settled by the egress guard (``fetching.egress``) before it is written:
RSSHub's lost internet access is no route's, and such a failure is transient, so it is not
served to later runs either.

A route whose circuit is open is not fetched (unless ``force``): its result carries the route's
last error class (so the agent's router treats it as that failure), ``circuit_open=True`` and
``retry_after`` until the circuit may be probed; no attempt row is written, since nothing was
sent. A valid feed with no items is ``empty``: not an error of the route, but the agent got
nothing and should know it.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from asgiref.sync import async_to_sync, sync_to_async
from django.utils import timezone

from fetching.circuit import Admission, circuit_probe_release, circuits_admit
from fetching.client import RSSHubClient
from fetching.failover import InstancePool, fetch_across_instances
from fetching.flight import (
    answer_cutoff,
    flight_claims_take,
    flight_prepare,
    path_acquire,
    path_release,
)
from fetching.instances import instances_choose
from fetching.models import Feed, FetchAttempt, Outcome
from fetching.outcomes import message_clean, outcome_is_transient
from fetching.parsing import feed_parser_warm
from fetching.paths import (
    RoutePathRejected,
    namespaces_known,
    path_confine,
    path_namespace,
    route_for_path,
)
from fetching.recording import FEED_FIELDS, Recorder
from fetching.results import FetchResult, Plan, Ticket, result_rejected

__all__ = ["FetchResult", "fetch_path", "fetch_path_sync", "fetch_paths", "fetch_paths_sync"]


# --- Before sending: one database round for the whole batch -------------------------------------


def _plan_confine(raw: str, *, route_id: int | None, allow_disabled: bool) -> Plan:
    plan = Plan(raw=raw)
    try:
        plan.path = path_confine(raw, allow_disabled=allow_disabled)
        match = route_for_path(plan.path)
        if route_id is None and match is not None and not match.enabled and not allow_disabled:
            raise RoutePathRejected("route_disabled", f"route {match.template} is disabled")
    except RoutePathRejected as exc:
        plan.result = result_rejected(raw, exc)
        return plan
    plan.route_id = route_id or (match.route_id if match else None)
    plan.route_pinned = route_id is not None
    return plan


def _circuit_refusal(plan: Plan, admission: Admission, now: datetime) -> FetchResult:
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


def _rejections_record(plans: list[Plan], brief_id: int | None) -> None:
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


def _circuits_apply(live: list[Plan], now: datetime) -> None:
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


def _no_instance(plan: Plan, *, any_enabled: bool) -> FetchResult:
    """Nothing to send the path to: no instance enabled, or none serves its namespace."""
    if any_enabled:
        outcome = Outcome.NOT_FOUND
        message = f"no enabled RSSHub instance serves the namespace {plan.namespace!r}"
    else:
        outcome = Outcome.RSSHUB_UNAVAILABLE
        message = "no RSSHub instance is enabled (staff: Admin, RSSHub instances)"
    return FetchResult(
        path=plan.path, outcome=outcome, transient=outcome_is_transient(outcome),
        message=message_clean(message), feed_id=plan.feed_id, route_id=plan.route_id,
    )  # fmt: skip


def _instances_apply(live: list[Plan], pool: InstancePool, now: datetime) -> None:
    """Each plan's instances, best first (``fetching.instances``); a plan no instance may serve
    gets its result here, before it claims its path."""
    given = pool.given_ref()
    if given is not None:
        for plan in live:
            plan.instances = [given]
        return
    if not live:
        return
    known = namespaces_known()
    for plan in live:
        plan.namespace = path_namespace(plan.path, known) or ""
    choice = instances_choose(
        namespaces={p.namespace for p in live}, route_ids={p.route_id for p in live if p.route_id},
        now=now,
    )  # fmt: skip
    for ref in choice.refs:
        pool.claim_hold(ref)
    for plan in live:
        plan.instances = choice.ranked(namespace=plan.namespace or None, route_id=plan.route_id)
        if not plan.instances:
            plan.result = _no_instance(plan, any_enabled=bool(choice.refs))


def _plans_prepare(
    paths: Sequence[str],
    *,
    brief_id: int | None,
    force: bool,
    route_id: int | None,
    allow_disabled: bool,
    since: datetime,
    refresh: bool,
    pool: InstancePool,
) -> list[Plan]:
    now = timezone.now()
    plans = [_plan_confine(p, route_id=route_id, allow_disabled=allow_disabled) for p in paths]
    _rejections_record(plans, brief_id)
    live = [p for p in plans if p.result is None]
    feeds = Feed.objects.filter(path__in={p.path for p in live}).only(*FEED_FIELDS)
    by_path = {f.path: f for f in feeds}
    for plan in live:
        plan.feed = by_path.get(plan.path)
    rows = flight_prepare(live, since=since, refresh=refresh)
    _instances_apply([p for p in live if p.result is None], pool, now)
    if not force:
        _circuits_apply([p for p in live if p.result is None], now)
    flight_claims_take([p for p in live if p.result is None], rows, since=since)
    return plans


# --- The batch ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Batch:
    """What every path of one ``fetch_paths`` call shares."""

    pool: InstancePool
    recorder: Recorder
    since: datetime
    wait_s: float | None


async def _fetch_claimed(batch: _Batch, plan: Plan) -> FetchResult:
    done = await fetch_across_instances(batch.pool, plan)
    return await batch.recorder.record(done)


async def _ticket(batch: _Batch, plan: Plan) -> Ticket:
    """The claim the batch's database round took, else a wait for the run that holds the path."""
    if plan.ticket is None:
        cutoff = answer_cutoff(batch.since, plan.window_s, refresh=plan.refresh)
        plan.ticket = await path_acquire(
            plan.path, since=batch.since, cutoff=cutoff, wait_s=batch.wait_s
        )
    return plan.ticket


async def _plan_run(batch: _Batch, plan: Plan) -> FetchResult:
    if plan.result is not None:
        return plan.result
    held = plan.ticket  # a claim to give back however this ends, unless the answer did
    try:
        ticket = held = await _ticket(batch, plan)
        if ticket.result is not None:  # another run's answer: the probe claimed is not used
            if plan.probe_at is not None:
                await sync_to_async(circuit_probe_release)(plan.route_id, plan.probe_at)
            return replace(ticket.result, refresh_limited=plan.refresh_limited)
        result = await _fetch_claimed(batch, plan)
        if ticket.given_back_with(result):
            held = None
        return result
    finally:
        if held is not None:
            await path_release(plan.path, held)


async def fetch_paths(
    paths: Sequence[str],
    *,
    brief_id: int | None = None,
    force: bool = False,
    refresh: bool = False,
    route_id: int | None = None,
    allow_disabled: bool = False,
    client: RSSHubClient | None = None,
    wait_s: float | None = None,
) -> list[FetchResult]:
    """Fetch every path concurrently; one ``FetchResult`` per path, in order.

    ``force`` fetches routes whose circuit is open (the agent's "nothing else is left").
    ``refresh`` ignores the freshness window: only a fetch that ends after this call began is
    served. ``route_id`` credits every path to that route; with ``allow_disabled`` (staff probes)
    a disabled platform or route may be fetched. ``wait_s`` bounds the wait for another run's
    fetch of a path (``fetching.flight``). Cancelling the caller cancels the requests.
    """
    since = timezone.now()
    pool = InstancePool(client)
    prepare = sync_to_async(_plans_prepare)
    plans = await prepare(
        list(paths), brief_id=brief_id, force=force, route_id=route_id,
        allow_disabled=allow_disabled, since=since, refresh=refresh, pool=pool,
    )  # fmt: skip
    pool.probes_start()
    if all(p.result is not None for p in plans):
        await pool.close()
        return [p.result for p in plans]
    # Start a parse worker while the requests are out, so the first parse does not wait for one.
    warm = asyncio.create_task(asyncio.to_thread(feed_parser_warm))
    recorder = Recorder(brief_id)
    batch = _Batch(pool, recorder, since, wait_s)
    try:
        try:
            return list(await asyncio.gather(*(_plan_run(batch, plan) for plan in plans)))
        finally:
            await pool.close()
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
        return result_rejected(route.path, reason)
    return fetch_path_sync(
        route.example, route_id=route.id, force=True, refresh=True, allow_disabled=True
    )
