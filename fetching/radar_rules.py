"""How a Radar rule's source and target are read for a page they do not name exactly
(``fetching.radar``): a value named otherwise than the route names it, none named, a page one
segment below a rule, a rest parameter's whole path."""

from catalog.models import Route
from fetching.radar_match import PARAM_RE, SCHEME_RE, Address, query_as_path, source_match


def renamed(values: dict[str, str], key: str) -> dict[str, str] | None:
    """The one value a source names otherwise than its route's one parameter does (Showstart's
    ``venue/:id`` for ``/site/:siteId``), under the route's name."""
    names = [m.group(1) or m.group(3) for m in PARAM_RE.finditer(key)]
    names = [n for n in names if n]
    if len(values) != 1 or len(names) != 1 or names[0] in values:
        return None
    return {names[0]: next(iter(values.values()))}


def tail_taken(key: str, address: Address) -> dict[str, str] | None:
    """The values of a source that names none, for a route taking some: the route's path
    ends as the page's does (ccst.jlu.edu.cn/xwzx/zsjy.htm for ``/ccst/xwzx/:category``), its
    query's one value first (music.163.com/playlist?id=3778678 for ``/music/playlist/:id``)."""
    for queried in query_as_path(address):
        if values := _tail_values(key, queried):
            return values
    return _tail_values(key, address)


def _tail_values(key: str, address: Address) -> dict[str, str] | None:
    segments = [s for s in key.split("/") if s]
    tail = segments[-len(address.segments) :] if address.segments else []
    if not tail or len(tail) != len(address.segments):
        return None
    values = {}
    for part, page in zip(tail, address.segments, strict=True):
        param = PARAM_RE.fullmatch(part)
        if param and param.group(1) and not param.group(2):
            values[param.group(1)] = page
        elif part.casefold() != page.casefold():
            return None
    return values or None


def unnamed_taken(source: str, target: str, address: Address) -> tuple[dict, int] | None:
    """A source naming none of the one parameter its target takes (topbook's ``content`` for
    ``/:id``) matches the page one segment below it, that segment the value."""
    found = list(PARAM_RE.finditer(target))
    names = [m.group(1) or m.group(3) for m in found]
    missing = [n for n in names if n and f":{n}" not in source]
    path = SCHEME_RE.sub("", source).partition("/")[2].strip("/")
    if len(missing) != 1 or len(names) != 1 or found[0].group(2) or not path:
        return None  # a required one, below a page the source names
    return source_match(f"{source.rstrip('/')}/:{missing[0]}", address)


def host_sectioned(source: str, target: str, address: Address) -> tuple[dict, int] | None:
    """A source for a site's root whose target is a section its host names and one value
    (Obsidian Publish's ``publish.obsidian.md/`` for ``/publish/:id``) matches the page one
    segment below the root, that segment the value."""
    host, _, path = SCHEME_RE.sub("", source).partition("/")
    if path.strip("/") or len(address.segments) != 1:
        return None
    parts = [s for s in target.split("/") if s]
    params = [PARAM_RE.fullmatch(part) for part in parts]
    literal = [part.casefold() for part, param in zip(parts, params, strict=True) if not param]
    labels = host.casefold().removeprefix("www.").split(".")[:-1]
    if not literal or params[-1] is None or any(params[:-1]) or not set(literal) <= set(labels):
        return None
    if host.casefold().removeprefix("www.") != address.host:
        return None
    return {params[-1].group(1) or params[-1].group(3): address.segments[0]}, len(literal)


def rest_taken(source: str, route: Route) -> str:
    """A source whose last segment is a parameter the route takes the rest of the path with
    (washingtonpost's ``:category{.+}``) takes the rest of the page's path there
    (``/national/investigations``)."""
    last = PARAM_RE.fullmatch(source.rstrip("/").rsplit("/", 1)[-1])
    if last and last.group(1) and not last.group(2) and f":{last.group(1)}{{." in route.path:
        return source.rstrip("/") + "*"
    return source
