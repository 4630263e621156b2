"""Pages a route's description shows (``fetching.radar``'s last resort before the site above
a page's host): magazinelib's "you get url `https://magazinelib.com/?s=new+yorker`, the query
is `new+yorker`" maps any search of the site, webtoons' "list?title_no=894" a series. The
example's values (or those of a route path the description shows) are where the page's go."""

import re
from urllib.parse import unquote

from django.db.models import Q

from catalog.models import Route
from catalog.search_fields import registrable_domain
from fetching.paths import rest_parameters, template_parameters, template_values
from fetching.radar_match import SCHEME_RE, TRAILING, Address, RadarHit, route_hit, route_key

# A page address a route's description shows: "`https://magazinelib.com/?s=new+yorker`"
DESCRIBED_URL_RE = re.compile(r"https?://[^\s<>`\"'\]|\\]+")
# A route path a description shows, backticked: "此时路由为 [`/nenu/yjsy/xwdt/xnxw`](...)"
SHOWN_PATH_RE = re.compile(r"`(/[^`\s]+)`")
# A page's title before its id in one segment: the "collection-" of collection-7e67004f23f9
TITLED_RE = re.compile(r"(?<=/)[a-z0-9]+(?:-[a-z0-9]+)*-$", re.I)
DASHED = "__dashed"  # a pattern's group for a value whose "-" stand for the address's "/"


def described_hits(address: Address) -> list[RadarHit]:
    """Without a rule for the page or a route path it matches, the routes whose description
    shows a page address holding the route's example values: magazinelib's "you get url
    `https://magazinelib.com/?s=new+yorker`, the query is `new+yorker`" maps any search of the
    site; webtoons' "list?title_no=894" a series. The example's values are where the page's go."""
    domain = registrable_domain(address.host)  # yangtzeu.edu.cn, not edu.cn
    routes = Route.objects.filter(enabled=True, platform__enabled=True).filter(
        Q(description__icontains=domain) | Q(parameters__icontains=domain)
    )
    page = address.host + "".join("/" + s for s in address.segments)
    page += f"?{address.query}" if address.query else ""
    hits = []
    for route in routes.select_related("platform"):
        patterns = _described_patterns(route, domain)
        # a page's query may hold more keys than the one shown (citations?user=N&hl=en)
        loose = [(p.removesuffix("/?") + "(?:&[^#]*)?", n) for p, n in patterns if r"\?" in p]
        for pattern, literals in patterns + loose:
            if matched := re.fullmatch(pattern, page, re.I):
                values = {
                    _undashed(k): unquote(v).replace("/", "-") if k != _undashed(k) else unquote(v)
                    for k, v in matched.groupdict().items()
                }
                if hit := route_hit(route, route_key(route), values, literals):
                    hits.append(hit)
                    break
    return hits


def _described_patterns(route: Route, domain: str) -> list[tuple[str, int]]:
    """The page addresses on ``domain`` that a route's description shows, as patterns taking
    its parameters where the values of its example (or of a route path the description shows:
    "网址为 `https://yjsy.nenu.edu.cn/xwdt/xnxw.htm` ... 路由为 `/nenu/yjsy/xwdt/xnxw`") stand,
    with their literal segments. An address that leaves out a required parameter's value, or
    holds none, maps nothing."""
    key = route_key(route)
    tokens = template_parameters(route.path)
    required = {name for name, _regex, optional in tokens if not optional}
    rest = rest_parameters(route.path)  # :path{.+}
    spec = route.parameters if isinstance(route.parameters, dict) else {}
    text = " ".join([route.description or "", *(str(v) for v in spec.values())])
    shown = [
        p for p in SHOWN_PATH_RE.findall(text) if p.startswith(f"/{route.platform.namespace}/")
    ]
    patterns = []
    for example in dict.fromkeys([route.example or "", *shown]):
        values = template_values(route.path, example)
        # a one-letter value stands anywhere; a one-digit one only alone (`?cid=1`)
        values = {k: unquote(v) for k, v in values.items() if len(v) >= 2 or v.isdigit()}
        for url in dict.fromkeys(DESCRIBED_URL_RE.findall(text)):
            twins = _twins(url, values, required)
            found = _described_pattern(url, domain, values | twins, required, rest, set(twins))
            if key != "/" and found:
                patterns.append(found)
    return list(dict.fromkeys(patterns))


def _twins(url: str, values: dict[str, str], required: set[str]) -> dict[str, str]:
    """The values an address holds in their example's stead, written alike (a list's id after
    its title: ``collection-7e67004f23f9`` beside the example's ``f2d8d48096a9``), for the
    required parameters whose example value it does not hold: one such word each, else none."""
    twins = {}
    for name in required:
        value = values.get(name, "")
        if len(value) < 6 or value in url:
            continue
        found = {w for w in re.findall(r"[A-Za-z0-9]+", url) if _form(w) == _form(value)}
        if len(found) == 1:
            twins[name] = found.pop()
    return twins


def _form(word: str) -> tuple[int, bool, bool]:
    """A word's length and whether it holds digits and letters: what an id's form keeps."""
    return len(word), any(c.isdigit() for c in word), any(c.isalpha() for c in word)


def _described_pattern(
    url: str,
    domain: str,
    values: dict[str, str],
    required: set[str],
    rest: set[str],
    titled: set[str] = frozenset(),
) -> tuple[str, int] | None:
    """One described page address as a pattern taking the parameters where ``values`` stand
    in it, with its literal segments; None when it is another site's or holds them wrongly.
    A value of ``titled`` may follow any title in its segment (``_twins``)."""
    page = SCHEME_RE.sub("", url).removeprefix("www.").rstrip(TRAILING + ")").rstrip("/")
    page = page.replace("/?", "?")  # the site's root searched: as the page's address is
    if not re.split(r"[/?]", page)[0].casefold().endswith(domain):
        return None
    holes = sorted(
        (m.start(), m.end(), name)
        for name, value in values.items()
        for m in re.finditer(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", page)
    )
    if not holes:  # a value that writes the address's "/" as "-" (ngd's xwzx-ywdt-index)
        holes = sorted(
            (m.start(), m.end(), name + DASHED)
            for name, value in values.items()
            if "-" in value
            for m in re.finditer(
                rf"(?<![A-Za-z0-9]){re.escape(value.replace('-', '/'))}(?![A-Za-z0-9])", page
            )
        )
    taken = {_undashed(name) for _start, _end, name in holes}
    if not taken or not required <= taken or len(taken) < len(holes):
        return None  # a value twice in the address, or a required one not in it
    pattern, at = "", 0
    for start, end, name in holes:
        # a rest parameter takes segments; a value that is a query (order=sell_desc&s=34) one
        taken_as = ".+?" if name in rest or name != _undashed(name) else "[^/?&#.]+?"
        taken_as = "[^/?#]+?" if "=" in values.get(name, "") and name not in rest else taken_as
        lead = page[at:start]
        title = TITLED_RE.search(lead) if name in titled else None  # each page's own
        lead = re.escape(lead[: title.start()]) + "[^/?#]*-" if title else re.escape(lead)
        pattern += lead + f"(?P<{name}>{taken_as})"
        at = end
    pattern += re.escape(page[at:]) + "/?"
    literals = sum(
        1
        for s in page.split("?")[0].split("/")[1:]
        if s and not any(v in s for v in values.values())
    )
    return pattern, literals


def _undashed(name: str) -> str:
    return name.removesuffix(DASHED)
