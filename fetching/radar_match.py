"""Matching a Radar rule's source to a page's address, and filling its target with the values
the address gives (``fetching.radar``)."""

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote

from catalog.models import Route
from fetching.paths import SEGMENT_SAFE, RoutePathRejected, path_confine, route_for_path

SCHEME_RE = re.compile(r"^https?://", re.I)
TRAILING = ".,;:!'"  # sentence punctuation after an address is not part of it
PARAM_RE = re.compile(r":(\w+)([?*]?)|\*(\w+)")


@dataclass(frozen=True, slots=True)
class Address:
    host: str  # lower case, without "www."
    segments: tuple[str, ...]  # decoded, empty ones dropped
    query: str = ""  # what follows "?", as given


@dataclass(frozen=True, slots=True)
class RadarHit:
    route_id: int
    namespace: str
    path: str  # canonical, ready to fetch
    literals: int  # literal segments of the source matched: the more, the more specific
    values: tuple[tuple[str, str], ...]  # what the address gave each parameter, decoded


def query_as_path(address: Address) -> list[Address]:
    """A page whose query holds its one value, as a route's path may mirror it: after the
    page's path (youtube.com/playlist?list=PL... as /playlist/PL...), or after its key too
    (v2ex.com/?tab=creative as /tab/creative)."""
    pairs = parse_qsl(address.query)
    if len(pairs) != 1 or not pairs[0][1].strip():
        return []
    key, value = pairs[0]
    return [
        Address(address.host, (*address.segments, value)),
        Address(address.host, (*address.segments, key, value)),
    ]


def route_key(route: Route) -> str:
    """The route's path below its namespace, as a rule's target writes it."""
    return route.path.removeprefix("/" + route.platform.namespace) or "/"


def route_hit(route: Route, target: str, values: dict[str, str], literals: int) -> RadarHit | None:
    """The hit of ``route`` whose ``target`` the address's values fill; None when they cannot,
    or when the path filled is another route's."""
    path = target_fill(route.platform.namespace, target, values)
    if not path or not _owned_by(path, route):
        return None
    given = tuple(sorted(values.items()))
    return RadarHit(route.pk, route.platform.namespace, path, literals, given)


def source_match(source: str, address: Address) -> tuple[dict[str, str], int] | None:
    """The values a source takes from the address, and its literal segments; None when it does
    not match."""
    if "#" in source or any("/" in s for s in address.segments):
        return None  # a fragment's route, or an encoded "/" no rule's segments know
    host, _, path = SCHEME_RE.sub("", source).partition("/")
    if "?" in re.sub(r":\w+\?", "", path) or host.casefold().removeprefix("www.") != address.host:
        return None
    pattern, literals = [], 0
    for segment in (s for s in path.split("/") if s):
        if not PARAM_RE.search(segment) and segment != "*":
            literals += 1
        pattern.append(_segment_pattern(segment))
    regex = "".join(pattern) + "/?"
    try:
        matched = re.fullmatch(regex, "".join("/" + s for s in address.segments), re.I)
    except re.error:
        return None
    if matched is None:
        return None
    return {k: v for k, v in matched.groupdict().items() if v}, literals


def _segment_pattern(segment: str) -> str:
    """One source segment as a regex with a leading "/": an optional parameter may be absent,
    a rest parameter takes the segments left, a bare ``*`` passes over them."""
    if segment == "*":  # "book/:id/*": any pages below, no value of the route's
        return "(?:/.*)?"
    whole = PARAM_RE.fullmatch(segment)
    if whole and (whole.group(2) == "*" or whole.group(3)):
        return f"(?:/(?P<{whole.group(1) or whole.group(3)}>.+))?"
    if whole and whole.group(2) == "?":
        return f"(?:/(?P<{whole.group(1)}>[^/]+))?"
    parts, at = [], 0
    for match in PARAM_RE.finditer(segment):
        parts.append(re.escape(segment[at : match.start()]))
        parts.append(f"(?P<{match.group(1) or match.group(3)}>[^/]+?)")
        at = match.end()
    parts.append(re.escape(segment[at:]))
    return "/" + "".join(parts)


def target_fill(namespace: str, target: str, values: dict[str, str]) -> str | None:
    """The route path a rule's target names with the address's values; None when the address
    lacks a value it needs or a value cannot go in a path."""
    out = []
    target = target.removeprefix(f"/{namespace}/") if target != f"/{namespace}" else "/"
    for segment in (s for s in target.split("/") if s):
        param = PARAM_RE.fullmatch(re.sub(r"\{.*\}", "", segment))
        if not param:
            out.append(segment)
            continue
        name = param.group(1) or param.group(3)
        value = values.get(name)
        if value is None:
            if param.group(2) in ("?", "*"):
                break  # trailing optionals go; none after a missing one is kept
            return None
        out.append("/".join(quote(part, safe=SEGMENT_SAFE) for part in value.split("/")))
    try:
        return path_confine("/" + "/".join([namespace, *out]))
    except RoutePathRejected:
        return None


def _owned_by(path: str, route: Route) -> bool:
    """The filled path falls under the rule's own route (a target naming another route's path
    would read a feed the rule does not describe)."""
    template = route_for_path(path)
    return template is not None and template.route_id == route.pk
