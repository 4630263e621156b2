"""The fetch node: the chosen paths, fetched concurrently through ``fetching``; a result per path.

Each result is recorded for the brief (``ctx.attempted``, the coverage) and said in a
``fetch_result`` step; routes whose circuit is open are kept out of the next route choice. A
cancel request stops the fetches in flight (checked every ``CANCEL_POLL_SECONDS``).
"""

import asyncio
from datetime import datetime, timedelta

from django.utils import timezone

from agent.context import RunContext
from briefs.coverage import Attempted
from fetching.services import FetchResult, fetch_paths

CANCEL_POLL_SECONDS = 0.25


async def _fetch_cancellable(ctx: RunContext, paths: list[str]) -> list[FetchResult]:
    """Fetch concurrently; a cancel request stops the fetches in flight."""
    fetch = asyncio.ensure_future(
        fetch_paths(paths, brief_id=ctx.brief_id, refresh=ctx.brief.refresh)
    )
    try:
        while True:
            done, _ = await asyncio.wait({fetch}, timeout=CANCEL_POLL_SECONDS)
            if done:
                return fetch.result()
            await ctx.check_cancelled()
    finally:
        if not fetch.done():
            fetch.cancel()
            await asyncio.gather(fetch, return_exceptions=True)


def _circuit_until(result: FetchResult) -> datetime | None:
    """When a route refused for its open circuit will be asked again (None: the next time)."""
    if not result.circuit_open or not result.retry_after:
        return None
    return timezone.now() + timedelta(seconds=result.retry_after)


async def node_fetch(ctx: RunContext, paths: list[tuple[str, int | None]]) -> list[FetchResult]:
    results = await _fetch_cancellable(ctx, [p for p, _ in paths])
    for result in results:
        # A 304 carries no new or seen counts, but the feed's stored items answer for it.
        items = max(result.items_new + result.items_seen, len(result.item_ids))
        attempted = Attempted(
            result.path, result.outcome, items, result.message, result.fetch_age_s,
            reason=result.reason, circuit_open=result.circuit_open,
            circuit_until=_circuit_until(result),
        )  # fmt: skip
        ctx.attempted.append(attempted)
        if result.circuit_open and result.route_id:
            ctx.circuit_skipped.add(result.route_id)
        if result.ok:
            ctx.fetched_item_ids.extend(result.item_ids)
        # Written with the router's decision that follows at once (``route_after_fetch``).
        ctx.step_hold(
            "fetch_result",
            path=result.path,
            outcome=result.outcome,
            transient=result.transient,
            http_status=result.http_status,
            items_new=result.items_new,
            items_seen=result.items_seen,
            latency_ms=result.latency_ms,
            message=result.message,
            fetch_age_s=result.fetch_age_s,
            instance=result.instance,
            failed_over=list(result.failed_over),
            refresh_limited=result.refresh_limited,
        )
    return results
