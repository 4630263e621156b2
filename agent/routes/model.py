"""The route node's model method: the prompt, the call, and what a rejected answer leads to.

The rules an answer must pass are in ``agent.routes.choice``. Here:

- a single candidate without parameters is taken without a call (``only_candidate``);
- every refused value is a ``choice_rejected`` step with the value (escaped) and the reason;
- an answer still refused after its repair turn, because it named a subject the question does
  not give (a swap: "gaearon" for "torvalds"), falls back to the node's offline method when the
  question names exactly one subject of its own (read by ``agent.routes.entities``, the rules
  that fill parameters offline): that method fills the route from it. A question that names
  none ends the route node with ``ctx.needs`` set (the run ends ``needs_input``); one that
  names several is not guessed at either. Refused for any other reason, the node's offline
  method answers (``llm_fallback``);
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
from agent.routes.fit import platform_words
from briefs import reasons
from catalog.models import Platform, Route
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
    own = await sync_to_async(_own_subjects)(ctx, rejections)
    return _outcome(ctx, value, rejections, own_subjects=own)


def _own_subjects(ctx: RunContext, rejections: Rejections) -> int:
    """How many subjects the question names, read for the platforms of the refused routes."""
    namespaces = {c.template.split("/")[1] for c, _slot in rejections.subject.values()}
    values = set()
    for platform in Platform.objects.filter(namespace__in=namespaces):
        asked = ctx.reading.subjects(platform_words(platform))
        values |= {e.value.casefold() for e in asked.entities}
    return len(values)


def _outcome(
    ctx: RunContext, value: RouteChoice | None, rejections: Rejections, *, own_subjects: int = 0
) -> tuple | None:
    if value is None:
        refused = ctx.fallback_reasons[-1:] == [
            {"node": "route", "reason": llm.REASON_INVALID_OUTPUT}
        ]
        if not (refused and rejections.subject) or own_subjects == 1:
            return None  # the offline method answers, from the question's one subject
        ctx.needs.extend(need_of(c, p) for c, p in rejections.subject.values())
        return [], reasons.MODEL_SUBJECTS.english(), [], "model"
    if value.needs:
        ctx.needs.extend(value.needs)
        return [], value.reason or reasons.MODEL_NEEDS.english(), [], "model"
    return value.chosen, value.reason, [], "model"
