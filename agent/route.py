"""The route node: concrete paths from the chosen platforms' enabled routes, or what the
question lacks to fill them.

The model method (``agent.routes.model``) picks among the offered routes and fills their
parameters; the rules its answer must pass are in ``agent.routes.choice``. The offline method
fills each candidate's parameters from the question (``agent.routes.params``) and keeps the
best fit per platform (``agent.routes.fit``). Either way, a path that fails
``fetching.paths.path_build`` is refused (a ``choice_rejected`` step), never sent; a subject
the question does not give ends the node with ``ctx.needs`` set. When the only routes that fit
the question need setting up by staff (``agent.routes.setup``), the node reads nothing else
and ends with ``ctx.setup_needed`` set.
"""

from asgiref.sync import sync_to_async
from django.db.models import Q

from agent.context import RunContext
from agent.routes.choice import MAX_PATHS
from agent.routes.fit import (
    intent_blanks,
    intents_apart,
    names_refused,
    quoted_names,
    route_about,
    route_fill,
    route_reading,
    template_intents,
)
from agent.routes.model import routes_by_model
from agent.routes.named import kind_said
from agent.routes.offline import offline_choice
from agent.routes.page import page_path
from agent.routes.params import FilledPath
from agent.routes.setup import setup_needed
from agent.routes.slots import Slot, route_slots
from agent.routes.unsaid import SubjectMissing
from briefs import reasons
from catalog.models import Platform, Route
from catalog.search import RouteHit, routes_for_platforms
from fetching.paths import RoutePathRejected

ROUTE_CANDIDATES = 12
INTENT_CANDIDATES = 200  # how deep in the search's ranking a route serving the intent is found


def route_candidates(ctx: RunContext) -> list[RouteHit]:
    """The chosen platforms' routes as the catalog search ranks them, those serving the kind of
    feed the question asks for first (the search matches words, and "favourites" is not
    收藏夹; the kind of feed is read across languages)."""
    exclude = ctx.tried_routes | ctx.circuit_skipped
    ranked = routes_for_platforms(
        ctx.platforms, ctx.rewrite.query, exclude=exclude, limit=INTENT_CANDIDATES
    )
    asked = ctx.reading.intents
    if asked:  # of what the chosen platforms' names do not say (关键评论网 asks for no 评论)
        chosen = Platform.objects.filter(namespace__in=ctx.platforms)
        names = tuple(word for platform in chosen for word in intent_blanks(platform))
        asked = intents_apart(ctx.rewrite.query, names)
    serving = [h for h in ranked if asked & template_intents(h.name, h.path)]
    if ctx.reading.unnamed:
        # "我关注的那个 UP 主更新了吗": someone of a kind is meant, so the routes taking that
        # kind are the ones to ask for (and the search ranks them by other words)
        query = ctx.rewrite.query
        serving += [h for h in ranked if h not in serving and kind_said(h.name, h.path, query)]
    rest = [h for h in ranked[:ROUTE_CANDIDATES] if h not in serving]
    quoted = _quoted_routes(ctx, exclude)
    ids = {q.route_id for q in quoted}  # by id: a quoted route's hit has no search score
    serving = quoted + [h for h in serving if h.route_id not in ids]
    rest = [h for h in rest if h.route_id not in ids]
    return (serving[:ROUTE_CANDIDATES] + rest)[:ROUTE_CANDIDATES]


def _quoted_routes(ctx: RunContext, exclude: set[int]) -> list[RouteHit]:
    """The chosen platforms' routes whose name the question quotes whole (B站那个“入站必刷”榜单):
    the feed asked for by its own name, however the search ranks it."""
    quoted = Q()
    for name in quoted_names(ctx.rewrite.query):
        quoted |= Q(name__iexact=name)
    if not quoted:
        return []
    routes = (
        Route.objects.filter(quoted, enabled=True, platform__namespace__in=ctx.platforms)
        .exclude(pk__in=exclude)
        .select_related("platform")
    )
    return [
        RouteHit(r.pk, r.platform.namespace, r.path, r.name, r.example, score=0.0) for r in routes
    ]


def _route_fill(ctx: RunContext, route: Route) -> FilledPath:
    words, excluded, hosts = route_reading(route)
    # a platform chosen before this one names a source, no subject of it ("njuferret's
    # github.io blog": njuferret is the blog's platform, no GitHub user)
    namespace = route.platform.namespace
    if namespace in ctx.platforms and (before := ctx.platforms[: ctx.platforms.index(namespace)]):
        excluded = excluded | {ns.casefold() for ns in before if "/" not in ns}
    asked = ctx.reading.route_subjects(words, excluded, hosts)
    return route_fill(route, ctx.rewrite.query, asked=asked, hosts=hosts)


def paths_offline(ctx: RunContext, candidates: list[RouteHit]) -> tuple[list[tuple], str, list]:
    """The best route of each chosen platform with parameters from the question.

    A route whose parameters cannot be filled is refused and the next one of that platform is
    tried. When the question names a subject, only routes that take it are chosen. Below a
    route that is about the question (its name says something the question says) but was
    refused for a subject the question did not give, only routes about the question are taken;
    when none is left, what the refused routes lacked goes to ``ctx.needs``: asking beats
    reading an unrelated feed. A question that says someone is meant without naming them (some
    user, 某位 UP 主) reads no route that names no one."""
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
                below = below or route_about(ctx.rewrite.query, route)
    if missing:
        refused = [route for route, _exc in missing]
        filled = [f for f in filled if not names_refused(ctx.rewrite.query, f[2], refused)]
    if ctx.reading.unnamed:
        # "晋江某个作者的新文": a route whose subject may be left out reads no one's then
        for entry in [f for f in filled if not f[2].names_subject]:
            if empty := _subject_left_out(entry[1], entry[2]):
                filled.remove(entry)
                missing.append((entry[1], SubjectMissing(empty)))
    if missing and ctx.reading.unnamed:
        # "某位 B 站 UP 主的最新视频": someone is meant, and a feed of no one is not theirs, nor
        # a search for the words around them ("about new issues in the repo I maintain")
        filled = [f for f in filled if f[2].names_subject and not f[2].searches_only]
    scores = {hit.route_id: hit.score for hit in candidates}
    chosen, named = offline_choice(ctx.rewrite.query, filled, ctx.platforms, MAX_PATHS, scores)
    if not chosen:
        _needs_add(ctx, missing)
    reason = reasons.ROUTE_SUBJECT if named else reasons.ROUTE_BEST
    return (
        chosen,
        reasons.reason_join(reason.english(), reasons.ROUTE_PER_PLATFORM.english()),
        rejected,
    )


def _subject_left_out(route: Route, filled: FilledPath) -> list[Slot]:
    """The optional subject parameters ``filled`` leaves without a value, and the required
    settings it fills only with the catalog's example or default ("the category my coworker
    recommends": gwern's ``newest`` is not the one meant; "the keylol board I always hang out
    in": not its default, 热点聚焦) or required ones only with the question's other words
    ("某个标签下的文章": the tag meant is not 文章想单独订阅)."""
    slots = route_slots(route.path, route.parameters, route.description, route.example)
    return [
        s
        for s in slots
        if (s.subject and s.optional and not filled.params.get(s.name))
        or (not s.optional and filled.sources.get(s.name) in {"example", "keywords", "default"})
    ]


def _needs_add(ctx: RunContext, missing: list[tuple[Route, SubjectMissing]]) -> None:
    """What the best refused route of each platform lacked (the one taking the kind of subject
    the question names, else the first in the candidates' order; at most ``MAX_PATHS``
    platforms),
    once per platform and parameter: the issues of "the repo I care about" ask for its owner and
    name, not also for the keyword a search route of the same platform would have taken."""
    known = {(n["source"], n["parameter"]) for n in ctx.needs}
    best: dict[int, tuple[Route, SubjectMissing]] = {}
    query = ctx.rewrite.query
    # of one platform's, the route taking the kind of subject named (UP 主: a user, not a comic)
    missing = sorted(
        missing, key=lambda m: -kind_said(m[0].name, m[0].path, query, m[0].parameters)
    )
    for route, exc in missing:
        best.setdefault(route.platform_id, (route, exc))
    for route, exc in list(best.values())[:MAX_PATHS]:
        for need in exc.needs(route=route.path, source=route.platform.name):
            if (need["source"], need["parameter"]) not in known:
                known.add((need["source"], need["parameter"]))
                ctx.needs.append(need)


async def node_route(ctx: RunContext) -> bool:
    """Choose concrete paths from the chosen platforms' routes; False when none is left.

    Routes whose parameters cannot be filled are refused and the next candidates tried, within
    the same step."""
    first = await sync_to_async(route_candidates)(ctx)
    if page := await sync_to_async(page_path)(ctx, first):
        ctx.tried_routes.add(page[1])
        ctx.paths = [page]
        reason = reasons.ROUTE_PAGE.english()
        await ctx.step("choice", node="route", chosen=[page[0]], reason=reason, method="offline")
        return True
    if not ctx.tried_routes and await sync_to_async(_setup_check)(ctx, first):
        return False
    while candidates := first or await sync_to_async(route_candidates)(ctx):
        first = []
        items = [{"path": c.path, "name": c.name, "score": round(c.score, 3)} for c in candidates]
        if ctx.use_llm:
            await ctx.step("candidates", node="route", items=items)  # shown while the model thinks
        else:
            ctx.step_hold("candidates", node="route", items=items)  # written with the choice
        chosen, reason, rejected, method = await _routes_choose(ctx, candidates)
        for template, why in rejected:
            ctx.step_hold("choice_rejected", node="route", value=template, reason=why)
        ctx.tried_routes.update(route_id for _path, route_id in chosen if route_id)
        if not chosen and ctx.needs:
            await ctx.steps_flush()
            return False  # the question lacks a subject: asking beats reading another route
        if chosen:
            ctx.paths = chosen
            await ctx.step(
                "choice", node="route", chosen=[p for p, _ in chosen], reason=reason, method=method
            )
            return True
    await ctx.steps_flush()
    return False


def _setup_check(ctx: RunContext, candidates: list[RouteHit]) -> bool:
    """Whether the question fits only routes that need setting up (``ctx.setup_needed``)."""
    readable = list(Route.objects.select_related("platform").filter(
        pk__in=[c.route_id for c in candidates]
    ))  # fmt: skip
    ctx.setup_needed = setup_needed(ctx.rewrite.query, ctx.platforms, readable)
    return bool(ctx.setup_needed)


async def _routes_choose(ctx: RunContext, candidates: list[RouteHit]) -> tuple:
    if ctx.use_llm:
        picked = await routes_by_model(ctx, candidates)
        if picked is not None:
            return picked
    chosen, reason, rejected = await sync_to_async(paths_offline)(ctx, candidates)
    return chosen, reason, rejected, "offline"
