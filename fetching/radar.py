"""RSSHub Radar: the routes a page's address maps to.

A route of the catalog may carry radar rules (``Route.radar``, imported with it): each maps the
addresses of a site's pages (``github.com/:user/:repo/issues``) to the route that reads them,
its parameters taken from the address (``target``; the route's own key when none is given).
RSSHub's browser extension finds a page's feeds with them; here a question that gives a page's
address ("new issues on https://github.com/vercel/next.js/issues") is read on the route its
page maps to.

A source is matched on the host (``www.`` aside, case aside) and the path, segment by segment:
a literal segment must be equal, ``:name`` takes one segment, ``:name?`` may be absent, and
``*name`` or ``:name*`` takes the rest. A segment may mix both (``:id.html``). Sources that
match on a query string or a fragment (single-page sites) are left out: the path alone does not
decide them. Of the rules an address matches, those with more literal segments are the more
specific ones (``/:user/:repo/issues`` over ``/:user/:repo/:type``); every route of the most
specific level is a hit, for the question's other words to choose among. Pages that only a
route's description shows are read by ``fetching.radar_described``.
"""

import re
from urllib.parse import parse_qsl, unquote

from django.db.models import Q

from catalog.models import Platform, Route
from fetching.paths import (
    template_parameters,
    template_values,
)
from fetching.radar_described import described_hits
from fetching.radar_match import (
    SCHEME_RE,
    TRAILING,
    Address,
    RadarHit,
    query_as_path,
    route_hit,
    route_key,
    source_match,
)
from fetching.radar_rules import (
    host_sectioned,
    renamed,
    rest_taken,
    tail_taken,
    unnamed_taken,
)

# A page's address: with its scheme, or bare with at least one path segment (a host alone, or
# a word like "next.js", names no page). ASCII, so a Chinese word after it is not part of it
# ("https://space.bilibili.com/2267573的投稿"); a whole segment of other letters is
# ("https://www.4gamers.com.tw/news/tag/限時免費"). Full-width punctuation ends it, query and
# fragment too ("?tab=tech" and a full-width parenthesis after it).
ADDRESS_RE = re.compile(
    r"(?:\bhttps?://|(?<![\w.@/\-]))(?:www\.)?"
    r"((?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+[a-z]{2,12})(?::\d{1,5})?"
    r"((?:/(?:[\w\-.~%!$&'*+,;=:@]+|[^\x00-\x7f\s\u3000-\u303f\uff00-\uffef]+)?)*)"
    r"(?:\?([^#\s\u3000-\u303f\uff00-\uffef]*))?(?:#([^\s\u3000-\u303f\uff00-\uffef]*))?",
    re.I | re.ASCII,
)
MAX_ADDRESSES = 3
# A parameter documented as a feed address's last segment; and a feed file's extension
LAST_SEGMENT_RE = re.compile(r"\blast segment of\b.{0,80}\burl\b", re.I)
FEED_EXTENSION_RE = re.compile(r"\.(?:xml|rss|atom)$", re.I)
REST_PARAM_RE = re.compile(r":(\w+)\{\.[+*]\}\??")  # a route's :path{.+} takes the rest
# A parameter documented as read off the page's address: "can be found in the url", 可在 URL 中找到
URL_DOCUMENTED_RE = re.compile(
    r"\b(?:in|from)\s+(?:the\s+)?(?:page'?s?\s+)?url\b|url\s*中|网址中", re.I
)
# The shapes a value may take, narrowest first: a page's segment must take its example's
VALUE_SHAPES = [re.compile(p) for p in (r"\d+", r"[a-z]+", r"[A-Za-z]+", r"[a-z0-9]+", r"[\w\-]+")]
PAGE_EXTENSION_RE = re.compile(r"\.(?:s?html?|php|aspx?|jsp)$", re.I)


def page_addresses(text: str) -> list[Address]:
    """The page addresses ``text`` gives, first ones first."""
    found = []
    for match in ADDRESS_RE.finditer(text):
        has_scheme = bool(SCHEME_RE.match(match.group(0)))
        path, query = match.group(2), match.group(3) or ""
        fragment = (match.group(4) or "").removeprefix("!")
        if not path.strip("/") and not query and fragment.startswith("/"):
            # a page a script routes by its fragment: music.163.com/#/playlist?id=3778678
            path, _, query = fragment.partition("?")
        path = _trimmed(path)
        segments = tuple(unquote(s) for s in path.split("/") if s)
        if segments or has_scheme or query:
            query = _trimmed(query)
            found.append(Address(match.group(1).casefold(), segments, query))
    return found[:MAX_ADDRESSES]


def _trimmed(text: str) -> str:
    """An address's path or query without the sentence's punctuation after it, nor a closing
    parenthesis it does not open ("(v2ex.com/?tab=creative)")."""
    text = text.rstrip(TRAILING)
    while text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1].rstrip(TRAILING)
    return text


def radar_hits(text: str) -> list[RadarHit]:
    """The enabled routes the pages ``text`` gives map to, of the most specific rules each
    address matches; the first address with any hit decides."""
    for address in page_addresses(text):
        if hits := _address_hits(address):
            return hits
    return []


def route_page_values(route: Route, text: str) -> dict[str, str] | None:
    """The values the first page ``text`` gives that one of ``route``'s own rules reads, though
    a more specific rule of another route reads the page too (zhihu.com/people/:id is a user's
    activities; ``/:usertype/:id`` reads it for their posts); None when no rule of it does."""
    for address in page_addresses(text):
        moved = _moved(address)
        if hits := _route_hits(route, address) or (moved and _route_hits(route, moved)):
            return dict(hits[0].values)
    return None


def _address_hits(address: Address) -> list[RadarHit]:
    routes = Route.objects.filter(
        # a rule's source may leave out the host: the platform's own site is meant
        Q(radar__icontains=address.host) | Q(platform__url__icontains=address.host),
        enabled=True,
        platform__enabled=True,
    ).select_related("platform")
    hits = [hit for route in routes for hit in _route_hits(route, address)]
    site: list[Route] | None = None  # the site's routes, read once for all that try them
    if not hits:
        site = _host_routes(address)
        respelled = _respelled(address)
        hits = (
            _template_hits(address, site)
            or (respelled and _template_hits(respelled, site))
            or _url_documented_hits(address, site)
            or _template_hits(_section_less(address), site, literal=True)
            or _template_hits(address, site, literal=True, kind_less=True)
        )
    if not hits and (titled := _title_less(address)):
        hits = _address_hits(titled)
    if not hits and (moved := _moved(address)):
        hits = _address_hits(moved)
    if not hits or (address.query and not any(h.values for h in hits)):
        # a rule that reads nothing of the page's query (list?clmId=...) gives way to a
        # described address that does
        hits = described_hits(address) or hits
    if not hits:  # the last resort: the site above the page's host
        parent = _parent_routes(address)
        hits = _template_hits(address, parent, literal=True) or _url_documented_hits(
            address, parent
        )
    if address.query and not any(h.literals for h in hits) and all(h.values for h in hits):
        # a page named by its query's one value, where no rule names it by a word of its path
        # (youtube.com/playlist?list=... is no user "playlist")
        site = _host_routes(address) if site is None else site
        queried = (_template_hits(a, site, literal=True) for a in query_as_path(address))
        hits = next((found for found in queried if found), hits)
    best = max((h.literals for h in hits), default=0)
    level = [h for h in hits if h.literals == best]
    return list({h.path: h for h in level}.values())


def _route_hits(route: Route, address: Address) -> list[RadarHit]:
    hits = []
    key = route_key(route)
    for rule in route.radar if isinstance(route.radar, list) else []:
        if not isinstance(rule, dict) or not isinstance(rule.get("source"), list):
            continue
        target = rule.get("target")
        target = target if isinstance(target, str) and target else key
        for source in rule["source"]:
            if isinstance(source, str) and source.startswith("/"):  # on the platform's own site
                source = _site_host(route.platform.url or "") + source
            source = rest_taken(source, route) if isinstance(source, str) else source
            matched = source_match(source, address) if isinstance(source, str) else None
            if matched is None and isinstance(source, str) and target != key:
                matched = unnamed_taken(source, target, address)
            if matched is None and isinstance(source, str):
                matched = host_sectioned(source, target, address)
            if matched is None:
                continue
            values = {k: _page_less(v, route.example or "") for k, v in matched[0].items()}
            values |= _query_keyed(target, values, address)
            # a target naming no path of its route (CCC's "/creative-comic/:id" for
            # ``/book/:id``) gives way to the route's own, filled with the same values
            hit = route_hit(route, target, values, matched[1])
            if not hit and target != key and all(f":{name}" in key for name in values):
                hit = route_hit(route, key, values, matched[1])
            if not hit and target == key and (other := renamed(values, key)):
                hit = route_hit(route, key, other, matched[1])  # venue/:id for /site/:siteId
            if not hit and target == key and not values and (tail := tail_taken(key, address)):
                values = {k: _page_less(v, route.example or "") for k, v in tail.items()}
                hit = route_hit(route, key, values, matched[1])
            if hit:
                hits.append(hit)
                break
    return hits


def _query_keyed(target: str, values: dict[str, str], address: Address) -> dict[str, str]:
    """The target's parameters the page's path leaves open that its query keys by their name
    (music.163.com/#/artist/album?id=6452 for ``/music/artist/:id``)."""
    pairs = dict(parse_qsl(address.query))
    names = {name for name, _regex, _optional in template_parameters(target)}
    return {name: pairs[name] for name in names - set(values) if pairs.get(name, "").strip()}


# A route path's first word, a kind, before its parameters: /tweet of /tweet/:id/status/:status
LEADING_KIND_RE = re.compile(r"^/[a-z]+(?=/:)")
# A segment that runs a kind and its number together: thepaper.cn/user_3346780
KIND_NUMBER_RE = re.compile(r"([a-z]{2,})_(\d+)", re.I)


def _respelled(address: Address) -> Address | None:
    """The page as a route's path would spell it, when the site spells it otherwise: a kind
    and its number as two segments (``user_3346780`` for ``/user/:pphId``), a plural kind as
    the route's singular (huxiu.com/tags/4126.html for ``/tag/:id``). None when the same."""
    segments: list[str] = []
    for segment in address.segments:
        if joined := KIND_NUMBER_RE.fullmatch(segment):
            segments += joined.groups()
        elif re.fullmatch(r"[a-z]{3,}s", segment) and not segment.endswith("ss"):
            segments.append(segment[:-1])
        else:
            segments.append(segment)
    if tuple(segments) == address.segments:
        return None
    return Address(address.host, tuple(segments), address.query)


def _moved(address: Address) -> Address | None:
    """The page at its site's new host, when the old one is the name of a platform that has moved
    (twitter.com/NASA for the platform ``twitter`` at x.com); None otherwise."""
    name, _dot, rest = address.host.partition(".")
    platform = Platform.objects.filter(enabled=True, namespace=name).first()
    host = _site_host(platform.url) if platform and platform.url and "." not in rest else ""
    if not host or host == address.host or name in host.split("."):
        return None
    return Address(host, address.segments, address.query)


def _title_less(address: Address) -> Address | None:
    """The page without the title a site writes after its number (hk01.com/zone/2/娛樂 is
    zone 2's page; news/123/some-title is news 123's): None when it writes none."""
    *rest, last = address.segments or ("",)
    if not rest or not any(c.isdigit() for c in rest[-1]) or any(c.isdigit() for c in last):
        return None
    if last.isascii() and not re.fullmatch(r"[a-z]+(?:-[a-z]+){2,}", last, re.I):
        return None  # a word that may be a section of its own (zone/2/news)
    return Address(address.host, tuple(rest), address.query)


def _section_less(address: Address) -> Address:
    """The page below its site's first section (douban.com/gallery/topic/48823 as
    topic/48823): a route may mirror the address without it."""
    return Address(address.host, address.segments[1:], address.query)


def _template_hits(
    address: Address, site: list[Route], *, literal: bool = False, kind_less: bool = False
) -> list[RadarHit]:
    """Without a rule for the page, the routes of the site whose own paths it matches: RSSHub
    mirrors many a site's addresses (cnblogs.com/cate/python is ``/cnblogs/cate/:type``; a rest
    parameter takes the page's path, its ``.shtml`` aside when the example writes none). A
    literal segment of the route's must match, unless the route takes the page's whole path.
    ``kind_less``: the route's path below the kind its first word names, which the site does not
    write (x.com/NASA/status/1790466286127411496 is ``/tweet/:id/status/:status``)."""
    hits = []
    for route in site:
        key = route_key(route)
        mirrored = LEADING_KIND_RE.sub("", key) if kind_less else key
        if kind_less and mirrored == key:
            continue
        source = address.host + REST_PARAM_RE.sub(r":\1*", mirrored)
        matched = source_match(source, address)
        # a path of parameters alone (/:language/:domain?) would take any page: a literal
        # segment must match, unless the route takes the page's whole path
        if not matched or not matched[0] or not (matched[1] or source != address.host + mirrored):
            continue
        if literal and not matched[1]:  # below a section, only a literal segment matched says
            continue
        values = {k: _page_less(v, route.example) for k, v in matched[0].items()}
        values = _numbered(route, _whole_page(route, key, values, address))
        if hit := route_hit(route, key, _host_led(route, values, address), matched[1]):
            hits.append(hit)
    return hits


# A forum's page named for its number and a page of it: Discuz's forum-31-1; and a number
# after its kind's letters (bilibili's md28234679, a bangumi's media 28234679)
NUMBERED_PAGE_RE = re.compile(r"[a-z]+-(\d+)(?:-\d+)?|[a-z]{1,3}(\d{3,})", re.I)


def _numbered(route: Route, values: dict[str, str]) -> dict[str, str]:
    """A value the example writes as a number, from a page named for its number
    (right.com.cn/forum/forum-31-1.html is ``/right/forum/31``) or written after letters."""
    shown = template_values(route.path, route.example or "")
    found = {}
    for name, value in values.items():
        numbered = NUMBERED_PAGE_RE.fullmatch(value)
        number = numbered and (numbered.group(1) or numbered.group(2))
        found[name] = number if number and shown.get(name, "").isdigit() else value
    return found


def _whole_page(route: Route, key: str, values: dict[str, str], address: Address) -> dict[str, str]:
    """A rest parameter documented with a value that repeats the route's own literal segments
    (千篇网's ``/news/:path``, "默认为 `news/recommend`") takes the page's whole path."""
    literal = key.split("/:", 1)[0].strip("/")
    spec = route.parameters if isinstance(route.parameters, dict) else {}
    return {
        name: "/".join(address.segments)
        if literal and re.search(rf"`{re.escape(literal)}/", str(spec.get(name, "")))
        else value
        for name, value in values.items()
    }


def _host_routes(address: Address) -> list[Route]:
    """The enabled routes of the enabled platforms whose site is the address's host (the
    routes ``_template_hits`` and ``_url_documented_hits`` try), and those of the site above
    it that take a page's host with its path (茂名's ``mmny.maoming.gov.cn`` pages)."""
    _sub, _dot, parent = address.host.partition(".")
    hosts = [address.host, *([parent] if "." in parent else [])]
    platforms = Platform.objects.filter(enabled=True).filter(
        Q(url__icontains=address.host) | Q(url__icontains=hosts[-1])
    )
    return [
        route
        for platform in platforms
        if _site_host(platform.url) in hosts
        for route in platform.routes.filter(enabled=True)  # route.platform is this one
        if _site_host(platform.url) == address.host or _host_leads(route)
    ]


def _parent_routes(address: Address) -> list[Route]:
    """The routes of the site above the page's host, when the host is none's own: RSSHub
    mirrors movie.douban.com/celebrity/1054439 as ``/douban/celebrity/:id`` of douban.com."""
    _sub, _dot, parent = address.host.partition(".")
    if "." not in parent or Platform.objects.filter(url__icontains=address.host).exists():
        return []
    platforms = Platform.objects.filter(enabled=True, url__icontains=parent)
    return [
        route
        for platform in platforms
        if _site_host(platform.url) == parent
        for route in platform.routes.filter(enabled=True)
    ]


def _site_host(url: str) -> str:
    """The host of a platform's site address, without a leading ``www.``."""
    return SCHEME_RE.sub("", url).removeprefix("www.").split("/")[0]


def _host_leads(route: Route) -> bool:
    """The route takes a page's path led by its host's first label, as its example shows."""
    example = template_values(route.path, route.example or "")
    return any(v.startswith("www/") for v in example.values())


def _host_led(route: Route, values: dict[str, str], address: Address) -> dict[str, str]:
    """A page's whole path as a route takes it that leads it with the host's first label (茂名's
    sites: ``http://www.huazhou.gov.cn/syzl/zcjd/`` is ``/gov/huazhou/www/syzl/zcjd``,
    ``mmny.maoming.gov.cn/zwq/zwgk/zcfg`` is ``/gov/maoming/mmny/zwq/zwgk/zcfg``), as its
    example shows."""
    if not _host_leads(route):
        return values
    site = _site_host(route.platform.url or "")
    label = address.host.removesuffix("." + site) if address.host != site else "www"
    return {k: v if v.startswith(f"{label}/") else f"{label}/{v}" for k, v in values.items()}


def _url_documented_hits(address: Address, site: list[Route]) -> list[RadarHit]:
    """Without a rule for the page or a route path it matches, the site's routes of one
    parameter documented as found in the page's address ("Category, can be found in the url of
    the page"): the page's last segment is it when it is shaped as the example's value
    (INFORMS' ``pubsonline.informs.org/journal/mnsc`` is ``/informs/mnsc``). Only on a site
    none of whose routes has a rule: where rules are, they say which pages a route reads;
    unless the parameter is documented as a feed address's last segment (NYT's
    ``.../nyt/Technology.xml`` is ``/nytimes/rss/Technology``)."""
    ruled = {route.platform_id for route in site if route.radar}
    hits = []
    for route in site:
        tokens = template_parameters(route.path)
        spec = route.parameters if isinstance(route.parameters, dict) else {}
        documented = str(spec.get(tokens[0][0], "")) if len(tokens) == 1 else ""
        # a site Radar knows not; or a feed's address whose last segment the parameter is
        # documented as ("the last segment of the official feed's url": NYT's Technology.xml)
        last = LAST_SEGMENT_RE.search(documented)
        if not (last or (route.platform_id not in ruled and URL_DOCUMENTED_RE.search(documented))):
            continue
        example = template_values(route.path, route.example or "").get(tokens[0][0], "")
        shape = next((s for s in VALUE_SHAPES if s.fullmatch(example)), None)
        segment = address.segments[-1] if address.segments else ""
        segment = FEED_EXTENSION_RE.sub("", segment) if last else segment
        if (
            shape
            and shape.fullmatch(segment)
            and (hit := route_hit(route, route_key(route), {tokens[0][0]: segment}, 0))
        ):
            hits.append(hit)
    return hits


def _page_less(value: str, example: str) -> str:
    """A page's path as a route's value: without its page extension (hangzhou.shtml) when the
    route's example writes none, and a folder's index page as the folder."""
    extension = PAGE_EXTENSION_RE.search(value)
    if not extension or extension.group(0) in example:
        return value
    value = value[: extension.start()]
    # a folder's index page is the folder (cnnic's ``6/86/88/index.html`` is ``6/86/88``)
    return value.removesuffix("/index") if "index" not in example else value
