"""Routes this service's RSSHub cannot read until staff set it up, and what a question that
only such a route fits is told.

The catalog says when a route needs what an instance may lack: a configuration variable
(``require_config``, such as GitHub's access token) or a browser (``require_browser``). The
import leaves such routes disabled (``import_disabled_reason``) until staff enable them; an
enabled one whose last fetch the instance refused for a missing configuration
(``last_error_class`` ``needs_config``) lacks it still.

- Such an enabled route is never preferred over one that works (``fit.route_unconfigured``, the
  first sort key of the offline choice).
- When the question fits one of them (it asks for the kind of feed it serves, or says a word of
  its name: "微博热搜" and 热搜榜, "GitHub trending" and Trending) and none of the routes that
  can be read, the run reads nothing else and the brief says the source needs setting up by
  staff (``setup_needed``): another route's items would answer a question that was not asked.
"""

from django.db.models import Q

from agent.routes.fit import intent_said, route_about, route_said, route_unconfigured
from catalog.models import Route
from fetching.models import Outcome


def setup_needed(query: str, namespaces: list[str], readable: list[Route]) -> list[dict]:
    """The route of ``namespaces`` that fits ``query`` but needs setting up, as
    ``[{"source", "route"}]``, when none of ``readable`` (the candidates that can be read)
    fits it; else ``[]``."""
    if any(route_about(query, r) for r in readable if not route_unconfigured(r)):
        return []
    waiting = Route.objects.filter(platform__namespace__in=namespaces).filter(
        Q(enabled=False, platform__enabled=True)
        & ~Q(import_disabled_reason="")
        & (Q(require_config=True) | Q(require_browser=True))
        | Q(enabled=True, last_error_class=Outcome.NEEDS_CONFIG)
    )
    fits = [
        (intent_said(query, r), route_said(query, r)[0], r)
        for r in waiting.select_related("platform").order_by("path")
    ]
    fits = [f for f in fits if f[0] or f[1]]
    if not fits:
        return []
    _intent, _said, route = max(fits, key=lambda f: (f[0], f[1]))
    return [{"source": route.platform.name, "route": route.path}]
