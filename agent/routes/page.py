"""A page's address in the question: the route RSSHub Radar's rules map it to
(``fetching.radar``).

"New issues on https://github.com/vercel/next.js/issues" gives its subject and its feed by the
page's address, so the route its rules map the page to is read, whatever else the question's
words would rank first. When the page maps to several routes (a repository's page: its issues,
pulls, contributors...), the question's other words choose among them: the kind of feed it asks
for, then the words of a route's name it says, then the search's order. A kind of feed none of
them serves is read on a route of the platform serving it that the page's values fill by
parameter name; when none can, on the route of the page that fits the question's words best
(GitHub has no feed of a repository's releases: "new releases of
https://github.com/vercel/next.js" reads its events, not an unrelated feed of GitHub). A setting
the route lists that the page leaves open takes the value the question names (爱思想's column
page and "新时评": its 时评; the events of type release for "new releases"), and a value the page's
query keys as its description names it (HN's submitted?id=pg: the user). The page's own query
names its feed before any of that (gcores.com/categories/45?tab=radios), and a route beside the
page's with a word more that the question says reads the page's values (a tieba thread and
只看楼主).
"""

import re
from urllib.parse import parse_qsl

from agent.context import RunContext
from agent.routes.fit import route_intents, route_reading, route_said
from agent.routes.keyed import keyed_query_fill
from agent.routes.queries import LINK_QUERY_RE, query_fill, takes_query
from agent.routes.settings import names_region, settings_fill
from agent.routes.slots import Slot, route_slots
from agent.routes.unsaid import close_gaps
from catalog.models import Route
from catalog.search import RouteHit
from fetching.paths import RoutePathRejected, path_build, template_parameters
from fetching.radar import RadarHit, page_addresses, route_page_values


def page_hits(ctx: RunContext) -> list[RadarHit]:
    """The routes of the chosen platforms the question's page maps to, not tried yet."""
    return [
        hit
        for hit in ctx.reading.pages()
        if hit.namespace in ctx.platforms and hit.route_id not in ctx.tried_routes
    ]


def page_namespaces(ctx: RunContext, exclude: set[str]) -> list[str]:
    """The platform whose page the question gives, when its rules map the page to a route; of
    several sharing the site (ScienceDirect and Elsevier), the one the question names."""
    found = list(
        dict.fromkeys(h.namespace for h in ctx.reading.pages() if h.namespace not in exclude)
    )
    named = ctx.reading.platforms_named()
    return sorted(found, key=lambda ns: -named.get(ns, 0))[:1]


def page_path(ctx: RunContext, candidates: list[RouteHit]) -> tuple[str, int] | None:
    """The path to read for the question's page, and its route; None when it gives none that
    serves what it asks for."""
    hits = page_hits(ctx)
    if not hits:
        return None
    routes = Route.objects.select_related("platform").in_bulk(
        {h.route_id for h in hits} | {c.route_id for c in candidates}
    )
    query = ctx.rewrite.query
    # the page's own query names its feed (gcores.com/categories/45?tab=radios is
    # ``/gcores/categories/45/radios``), whatever else the question's words ask
    tabbed = {v for m in LINK_QUERY_RE.finditer(query) for _k, v in parse_qsl(m.group(2))}

    def tab(hit: RadarHit) -> bool:
        values = set(hit.path.split("/")) - _literals(routes[hit.route_id].path)
        return bool(tabbed & values)

    hits = [h for h in hits if tab(h)] or hits
    asked = ctx.reading.intents
    # a page whose address names its feed after its values (``user/:id/livestream``) is that
    # feed, whatever else the question's words ask ("when someone posts a new livestream")
    if asked and not any(_feed_named_last(h) or tab(h) for h in hits):
        serving = [h for h in hits if asked & route_intents(routes[h.route_id])]
        if serving:
            hits = serving
        elif filled := _filled_by_page(
            hits, [routes[c.route_id] for c in candidates], asked, query
        ):
            return filled
    rank = {c.route_id: i for i, c in enumerate(candidates)}

    def fit(hit: RadarHit) -> tuple:
        said, unsaid = route_said(query, routes[hit.route_id])
        return (-hit.literals, -said, unsaid, rank.get(hit.route_id, len(rank)), hit.path)

    best = min(hits, key=fit)
    if named := _named_beside(query, best, [routes[c.route_id] for c in candidates], routes):
        return named
    if keyed := _keyed_beside(query, best, routes[best.route_id]):
        return keyed
    # the page's path with the settings the question names that the page does not give
    # (爱思想's column page and "新时评": its :type 时评; the page's query, kpopping's
    # ``kpics?gender=male``, for a parameter written as one)
    if set_path := _set_path(ctx, routes[best.route_id], dict(best.values)):
        return set_path, best.route_id
    if set_beside := _set_beside(ctx, best, [routes[c.route_id] for c in candidates], routes):
        return set_beside
    return best.path, best.route_id


def _named_beside(
    query: str, hit: RadarHit, candidates: list[Route], routes: dict[int, Route]
) -> tuple[str, int] | None:
    """A route beside the page's that the question names by more of its name or path, filled
    by the page's values alone (a tieba thread and 只看楼主: ``/baidu/tieba/post/lz/:id``)."""
    values = dict(hit.values)
    page_route = routes[hit.route_id]
    own = route_said(query, page_route)[0]
    literals = _literals(page_route.path)
    for route in candidates:
        names = [(name, optional) for name, _regex, optional in template_parameters(route.path)]
        if route.pk == hit.route_id or not values or {n for n, _o in names} != set(values):
            continue
        if not literals < _literals(route.path):  # the page's feed with a word more: post/lz
            continue
        if route_said(query, route)[0] <= own:
            continue
        try:
            return path_build(route.path, values), route.pk
        except RoutePathRejected:
            continue
    return None


def _keyed_beside(query: str, hit: RadarHit, page_route: Route) -> tuple[str, int] | None:
    """A route of the page's platform that takes the page's values and a value its query keys
    by the route's own parameter's name, which the page's route leaves out
    (space.bilibili.com/UID/favlist?fid=N: ``/bilibili/fav/:uid/:fid``, not the default
    folder's ``/bilibili/user/fav/:uid``)."""
    pairs = {k: v for m in LINK_QUERY_RE.finditer(query) for k, v in parse_qsl(m.group(2))}
    given = dict(hit.values)
    keyed = {k: v for k, v in pairs.items() if k not in given and re.fullmatch(r"[\w.~-]+", v)}
    if not keyed:
        return None
    own = {name for name, _r, _o in template_parameters(page_route.path)}
    siblings = Route.objects.filter(platform_id=page_route.platform_id, enabled=True)
    for route in siblings.exclude(pk=page_route.pk).order_by("pk"):
        names = template_parameters(route.path)
        required = {name for name, _r, optional in names if not optional}
        wanted = required & set(keyed)
        if not wanted or wanted & own or not required <= set(given) | set(keyed):
            continue
        try:
            return path_build(route.path, {**given, **{k: keyed[k] for k in wanted}}), route.pk
        except RoutePathRejected:
            continue
    return None


def _literals(template: str) -> set[str]:
    return {segment for segment in template.split("/") if segment and not segment.startswith(":")}


def _feed_named_last(hit: RadarHit) -> bool:
    last = hit.path.rstrip("/").rsplit("/", 1)[-1]
    return len(hit.values) > 0 and all(last not in value for _name, value in hit.values)


def _set_beside(
    ctx: RunContext, hit: RadarHit, candidates: list[Route], routes: dict[int, Route]
) -> tuple[str, int] | None:
    """A route beside the page's taking the page's values and a setting the question names
    that the page's route lists none of (a douban channel's page and 图书: the channel's
    books, ``/douban/channel/:id/subject/2``)."""
    given = dict(hit.values)
    if not given:
        return None
    literals = _literals(routes[hit.route_id].path)
    for route in candidates:
        names = {name for name, _regex, _optional in template_parameters(route.path)}
        if route.pk == hit.route_id or not set(given) < names:
            continue
        if literals < _literals(route.path) and (path := _set_path(ctx, route, given)):
            return path, route.pk
    return None


def _set_path(ctx: RunContext, route: Route, given: dict[str, str]) -> str | None:
    """``route``'s path with the page's values ``given`` and the settings the question names
    that they leave open; None when the question names none, or leaves a required one open."""
    slots = route_slots(route.path, route.parameters, route.description, route.example)
    open_slots = [s for s in slots if s.name not in given]
    keyed = _described_keys(open_slots, ctx.rewrite.query)
    if not keyed and not any(s.choices or names_region(s) or takes_query(s) for s in open_slots):
        return None
    words, excluded, hosts = route_reading(route)
    asked = ctx.reading.route_subjects(words, excluded, hosts)
    values, sources = dict(given), {}
    query_fill(slots, ctx.rewrite.query, values, sources, hosts)
    settings_fill(slots, ctx.rewrite.query, asked, words, set(excluded), values, sources, hosts)
    keyed_query_fill(slots, route.description, ctx.rewrite.query, values, sources, asked.text)
    # a language at its default is the question's own, not asked for (taptap.cn's zh-CN)
    defaults = {s.name: s.default for s in slots if s.chooses_language}
    named = {
        k: v
        for k, v in values.items()
        if sources.get(k) == "option" and k not in given and v != defaults.get(k)
    }
    named |= keyed
    if not named:
        return None
    # a setting named after one left open takes that one's default between them (TapTap's
    # review page in 繁體中文: its sort, ``helpful``, before the language)
    values = {**given, **named}
    close_gaps(slots, values, {k: sources.get(k, "page") for k in values})
    try:
        return path_build(route.path, values)
    except RoutePathRejected:
        return None


def _described_keys(slots: list[Slot], query: str) -> dict[str, str]:
    """The open parameters whose description names a key of the page's query, with its value
    (news.ycombinator.com/submitted?id=pg: Hacker News's :value, "set user ID")."""
    # the pages' queries as ``page_addresses`` trims them ("(...submitted?id=pg)": no ")"),
    # and without the question's own mark ("...submitted?id=pg?")
    pairs = {
        k.casefold(): v.rstrip("?")
        for address in page_addresses(query)
        for k, v in parse_qsl(address.query)
    }
    found = {}
    for slot in slots:
        words = set(re.findall(r"[a-z]+", slot.description.casefold()))
        keys = [k for k, v in pairs.items() if k in words and re.fullmatch(r"[\w.~-]+", v)]
        if slot.subject and len(keys) == 1:
            found[slot.name] = pairs[keys[0]]
    return found


def _filled_by_page(
    hits: list[RadarHit], candidates: list[Route], asked: frozenset[str], query: str
) -> tuple[str, int] | None:
    """The first candidate serving the kind of feed asked for whose parameters the page's values
    fill by name (a repository page's user and repo fill the repository's releases), or that
    one of its own rules reads the page for ("new posts" and a zhihu.com/people page: the
    user's posts, ``/zhihu/posts/:usertype/:id``)."""
    page_values = {k: v for hit in hits for k, v in hit.values}
    for route in candidates:
        if not asked & route_intents(route):
            continue
        values = page_values
        names = [(name, optional) for name, _regex, optional in template_parameters(route.path)]
        if any(not optional and name not in values for name, optional in names):
            values = {**values, **(route_page_values(route, query) or {})}
        if any(not optional and name not in values for name, optional in names):
            continue
        if not any(name in values for name, _optional in names):
            continue  # a feed of the site no value of the page says (Apple's security releases)
        try:
            path = path_build(route.path, {n: values[n] for n, _o in names if n in values})
        except RoutePathRejected:
            continue
        return path, route.pk
    return None
