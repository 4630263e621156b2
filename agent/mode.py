"""Which method each node used, and the run's honest ``mode``.

``model_or_offline`` is the one place a node asks the model: it respects the run's model
deadline, records usage and fallbacks, and otherwise runs the node's offline method. From what
it recorded, ``run_mode`` says what the brief was made with:

- ``model``: every node that had a choice to make used the model;
- ``mixed``: some nodes fell back to their offline method (``fallbacks`` says which and why);
- ``offline``: no node used the model (none configured, the brief asked for none, or every
  call failed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agent import llm
from agent.context import RunContext

MODE_MODEL, MODE_MIXED, MODE_OFFLINE = "model", "mixed", "offline"
METHOD_ONLY_CANDIDATE = "only_candidate"


async def model_or_offline(
    ctx: RunContext, node: str, call: Callable[[], Any], offline: Callable[[], Any]
) -> tuple[Any, str]:
    """Run the model method of ``node`` when the run uses one, else (or on failure) offline.

    ``call`` runs in the run's model thread (``ctx.in_model_thread``) and returns an
    ``llm.LLMResult``; it should pass
    ``deadline=ctx.llm_deadline`` on. Returns (value, "model" | "offline").
    """
    if not ctx.use_llm:
        return offline(), "offline"
    if time.monotonic() >= ctx.llm_deadline:
        await fallback_record(ctx, node, llm.REASON_DEADLINE)
        return offline(), "offline"

    try:
        result = await ctx.in_model_thread(call)
    except llm.LLMUnavailable as exc:
        for usage in exc.usage:
            await usage_record(ctx, usage)
        await fallback_record(ctx, node, exc.reason)
        return offline(), "offline"
    for usage in result.usage:
        await usage_record(ctx, usage)
    ctx.llm_answered.append(node)
    return result.value, "model"


async def usage_record(ctx: RunContext, usage: llm.LLMUsage) -> None:
    ctx.usage_add(usage.node, usage)
    await ctx.step("llm_usage", **usage.as_payload())


async def fallback_record(ctx: RunContext, node: str, reason: str) -> None:
    """``node`` answers with its offline method, for ``reason`` (one of ``llm.REASON_*``)."""
    ctx.llm_fallbacks.append(node)
    ctx.fallback_reasons.append({"node": node, "reason": reason})
    await ctx.step("llm_fallback", node=node, reason=reason)


def run_mode(ctx: RunContext) -> str:
    """``model``, ``mixed`` or ``offline``, from what the nodes recorded."""
    if not ctx.use_llm or not ctx.llm_answered:
        return MODE_OFFLINE
    return MODE_MIXED if ctx.llm_fallbacks else MODE_MODEL


def run_model_usage(ctx: RunContext) -> dict[str, Any]:
    """What the brief's ``usage`` says about the model beyond token counts."""
    return {
        "fallback_reasons": list(ctx.fallback_reasons),
        "claims_dropped": dict(ctx.claims_dropped),
    }
