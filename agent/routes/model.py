"""The route node's model method: the prompt, the call, and what a rejected answer leads to.

The rules an answer must pass are in ``agent.routes.choice``. Here:

- a single candidate without parameters is taken without a call (``only_candidate``);
- every refused value is a ``choice_rejected`` step with the value (escaped) and the reason;
- an answer still refused after its repair turn, because it named a subject the question does
  not give, ends the route node with ``ctx.needs`` set (the run ends ``needs_input``); refused
  for any other reason, the node's offline method answers (``llm_fallback``);
- the model's own ``needs_input`` answer sets ``ctx.needs`` the same way.
"""

from __future__ import annotations

import html

from asgiref.sync import sync_to_async

from agent import llm
from agent.context import RunContext
from agent.mode import METHOD_ONLY_CANDIDATE, model_or_offline
from agent.routes.choice import (
    MAX_PATHS,
    Candidate,
    Rejections,
    RouteChoice,
    candidates_describe,
    candidates_listing,
    need_of,
    route_schema,
    routes_validate,
)
from briefs import reasons
from catalog.models import Route
from catalog.search import RouteHit
from fetching.paths import path_build


def _candidates_load(candidates: list[RouteHit]) -> list[Candidate]:
    routes = Route.objects.select_related("platform").in_bulk([c.route_id for c in candidates])
    return candidates_describe([routes[c.route_id] for c in candidates if c.route_id in routes])


def _asked(ctx: RunContext) -> str:
    """What the asker wrote: a subject value must come from here (earlier turns included)."""
    return "\n".join([*(b.question for b in ctx.thread), ctx.brief.question])


def _prompt(ctx: RunContext, described: list[Candidate]) -> str:
    return (
        f"{llm.now_text()}\n{llm.window_text(ctx.rewrite.window)}\n\n"
        f"Question: {ctx.brief.question}\n"
        f"Query: {ctx.rewrite.query}\nKeywords: {', '.join(ctx.rewrite.keywords)}\n\n"
        f"Candidate routes:\n{candidates_listing(described)}\n\n"
        f"Choose at most {MAX_PATHS} routes, best first, and fill their parameters. A subject "
        "parameter takes only a value written in the question; a setting takes one of its "
        "listed values, or null when optional. If every fitting route needs a subject the "
        "question does not give, choose no route and list those parameters in needs_input. "
        "Say why."
    )


async def routes_by_model(ctx: RunContext, candidates: list[RouteHit]) -> tuple | None:
    """(chosen, reason, rejected, method), or None when the offline method should answer.

    ``chosen`` is empty when the question lacks a subject value (then ``ctx.needs`` says which).
    """
    described = await sync_to_async(_candidates_load)(candidates)
    if len(described) == 1 and not described[0].params:
        only = described[0]
        path = path_build(only.template, {})
        reason = "the only candidate, without parameters: no choice to ask for"
        return [(path, only.route_id)], reason, [], METHOD_ONLY_CANDIDATE
    rejections = Rejections()

    def call():
        return llm.llm_choose(
            user=ctx.owner,
            node="route",
            role="router",
            system=llm.SYSTEM_ROUTER,
            prompt=_prompt(ctx, described),
            schema=route_schema(described),
            validate=lambda v: routes_validate(
                v, described, asked=_asked(ctx), rejections=rejections
            ),
            deadline=ctx.llm_deadline,
        )

    value, _method = await model_or_offline(ctx, "route", call, lambda: None)
    for entry in rejections.entries:
        await ctx.step(
            "choice_rejected",
            node="route",
            value=html.escape(entry["value"]),
            reason=entry["reason"],
        )
    return _outcome(ctx, value, rejections)


def _outcome(ctx: RunContext, value: RouteChoice | None, rejections: Rejections) -> tuple | None:
    if value is None:
        refused = ctx.fallback_reasons[-1:] == [
            {"node": "route", "reason": llm.REASON_INVALID_OUTPUT}
        ]
        if not (refused and rejections.subject):
            return None
        ctx.needs.extend(need_of(c, p) for c, p in rejections.subject.values())
        return [], reasons.MODEL_SUBJECTS.english(), [], "model"
    if value.needs:
        ctx.needs.extend(value.needs)
        return [], value.reason or reasons.MODEL_NEEDS.english(), [], "model"
    return value.chosen, value.reason, [], "model"
