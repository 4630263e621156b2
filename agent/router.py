"""The router: what happens after each fetch, and when the run stops choosing (DESIGN.md 2.2).

| fetch outcome over the batch                   | next                                       |
|------------------------------------------------|--------------------------------------------|
| at least one path returned items               | summarize                                  |
| RSSHub cannot reach the internet (egress down) | summarize at once: no retry or route helps |
| some failure is transient, retries left        | fetch again the transient paths            |
| RSSHub itself does not answer, retries spent   | summarize: every route goes through it     |
| otherwise (semantic failures, retries spent)   | route: another route, excluding tried ones |
| no route left for the chosen platforms         | platform: widen, excluding tried platforms |
| no platform left, or the step budget is spent  | summarize, honestly                        |
| no route fillable, the question lacks a value  | summarize: ask for it (``needs_input``);   |
| (``ctx.needs``) and nothing fetched yet        | no widening to platforms it did not name   |

``route_after_fetch`` decides the rows about a fetch; the loop (``agent.runner``) applies the
last three, when the platform or route node has nothing left. Every decision is a ``router``
step (``router_decide``).
"""

from agent.context import RunContext
from briefs import reasons
from fetching.egress import EGRESS_REASON
from fetching.models import Outcome as FetchOutcome
from fetching.services import FetchResult


async def router_decide(ctx: RunContext, decision: str, reason: str) -> str:
    await ctx.step(
        "router", decision=decision, reason=reason, step=ctx.steps_used, budget=ctx.budget
    )
    return decision


async def route_after_fetch(ctx: RunContext, results: list[FetchResult], retries: int) -> str:
    """The router table: the next node after a fetch."""
    with_items = [r for r in results if r.ok and r.item_ids]
    if with_items:
        failed = len(results) - len(with_items)
        reason = reasons.reason_join(
            reasons.ITEMS_RETURNED.english(count=len(with_items)),
            reasons.FAILED_REPORTED.english(count=failed) if failed else "",
        )
        return await router_decide(ctx, "summarize", reason)
    if any(r.reason == EGRESS_REASON for r in results):
        # Every route needs the internet RSSHub has lost: retries and other routes only spend
        # the budget. The brief says so (summarize reads ctx.egress_down).
        ctx.egress_down = True
        return await router_decide(ctx, "summarize", reasons.NO_INTERNET.english())
    transient = [r for r in results if r.transient and not r.circuit_open]
    if transient and retries < ctx.fetch_retry:
        ctx.paths = [(r.path, r.route_id) for r in transient]
        return await router_decide(
            ctx,
            "retry",
            reasons.reason_join(
                reasons.TRANSIENT.english(count=len(transient)),
                reasons.RETRY.english(attempt=retries + 1, limit=ctx.fetch_retry),
            ),
        )
    if all(r.outcome == FetchOutcome.RSSHUB_UNAVAILABLE for r in results):
        # RSSHub itself does not answer, even after the retries: every other route goes
        # through the same RSSHub, so trying them only spends the budget.
        ctx.rsshub_down = True
        return await router_decide(ctx, "summarize", reasons.RSSHUB_DOWN.english())
    kinds = ", ".join(sorted({r.outcome for r in results}))
    reason = reasons.reason_join(
        reasons.NO_ITEMS.english(kinds=kinds), reasons.ANOTHER_ROUTE.english()
    )
    return await router_decide(ctx, "route", reason)
