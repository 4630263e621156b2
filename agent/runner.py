"""One run of the agent: rewrite -> platform -> route -> fetch -> (router) -> summarize; a
retelling in another language (``agent.retell``) reads its original's data and summarizes.

The loop spends one step of the budget on every move through platform, route and fetch, so a
run always ends; the router (``agent.router``) says where each move goes. A cancel request is
checked at every step boundary. The outcome of the brief (``agent.summary.outcome``) is stored
with it and said in ``brief_ready``.
"""

import dataclasses
import time
from datetime import datetime

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone, translation

from agent import llm
from agent.context import RunCancelled, RunContext
from agent.fetch import node_fetch
from agent.mode import MODE_MODEL, MODE_OFFLINE, run_mode, run_model_usage
from agent.platform import node_platform
from agent.question import Rewrite
from agent.retell import retelling_load
from agent.rewrite import node_rewrite
from agent.route import node_route
from agent.router import route_after_fetch, router_decide
from agent.summarize import LOCALES, node_summarize
from agent.summary.draft import Draft
from briefs import reasons
from briefs.coverage import coverage_rows
from briefs.language import language_family
from briefs.models import Brief, BriefOutcome, BriefStatus
from briefs.steps import step_append

THREAD_DEPTH = 5


def _thread_of(brief: Brief) -> list[Brief]:
    """The earlier briefs of a follow-up, oldest first (at most ``THREAD_DEPTH``)."""
    thread, current = [], brief.follow_up_of
    while current is not None and len(thread) < THREAD_DEPTH:
        thread.append(current)
        current = current.follow_up_of
    return thread[::-1]


def context_load(brief_id: int) -> RunContext:
    brief = Brief.objects.select_related("owner", "follow_up_of").get(pk=brief_id)
    use_llm = llm.llm_configured() and not brief.offline
    return RunContext(
        brief=brief,
        owner=brief.owner,
        use_llm=use_llm,
        budget=settings.AGENT_ROUTER_BUDGET,
        fetch_retry=settings.AGENT_FETCH_RETRY,
        thread=_thread_of(brief),
    )


async def _loop(ctx: RunContext) -> None:
    """Platform, route and fetch until items arrive, nothing is left, or the budget is spent."""
    node, retries, batch = "platform", 0, []
    while True:
        if ctx.budget_left <= 0:
            await router_decide(ctx, "summarize", reasons.BUDGET_SPENT.english(budget=ctx.budget))
            return
        await ctx.spend(node)
        if node == "platform":
            if not await node_platform(ctx):
                await router_decide(ctx, "summarize", reasons.NO_PLATFORM.english())
                return
            node = "route"
        elif node == "route":
            if await node_route(ctx):
                node, retries, batch = "fetch", 0, [p for p, _ in ctx.paths]
            elif ctx.needs and not ctx.fetched_item_ids:
                # Another platform would answer a question it was not asked: ask for the value.
                missing = ", ".join(n.get("parameter", "") for n in ctx.needs)
                await router_decide(ctx, "needs_input", reasons.NOT_GIVEN.english(missing=missing))
                return
            elif ctx.setup_needed and not ctx.fetched_item_ids:
                # Another route's items would answer a question that was not asked.
                route = ctx.setup_needed[0]["route"]
                await router_decide(ctx, "summarize", reasons.SETUP_NEEDED.english(route=route))
                return
            else:
                node = await router_decide(ctx, "platform", reasons.NO_ROUTE.english())
        else:
            results = await node_fetch(ctx, ctx.paths)
            node = await route_after_fetch(ctx, results, retries)
            if node == "summarize":
                ctx.answer_paths = batch
                return
            retries = retries + 1 if node == "retry" else 0
            node = "fetch" if node == "retry" else node


NEED_STORED_KEYS = ("parameter", "description", "format", "source", "route")


def needs_stored(needs: list[dict]) -> list[dict]:
    """The needs as stored on the brief: the known keys, as short text."""
    return [{key: str(need.get(key) or "")[:300] for key in NEED_STORED_KEYS} for need in needs]


def _finish(ctx: RunContext, *, draft: Draft, as_of: datetime, started: float) -> bool:
    ctx.timings["total_ms"] = int((time.monotonic() - started) * 1000)
    rows = coverage_rows(ctx.attempted, egress_down=ctx.egress_down)
    coverage = {
        "tried": [row["path"] for row in rows],
        "succeeded": [row for row in rows if row["ok"]],
        "failed": [row for row in rows if not row["ok"]],
    }
    usage = {
        "nodes": ctx.usage,
        "llm_calls": sum(u["calls"] for u in ctx.usage.values()),
        "fallbacks": ctx.llm_fallbacks,
        "steps": ctx.steps_used,
        "budget": ctx.budget,
        **run_model_usage(ctx),
    }
    rewrite, verdict = ctx.rewrite, draft.verdict
    needs = needs_stored(ctx.needs) if verdict.outcome == BriefOutcome.NEEDS_INPUT else []
    return bool(
        Brief.objects.filter(pk=ctx.brief_id, status=BriefStatus.RUNNING).update(
            status=BriefStatus.SUCCEEDED,
            outcome=verdict.outcome,
            outcome_reason=verdict.reason,
            needs=needs,
            mode=run_mode(ctx),
            body=draft.body,
            citations=draft.citations,
            agreements=draft.agreements,
            coverage=coverage,
            usage=usage,
            timings=ctx.timings,
            as_of=as_of,
            finished_at=timezone.now(),
            query=rewrite.query,
            language=LOCALES[rewrite.language],
            keywords=rewrite.keywords,
            window_label=rewrite.window.label,
            window_start=rewrite.window.start,
            window_end=rewrite.window.end,
        )
    )


def _in_brief_language(rewrite: Rewrite, language: str) -> Rewrite:
    """The rewrite written in the brief's language, decided when it was asked
    (``briefs.language``); a brief from before that decision keeps the question's."""
    if not language:
        return rewrite
    return dataclasses.replace(rewrite, language=language_family(language))


async def agent_run(brief_id: int) -> None:
    """Run the agent for a brief the caller has claimed (status running)."""
    ctx = await sync_to_async(context_load)(brief_id)
    started = time.monotonic()
    mode = MODE_MODEL if ctx.use_llm else MODE_OFFLINE  # until the finish says what it was
    models = {"models": llm.llm_mode_label()} if ctx.use_llm else {}
    await ctx.step(
        "run_started",
        attempt=ctx.brief.attempts,
        mode=mode,
        **models,
        budget=ctx.budget,
        fetch_retry=ctx.fetch_retry,
    )
    # After the step, not before: a watcher sees the run start one commit (a WAL flush) sooner.
    await Brief.objects.filter(pk=brief_id).aupdate(mode=mode)
    try:
        if ctx.brief.translation_of_id is None:
            ctx.rewrite = _in_brief_language(await node_rewrite(ctx), ctx.brief.language)
            await ctx.step("query_rewritten", **ctx.rewrite.as_payload())
            await _loop(ctx)
            as_of = timezone.now()
        else:  # a retelling in another language: the original's data, nothing fetched
            as_of = await sync_to_async(retelling_load)(ctx)
            await ctx.step("query_rewritten", **ctx.rewrite.as_payload())
        await ctx.check_cancelled()
        with translation.override(LOCALES[ctx.rewrite.language]):
            draft = await node_summarize(ctx, as_of=as_of)
    except RunCancelled:
        await sync_to_async(brief_mark_cancelled)(ctx)
        return
    finally:
        await ctx.model_thread_close()  # the last model call is behind us
    finished = await sync_to_async(_finish)(ctx, draft=draft, as_of=as_of, started=started)
    if finished:
        await ctx.step(
            "brief_ready",
            status="succeeded",
            outcome=draft.verdict.outcome.value,
            reason=str(draft.verdict.reason),
            citations=len(draft.citations),
            items=len(ctx.fetched_item_ids),
            as_of=as_of.isoformat(),
        )


def brief_mark_cancelled(ctx: RunContext) -> None:
    if Brief.objects.filter(pk=ctx.brief_id, status=BriefStatus.RUNNING).update(
        status=BriefStatus.CANCELLED,
        finished_at=timezone.now(),
        error=reasons.CANCELLED_ERROR.english(),
    ):
        step_append(
            brief_id=ctx.brief_id,
            kind="run_cancelled",
            payload={"reason": reasons.CANCELLED.english(), "step": ctx.steps_used},
        )
