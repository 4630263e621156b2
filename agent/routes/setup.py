"""Routes this service's RSSHub cannot read until staff set it up, and what a question that
only such a route fits is told.

The catalog says when a route needs what an instance may lack: a configuration variable
(``require_config``, such as GitHub's access token) or a browser (``require_browser``), or
that staff must choose to serve it (``nsfw``). The import leaves such routes disabled
(``import_disabled_reason``) until staff enable them; an enabled one whose last fetch the
instance refused for a missing configuration (``last_error_class`` ``needs_config``) lacks it
still.

- Such an enabled route is never preferred over one that works (``fit.route_unconfigured``, the
  first sort key of the offline choice).
- When the question fits one of them (it asks for the kind of feed it serves, or says a word of
  its name: "微博热搜" and 热搜榜, "GitHub trending" and Trending) and none of the routes that
  can be read, the run reads nothing else and the brief says the source needs setting up by
  staff (``setup_needed``): another route's items would answer a question that was not asked.
- When the question names a subject, the waiting route that reads it plainly (its name asks
  nothing the question does not: Weibo's 博主 for "微博用户 X") fits better than readable
  routes that read a narrower feed of it (the user's bookmarks).
- The page the question gives decides which waiting route fits, where one's Radar rules read it.
- A platform the question names whose routes all wait so (``platforms_waiting``: Pixiv, whose
  routes the import leaves disabled) is still the platform asked for, not one the search finds
  in its place; with no route of it readable, its waiting route that fits best is the one named.
"""

from django.db.models import Q

from agent.routes.fit import (
    intent_said,
    route_about,
    route_fill,
    route_said,
    route_unconfigured,
)
from agent.routes.named import kind_said
from catalog.models import Platform, Route
from fetching.models import Outcome
from fetching.paths import RoutePathRejected
from fetching.radar import route_page_values

# Routes waiting for staff: left disabled by the import for what the instance may lack, or
# enabled and refused for a missing configuration.
WAITING = Q(enabled=False, platform__enabled=True) & ~Q(import_disabled_reason="") | Q(
    enabled=True, last_error_class=Outcome.NEEDS_CONFIG
)


def platforms_waiting(namespaces: list[str]) -> list[str]:
    """Those of ``namespaces`` (enabled platforms) with routes waiting for staff and none
    enabled, in the order given."""
    waiting = set(
        Platform.objects.filter(
            namespace__in=namespaces, enabled=True, routes__in=Route.objects.filter(WAITING)
        )
        .exclude(routes__enabled=True)
        .values_list("namespace", flat=True)
    )
    return [n for n in namespaces if n in waiting]


def setup_needed(query: str, namespaces: list[str], readable: list[Route]) -> list[dict]:
    """The route of ``namespaces`` that fits ``query`` but needs setting up, as
    ``[{"source", "route"}]``, when none of ``readable`` (the candidates that can be read)
    fits it; else ``[]``."""
    about = [r for r in readable if not route_unconfigured(r) and route_about(query, r)]
    waiting = Route.objects.filter(platform__namespace__in=namespaces).filter(WAITING)
    routes = list(waiting.select_related("platform").order_by("path"))
    # the kind of feed asked for that only a waiting route serves ("GitHub trending Python":
    # Trending) is not answered by a readable route about another word (a list's Python)
    if any(intent_said(query, r) for r in routes) and not any(intent_said(query, r) for r in about):
        about = [r for r in about if route_said(query, r)[0]]
    if any(_filled(query, r)[0] for r in about):
        return []
    # the page the question gives, which a waiting route's own rules read (x.com/elonmusk is
    # the user's timeline), says which
    if paged := next((r for r in routes if route_page_values(r, query) is not None), None):
        return [{"source": paged.platform.name, "route": paged.path}]
    if about:  # readable routes about it, none of them fillable from it ("Twitter 用户 X 的推文"
        # fits a single tweet's route, which asks for the tweet): only the waiting route that
        # reads the subject it names plainly beats asking
        plain = _plain_feed(query, routes, readable)
        return [{"source": plain.platform.name, "route": plain.path}] if plain else []
    fits = [(intent_said(query, r), route_said(query, r)[0], r) for r in routes]
    fits = [f for f in fits if f[0] or f[1]]
    if not fits and not readable:  # nothing of the platform can be read: its best waiting route
        fits = [(0, _filled(query, r), r) for r in routes]
    if not fits and (plain := _plain_feed(query, routes, readable)):
        fits = [(0, 0, plain)]
    if not fits:
        return []
    _intent, _said, route = max(fits, key=lambda f: (f[0], f[1]))
    return [{"source": route.platform.name, "route": route.path}]


def _plain_feed(query: str, waiting: list[Route], readable: list[Route]) -> Route | None:
    """The waiting route that reads the subject the question names and asks nothing it does
    not (微博博主 X: the user's own posts), when every readable route taking that subject reads
    a narrower feed of it (their bookmarks): asking staff beats reading what was not asked."""
    plain = [r for r in waiting if route_said(query, r)[1] == 0 and _filled(query, r)[1]]
    if not plain:
        return None
    taking = [r for r in readable if not route_unconfigured(r) and _filled(query, r)[1]]
    if any(route_said(query, r)[1] == 0 for r in taking):
        return None
    return plain[0]


def _filled(query: str, route: Route) -> tuple[int, int, int, int]:
    """How well the question fills a route no word of its name says: the subject it names
    taken, the kind of subject it names, the fewest words of the name it does not say."""
    try:
        filled = route_fill(route, query)
    except RoutePathRejected:
        return (0, 0, 0, 0)
    unsaid = route_said(query, route)[1]
    kind = kind_said(route.name, route.path, query, route.parameters)
    return (1, filled.names_subject, kind, -unsaid)
