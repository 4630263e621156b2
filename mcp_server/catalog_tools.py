"""The catalog tools: search_routes and route_health.

The ranking is the agent's own first step (``catalog.search.search_catalog``); health is each
route's row data as the REST API's catalog gives it (``RouteHealthOut``): state, success rate,
latency, last error class and circuit.
"""

from django.db.models import Count, Q

from briefs.errors import FieldInvalid
from catalog.api import RouteHealthOut
from catalog.health import health_condition
from catalog.models import Platform, Route
from catalog.search import SearchQuestionInvalid, search_catalog
from fetching.paths import RoutePathRejected, path_normalise, route_for_path
from mcp_server.follow import in_thread
from mcp_server.inputs import (
    ROUTE_HEALTH_SCHEMA,
    ROUTES_MAX,
    SEARCH_ROUTES_SCHEMA,
    RouteHealthInput,
    SearchRoutesInput,
    arguments_clean,
)
from mcp_server.tool import ToolAnswer, ToolCall, ToolSpec

SUMMARY_STATES = ("healthy", "degraded", "failing", "open")


def route_health_data(route: Route) -> dict:
    return {
        "path": route.path,
        "name": route.name,
        "namespace": route.platform.namespace,
        "enabled": route.enabled,
        "health": dict(RouteHealthOut(route).data),
    }


def routes_ranked(*, query: str, limit: int) -> dict:
    try:
        result = search_catalog(query, limit=limit)
    except SearchQuestionInvalid as exc:
        raise FieldInvalid("query", str(exc)) from None
    routes = Route.objects.select_related("platform").in_bulk([h.route_id for h in result.routes])
    return {
        "terms": list(result.terms),
        "platforms": [
            {"namespace": p.namespace, "name": p.name, "score": round(p.score, 3)}
            for p in result.platforms
        ],
        "routes": [
            {
                **route_health_data(routes[hit.route_id]),
                "example": hit.example,
                "score": round(hit.score, 3),
            }
            for hit in result.routes
            if hit.route_id in routes
        ],
    }


async def search_routes(call: ToolCall) -> ToolAnswer:
    args = arguments_clean(SearchRoutesInput, call.arguments)
    return ToolAnswer(data=await in_thread(routes_ranked)(query=args["query"], limit=args["limit"]))


def _route_of_path(path: str) -> Route:
    """The route whose template is ``path``, or the one a concrete path falls under."""
    routes = Route.objects.select_related("platform")
    route = routes.filter(path=path).first()
    if route is not None:
        return route
    try:
        template = route_for_path(path_normalise(path))
    except RoutePathRejected:
        template = None
    if template is None:
        raise Route.DoesNotExist(path)
    return routes.get(pk=template.route_id)


def _platform_health(namespace: str) -> dict:
    platform = Platform.objects.get(namespace=namespace)
    routes = list(platform.routes.select_related("platform").order_by("path")[:ROUTES_MAX])
    counts = platform.routes.aggregate(
        total=Count("id"),
        tried=Count("id", filter=Q(attempts__gt=0)),
        **{state: Count("id", filter=health_condition(state)) for state in SUMMARY_STATES},
    )
    return {
        "namespace": platform.namespace,
        "name": platform.name,
        "enabled": platform.enabled,
        "summary": counts,
        "routes": [route_health_data(r) for r in routes],
    }


def health_of(*, path_or_namespace: str) -> dict:
    """One route's health (a path), or a platform's and each of its routes' (a namespace)."""
    if path_or_namespace.startswith("/"):
        return {"route": route_health_data(_route_of_path(path_or_namespace))}
    return {"platform": _platform_health(path_or_namespace)}


async def route_health(call: ToolCall) -> ToolAnswer:
    args = arguments_clean(RouteHealthInput, call.arguments)
    data = await in_thread(health_of)(path_or_namespace=args["path_or_namespace"])
    return ToolAnswer(data=data)


CATALOG_TOOLS = (
    ToolSpec(
        name="search_routes",
        title="Search the feed catalog",
        description=(
            "Rank the catalog's platforms (RSSHub namespaces) and routes for a question or a few "
            "words, best first, as the agent does before it fetches: each route with its path, "
            "name, an example path and its health (state unknown / healthy / degraded / failing "
            "/ open, success rate, latency, last error class, circuit). Use it to see which "
            "sources exist for a subject; ask does the routing itself."
        ),
        input_schema=SEARCH_ROUTES_SCHEMA,
        run=search_routes,
    ),
    ToolSpec(
        name="route_health",
        title="Route health",
        description=(
            "The health of one route (give its path) or of a platform's routes (give its "
            "namespace): attempts, success rate, latency in ms, last success, last error class, "
            "newest item seen and circuit state (open: the route is resting after failures)."
        ),
        input_schema=ROUTE_HEALTH_SCHEMA,
        run=route_health,
    ),
)
