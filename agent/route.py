"""The choosing nodes: rewrite, platform and route, each with a model method and an offline one.

The model only ever chooses among candidates the code offers, and the code validates every
choice: a namespace not offered, a route not offered or parameters that fail
``fetching.paths.path_build`` are refused (a ``choice_rejected`` step), never sent.
When the model is unavailable or fails twice, the node's offline method answers instead and an
``llm_fallback`` step says so. A node with a single candidate takes it without asking.
Utility namespaces (``fetching.paths.UTILITY_NAMESPACES``, refused by path confinement) are
never candidates. The route node's model method lives in ``agent.routes.model``.
"""

from asgiref.sync import sync_to_async

from agent import llm
from agent.context import RunContext
from agent.mode import METHOD_ONLY_CANDIDATE, model_or_offline
from agent.question import (
    Rewrite,
    TimeWindow,
    keywords_of,
    named_window,
    rewrite_offline,
    time_window,
)
from agent.routes.fit import offline_choice, platform_words, route_said
from agent.routes.model import routes_by_model
from agent.routes.params import FilledPath, SubjectMissing, params_fill
from catalog.models import Route
from catalog.search import (
    MAX_QUESTION_CHARS,
    PlatformHit,
    RouteHit,
    question_problem,
    routes_for_platforms,
    search_catalog,
)
from fetching.paths import UTILITY_NAMESPACES, RoutePathRejected

MAX_PLATFORMS = 3
MAX_PATHS = 3
PLATFORM_CANDIDATES = 8
ROUTE_CANDIDATES = 12
CLOSE_TO_TOP = 0.5  # offline: other platforms chosen when their score is this close to the top
WINDOW_LABELS = ["latest", "today", "yesterday", "this_week", "this_month", "last_24h"]


# --- rewrite ------------------------------------------------------------------------------------

# Strict: every field required, nothing else allowed (window_hours is null when not asked).
REWRITE_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "the question made self-contained"},
        "language": {"type": "string", "enum": ["zh", "en", "other"]},
        "keywords": {"type": "array", "items": {"type": "string"}, "description": "at most 8"},
        "window": {"type": "string", "enum": WINDOW_LABELS},
        "window_hours": {
            "type": ["integer", "null"],
            "description": "hours back from now, 1 to 8784, when the question says so",
        },
    },
    "required": ["query", "language", "keywords", "window", "window_hours"],
    "additionalProperties": False,
}


def _rewrite_validate(value: dict, question: str) -> Rewrite:
    query = value.get("query")
    if not isinstance(query, str) or not query.strip() or len(query) > MAX_QUESTION_CHARS:
        raise ValueError(
            f"query must be a non-empty string of at most {MAX_QUESTION_CHARS} characters"
        )
    query = " ".join(query.split())
    if problem := question_problem(query):  # the catalog search would refuse it
        raise ValueError(f"query: {problem}")
    keywords = value.get("keywords")
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        raise ValueError("keywords must be a list of strings")
    if value.get("window") not in WINDOW_LABELS:
        raise ValueError(f"window must be one of {WINDOW_LABELS}")
    hours = value.get("window_hours")
    if isinstance(hours, int) and 1 <= hours <= 8784:
        window = time_window(f"past {hours} hours")
    elif value["window"] == "latest":
        window = TimeWindow("latest")
    else:
        window = named_window(value["window"])
    language = value.get("language") if value.get("language") in ("zh", "en") else "en"
    words = [k.strip()[:60] for k in keywords if k.strip()][:8] or keywords_of(query)
    return Rewrite(
        query=query,
        language=language,
        keywords=words,
        window=window,
        method="model",
    )


def _thread_prompt(thread: list) -> str:
    """The earlier turns of a follow-up. An earlier answer quotes feed items, so it goes in as
    fenced data (item n is the n-th earlier turn), like any item text."""
    if not thread:
        return ""
    questions = "\n".join(f"Earlier question {n}: {b.question}" for n, b in enumerate(thread, 1))
    answers = llm.fenced_items(
        llm.PromptItem(n=n, path=f"earlier answer {n}", title="", summary=b.body[:600])
        for n, b in enumerate(thread, 1)
    )
    return f"{questions}\n\nEarlier answers (excerpts):\n{answers}\n\n"


async def node_rewrite(ctx: RunContext) -> Rewrite:
    question = ctx.brief.question
    earlier = [b.question for b in ctx.thread]
    offline = lambda: rewrite_offline(question, thread=earlier)  # noqa: E731

    def call():
        prompt = (
            f"{llm.now_text()}\n\n{_thread_prompt(ctx.thread)}Question: {question}\n\n"
            "Rewrite the question as a self-contained search query for news feeds, with its "
            "language, topic keywords and the time window it asks about."
        )
        return llm.llm_choose(
            user=ctx.owner,
            node="rewrite",
            role="router",
            system=llm.SYSTEM_REWRITE,
            prompt=prompt,
            schema=REWRITE_SCHEMA,
            validate=lambda v: _rewrite_validate(v, question),
            deadline=ctx.llm_deadline,
        )

    rewrite, _method = await model_or_offline(ctx, "rewrite", call, offline)
    return rewrite


# --- platform -----------------------------------------------------------------------------------


def platform_candidates(ctx: RunContext) -> list[PlatformHit]:
    result = search_catalog(
        ctx.rewrite.query,
        platform_limit=PLATFORM_CANDIDATES,
        limit=PLATFORM_CANDIDATES,
        exclude_namespaces=ctx.tried_namespaces | UTILITY_NAMESPACES,
    )
    return [p for p in result.platforms if p.namespace not in UTILITY_NAMESPACES]


def platforms_offline(candidates: list[PlatformHit]) -> tuple[list[str], str]:
    top = candidates[0].score
    chosen = [c.namespace for c in candidates if c.score >= top * CLOSE_TO_TOP][:MAX_PLATFORMS]
    reason = f"highest search score ({top:.2f})" + (
        f" and {len(chosen) - 1} close to it" if len(chosen) > 1 else ""
    )
    return chosen, reason


def _choice_schema(options: list[str], max_items: int) -> dict:
    return {
        "type": "object",
        "properties": {
            "chosen": {
                "type": "array",
                "items": {"type": "string", "enum": options},
                "description": f"1 to {max_items} of the offered, best first",
            },
            "reason": {"type": "string"},
        },
        "required": ["chosen", "reason"],
        "additionalProperties": False,
    }


def _platforms_validate(value: dict, offered: list[str]) -> tuple[list[str], str]:
    chosen = value.get("chosen")
    if not isinstance(chosen, list) or not chosen:
        raise ValueError("chosen must be a non-empty list of offered namespaces")
    unknown = [c for c in chosen if c not in offered]
    if unknown:
        raise ValueError(f"not offered: {unknown[:3]}; choose only from {offered}")
    reason = value.get("reason") if isinstance(value.get("reason"), str) else ""
    return list(dict.fromkeys(chosen))[:MAX_PLATFORMS], reason[:300]


async def node_platform(ctx: RunContext) -> bool:
    """Choose up to three platforms; False when the catalog offers none that is left."""
    candidates = await sync_to_async(platform_candidates)(ctx)
    await ctx.step(
        "candidates",
        node="platform",
        items=[
            {"namespace": c.namespace, "name": c.name, "score": round(c.score, 3)}
            for c in candidates
        ],
    )
    if not candidates:
        return False
    offered = [c.namespace for c in candidates]

    def call():
        listing = "\n".join(f"- {c.namespace}: {c.name} (score {c.score:.2f})" for c in candidates)
        prompt = (
            f"{llm.now_text()}\n\nQuery: {ctx.rewrite.query}\n\nCandidate platforms "
            f"(namespace: name):\n{listing}\n\nChoose at most {MAX_PLATFORMS} platforms most "
            "likely to have fresh items answering the query, best first, and say why."
        )
        return llm.llm_choose(
            user=ctx.owner,
            node="platform",
            role="router",
            system=llm.SYSTEM_ROUTER,
            prompt=prompt,
            schema=_choice_schema(offered, MAX_PLATFORMS),
            validate=lambda v: _platforms_validate(v, offered),
            deadline=ctx.llm_deadline,
        )

    if len(offered) == 1 and ctx.use_llm:
        chosen, reason, method = (
            offered,
            "the only candidate: no choice to ask for",
            METHOD_ONLY_CANDIDATE,
        )
    else:
        (chosen, reason), method = await model_or_offline(
            ctx, "platform", call, lambda: platforms_offline(candidates)
        )
    ctx.platforms = chosen
    ctx.tried_namespaces.update(chosen)
    await ctx.step("choice", node="platform", chosen=chosen, reason=reason, method=method)
    return True


# --- route --------------------------------------------------------------------------------------


def route_candidates(ctx: RunContext) -> list[RouteHit]:
    exclude = ctx.tried_routes | ctx.circuit_skipped
    return routes_for_platforms(
        ctx.platforms, ctx.rewrite.query, exclude=exclude, limit=ROUTE_CANDIDATES
    )


def _route_fill(ctx: RunContext, route: Route) -> FilledPath:
    return params_fill(
        template=route.path,
        parameters=route.parameters,
        description=route.description,
        example=route.example,
        question=ctx.rewrite.query,
        platform_words=platform_words(route.platform),
        route_name=route.name,
    )


def paths_offline(ctx: RunContext, candidates: list[RouteHit]) -> tuple[list[tuple], str, list]:
    """The best route of each chosen platform with parameters from the question.

    A route whose parameters cannot be filled is refused and the next one of that platform is
    tried. When the question names a subject, only routes that take it are chosen. Below a
    route that is about the question (its name says something the question says) but was
    refused for a subject the question did not give, only routes about the question are taken;
    when none is left, what the refused routes lacked goes to ``ctx.needs``: asking beats
    reading an unrelated feed."""
    routes = Route.objects.select_related("platform").in_bulk([c.route_id for c in candidates])
    filled, rejected, missing, below = [], [], [], False
    for hit in candidates:
        route = routes[hit.route_id]
        try:
            filled.append((hit.namespace, route, _route_fill(ctx, route), below))
        except RoutePathRejected as exc:
            rejected.append((route.path, str(exc)))
            ctx.tried_routes.add(route.pk)
            if isinstance(exc, SubjectMissing):
                missing.append((route, exc))
                below = below or route_said(ctx.rewrite.query, route)[0] > 0
    chosen, named = offline_choice(ctx.rewrite.query, filled, ctx.platforms, MAX_PATHS)
    if not chosen:
        _needs_add(ctx, missing[:MAX_PATHS])
    reason = "route that takes the subject the question names" if named else "best-matching route"
    return chosen, f"{reason}, one per chosen platform", rejected


def _needs_add(ctx: RunContext, missing: list[tuple[Route, SubjectMissing]]) -> None:
    """What the refused routes lacked, once per platform and parameter."""
    known = {(n["source"], n["parameter"]) for n in ctx.needs}
    for route, exc in missing:
        for need in exc.needs(route=route.path, source=route.platform.name):
            if (need["source"], need["parameter"]) not in known:
                known.add((need["source"], need["parameter"]))
                ctx.needs.append(need)


async def node_route(ctx: RunContext) -> bool:
    """Choose concrete paths from the chosen platforms' routes; False when none is left.

    Routes whose parameters cannot be filled are refused and the next candidates tried, within
    the same step."""
    while candidates := await sync_to_async(route_candidates)(ctx):
        await ctx.step(
            "candidates",
            node="route",
            items=[
                {"path": c.path, "name": c.name, "score": round(c.score, 3)} for c in candidates
            ],
        )
        chosen, reason, rejected, method = await _routes_choose(ctx, candidates)
        for template, why in rejected:
            await ctx.step("choice_rejected", node="route", value=template, reason=why)
        ctx.tried_routes.update(route_id for _path, route_id in chosen if route_id)
        if not chosen and ctx.needs:
            return False  # the question lacks a subject: asking beats reading another route
        if chosen:
            ctx.paths = chosen
            await ctx.step(
                "choice", node="route", chosen=[p for p, _ in chosen], reason=reason, method=method
            )
            return True
    return False


async def _routes_choose(ctx: RunContext, candidates: list[RouteHit]) -> tuple:
    if ctx.use_llm:
        picked = await routes_by_model(ctx, candidates)
        if picked is not None:
            return picked
    chosen, reason, rejected = await sync_to_async(paths_offline)(ctx, candidates)
    return chosen, reason, rejected, "offline"
