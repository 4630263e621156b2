"""The route-search index: one in-memory inverted index of the catalog per process. Its terms
come from ``catalog.search_terms``, the same for the catalog and for a question.

What is indexed. Every platform and route, whatever its curation. Per route, each term keeps its
best field: name (route name and its translations), path (literal segments of the route key and
of the example), meta (categories), text (description and parameter docs, first ``TEXT_CHARS``
characters). Per platform: name (namespace, name, translated names, aliases, domain), meta,
text. Term weight is an inverse document frequency over platforms (a platform's document is its
own text plus all its routes'), so a word that hundreds of platforms use (news, 最新) weighs
little wherever it appears. Each name of a platform is also a *phrase* to find whole in a
question: that is the strongest signal there is.

Curation (who is searchable, priorities) sits beside the text in a ``Curation`` that is swapped
whole, so a staff edit costs a reload of four columns, not a rebuild.

Invalidation. ``search_index_current()`` reads ``catalog_search_version()`` (two aggregate
queries, too dear for every search) at most every ``CATALOG_SEARCH_RECHECK_SECONDS``. A changed
text signature rebuilds the index, unless the rows written since kept their text
(``catalog.search_touch``); a changed curation signature reloads only the curation. Search
re-reads curation and health of its top candidates on every call (``catalog.search``), so a
disabled route disappears at once; additions wait for the next check. Health stays out of the
index: it changes on every fetch.
"""

import math
import re
import threading
import time
from array import array
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from catalog import selectors
from catalog.search_postings import posting_arrays
from catalog.search_terms import CJK_RE, text_canonical, text_terms
from catalog.search_touch import index_touch, row_digests

# --- The index ----------------------------------------------------------------------------------

TEXT_CHARS = 1500  # of a description: enough for its first tables, bounds the index's size
# Field codes, best first; a posting stores ``position << 2 | code``.
NAME, PATH, META, TEXT = 0, 1, 2, 3
FIELD_WEIGHTS = (1.0, 0.6, 0.4, 0.25)
SECOND_LEVEL_DOMAINS = frozenset(("com", "net", "org", "gov", "edu", "ac", "co", "or", "ne", "go"))
HOST_PREFIXES = frozenset(("www", "m", "mobile"))
# " - ", " | ", " / ", and list separators: ASCII and full-width commas, 、, / | and semicolons.
NAME_SEPARATORS_RE = re.compile("\\s[-\u2013\u2014|/]\\s|[,\uff0c\u3001/|;\uff1b]")


@dataclass(frozen=True, slots=True)
class IndexedPlatform:
    id: int
    namespace: str
    name: str
    routes: tuple[int, ...]  # positions in SearchIndex.routes
    name_terms: frozenset[str]  # terms of its name and namespace


@dataclass(frozen=True, slots=True)
class IndexedRoute:
    id: int
    platform: int  # position in SearchIndex.platforms
    path: str
    name: str
    example: str
    required_params: int
    own_name_terms: frozenset[str]  # terms of its name that are not its platform's name terms
    # Per alternative of a name that lists several feeds ("资讯, 快讯, 用户文章"): its own terms
    # and the sum of their idf, so covering one alternative counts as covering the name.
    alternatives: tuple[tuple[frozenset[str], float], ...]


@dataclass(frozen=True, slots=True)
class NamePhrase:
    """A name of a platform, to be found whole in a question's canonical text."""

    text: str  # canonical; without spaces when it holds no CJK (then matched against word runs)
    label: str  # as staff or upstream wrote it
    platform: int
    terms: tuple[str, ...]  # its terms as a question's (stopwords dropped)
    strength: float  # the sum over its terms of the lesser of name idf and idf


@dataclass(frozen=True, slots=True)
class Curation:
    """Who may be found, and how much staff prefer it, by position in the index."""

    version: tuple
    route_ok: bytes  # 1: enabled and present, its platform too
    route_priority: tuple[int, ...]
    platform_ok: bytes  # 1: enabled, present, and holding a route that is ok
    platform_priority: tuple[int, ...]


@dataclass(slots=True)
class SearchIndex:
    version: tuple  # of the text (see catalog_search_version)
    curation: Curation
    platforms: list[IndexedPlatform]
    routes: list[IndexedRoute]
    route_postings: dict[str, array]
    platform_postings: dict[str, array]
    idf: dict[str, float]
    name_idf: dict[str, float]  # idf over platforms' names only: "arxiv" names one platform
    word_phrases: dict[str, list[NamePhrase]]  # squashed text -> phrases
    cjk_phrases: dict[str, list[NamePhrase]]  # first CJK character or two -> phrases
    platform_by_namespace: dict[str, int]
    route_by_path: dict[str, int]
    route_by_id: dict[int, int]
    common_cutoff: int  # a term in more route postings than this only rescores candidates
    arrays: Any = None  # catalog.search_postings.PostingArrays of the postings above
    digests: Any = None  # per platform and route id, of its text row (catalog.search_touch)
    built_seconds: float = 0.0
    longest_phrase_words: int = 1


@dataclass
class _Builder:
    route_terms: dict[str, list[int]] = field(default_factory=dict)
    platform_terms: dict[str, list[int]] = field(default_factory=dict)
    platform_vocab: list[set[str]] = field(default_factory=list)
    name_vocab: list[set[str]] = field(default_factory=list)


def _add_field(best: dict[str, int], code: int, texts: Iterable[str], *, numbers=True) -> None:
    for text in texts:
        for term in text_terms(text, numbers=numbers):
            if best.get(term, 9) > code:
                best[term] = code


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _translated(translations: Any, key: str) -> list[str]:
    if not isinstance(translations, dict):
        return []
    values = [t.get(key) for t in translations.values() if isinstance(t, dict)]
    return [v for v in values if isinstance(v, str)]


def _parameter_texts(parameters: Any) -> Iterator[str]:
    if not isinstance(parameters, dict):
        return
    for value in parameters.values():
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            yield str(value.get("description") or "")
            for option in value.get("options") or ():
                if isinstance(option, dict):
                    yield f"{option.get('label', '')} {option.get('value', '')}"


def _literal_path(key: str) -> str:
    return " ".join(s for s in key.split("/") if s and not s.startswith(":"))


def _required_params(key: str) -> int:
    segments = key.split("/")
    return sum(s.startswith(":") and not s.endswith("?") for s in segments)


def domain_label(url: str) -> str:
    """The registrable name of a site's host: www.zhihu.com -> zhihu, bbc.co.uk -> bbc."""
    host = url.split("://")[-1].split("/")[0].split(":")[0].lower()
    labels = [x for x in host.split(".") if x]
    labels = labels[:-1]  # the top-level domain
    if len(labels) > 1 and labels[-1] in SECOND_LEVEL_DOMAINS:
        labels = labels[:-1]
    label = labels[-1] if labels else ""
    return label if len(label) >= 3 and label not in HOST_PREFIXES else ""


def platform_names(row: selectors.PlatformRow, shared_domains: Collection[str] = ()) -> list[str]:
    """Every name a question may use for the platform, curated aliases included.

    The domain's name counts unless other platforms share it (blogs on github.io are not GitHub).
    """
    names = [row.namespace, row.name, *_translated(row.translations, "name")]
    names += _strings(row.aliases)
    label = domain_label(row.url)
    if label not in shared_domains:
        names.append(label)
    return [n for n in names if n and n.strip()]


def _shared_domains(rows: list[selectors.PlatformRow]) -> set[str]:
    seen: dict[str, int] = {}
    for row in rows:
        label = domain_label(row.url)
        seen[label] = seen.get(label, 0) + 1
    return {label for label, count in seen.items() if count > 1}


def _name_alternatives(name: str, platform_terms: frozenset[str], idf: dict[str, float]):
    alternatives = []
    for part in NAME_SEPARATORS_RE.split(name):
        own = frozenset(text_terms(part)) - platform_terms
        if own:
            alternatives.append((own, sum(idf.get(t, 0.0) for t in own)))
    return tuple(alternatives)


def _route_fields(row: selectors.RouteRow, namespace: str) -> dict[str, int]:
    best: dict[str, int] = {}
    _add_field(best, NAME, [row.name, *_translated(row.translations, "name")])
    example = row.example.removeprefix(f"/{namespace}")
    _add_field(best, PATH, [_literal_path(row.key), example], numbers=False)
    _add_field(best, META, _strings(row.categories))
    texts = [row.description[:TEXT_CHARS], *_translated(row.translations, "description")]
    _add_field(best, TEXT, [*texts, *_parameter_texts(row.parameters)], numbers=False)
    return best


def _platform_fields(row: selectors.PlatformRow, shared_domains: set[str]) -> dict[str, int]:
    best: dict[str, int] = {}
    _add_field(best, NAME, platform_names(row, shared_domains))
    _add_field(best, META, _strings(row.categories))
    texts = [row.description[:TEXT_CHARS], *_translated(row.translations, "description")]
    _add_field(best, TEXT, texts, numbers=False)
    return best


def _post(postings: dict[str, list[int]], position: int, best: dict[str, int]) -> None:
    for term, code in best.items():
        postings.setdefault(term, []).append(position << 2 | code)


def _idf(vocabularies: list[set[str]]) -> dict[str, float]:
    """BM25's idf over platform documents: always positive, ln(N) for a term of one platform."""
    counts: dict[str, int] = {}
    for vocabulary in vocabularies:
        for term in vocabulary:
            counts[term] = counts.get(term, 0) + 1
    n = len(vocabularies)
    return {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in counts.items()}


def _load_rows() -> tuple[list[selectors.PlatformRow], dict[int, list[selectors.RouteRow]]]:
    routes: dict[int, list[selectors.RouteRow]] = {}
    for route in selectors.route_text_rows():
        routes.setdefault(route.platform_id, []).append(route)
    platforms = [p for p in selectors.platform_text_rows() if p.id in routes]
    return platforms, routes


def _phrases(index: SearchIndex, position: int, names: list[str]) -> None:
    for label in dict.fromkeys(names):
        canonical = text_canonical(label)
        # A name made of question words only ("right", "now", "today") names nothing.
        terms = tuple(dict.fromkeys(text_terms(label, question=True)))
        if not terms:
            continue
        # A name that is also a common word ("papers", "news") is weak evidence of the platform.
        strength = sum(min(index.name_idf.get(t, 0.0), index.idf.get(t, 0.0)) for t in terms)
        if cjk := CJK_RE.search(canonical):
            key = canonical[cjk.start() : cjk.start() + 2]
            key = key if CJK_RE.fullmatch(key[-1]) else key[0]
            phrase = NamePhrase(canonical, label, position, terms, strength)
            index.cjk_phrases.setdefault(key, []).append(phrase)
        else:
            words = canonical.count(" ") + 1
            index.longest_phrase_words = max(index.longest_phrase_words, words)
            phrase = NamePhrase(canonical.replace(" ", ""), label, position, terms, strength)
            index.word_phrases.setdefault(phrase.text, []).append(phrase)


def search_index_build(version: tuple[tuple, tuple]) -> SearchIndex:
    """Read the catalog and build the index for ``version`` (``catalog_search_version()``)."""
    started = time.perf_counter()
    platform_rows, routes_of = _load_rows()
    shared_domains = _shared_domains(platform_rows)
    builder = _Builder()
    routes: list[tuple[selectors.RouteRow, int, dict[str, int]]] = []
    for position, platform in enumerate(platform_rows):
        fields = _platform_fields(platform, shared_domains)
        _post(builder.platform_terms, position, fields)
        builder.name_vocab.append({t for t, code in fields.items() if code == NAME})
        vocabulary = set(fields)
        for route in routes_of[platform.id]:
            route_fields = _route_fields(route, platform.namespace)
            _post(builder.route_terms, len(routes), route_fields)
            routes.append((route, position, route_fields))
            vocabulary.update(route_fields)
        builder.platform_vocab.append(vocabulary)
    index = _assemble(version[0], platform_rows, routes, builder)
    for position, row in enumerate(platform_rows):
        _phrases(index, position, platform_names(row, shared_domains))
    index.curation = curation_load(index, version[1])
    index.arrays = posting_arrays(index, FIELD_WEIGHTS)
    index.digests = row_digests(platform_rows, (route for route, _, _ in routes))
    index.built_seconds = time.perf_counter() - started
    return index


def _assemble(
    version: tuple,
    platform_rows: list[selectors.PlatformRow],
    routes: list[tuple[selectors.RouteRow, int, dict[str, int]]],
    builder: _Builder,
) -> SearchIndex:
    idf = _idf(builder.platform_vocab)
    platforms = _indexed_platforms(platform_rows, routes)
    indexed_routes = [_indexed_route(r, p, fields, platforms, idf) for r, p, fields in routes]
    index = SearchIndex(
        version=version,
        curation=Curation((), b"", (), b"", ()),
        platforms=platforms,
        routes=indexed_routes,
        route_postings={t: array("I", v) for t, v in builder.route_terms.items()},
        platform_postings={t: array("I", v) for t, v in builder.platform_terms.items()},
        idf=idf,
        name_idf=_idf(builder.name_vocab),
        word_phrases={},
        cjk_phrases={},
        platform_by_namespace={p.namespace: i for i, p in enumerate(platforms)},
        route_by_path={r.path: i for i, r in enumerate(indexed_routes)},
        route_by_id={r.id: i for i, r in enumerate(indexed_routes)},
        common_cutoff=max(200, len(indexed_routes) // 20),
    )
    return index


def _indexed_platforms(
    rows: list[selectors.PlatformRow], routes: list[tuple[selectors.RouteRow, int, Any]]
) -> list[IndexedPlatform]:
    route_positions: list[list[int]] = [[] for _ in rows]
    for route_position, (_, platform_position, _) in enumerate(routes):
        route_positions[platform_position].append(route_position)
    return [
        IndexedPlatform(
            id=row.id,
            namespace=row.namespace,
            name=row.name,
            routes=tuple(route_positions[i]),
            name_terms=frozenset(text_terms(f"{row.name} {row.namespace.replace('-', ' ')}")),
        )
        for i, row in enumerate(rows)
    ]


def _indexed_route(
    row: selectors.RouteRow,
    platform_position: int,
    fields: dict[str, int],
    platforms: list[IndexedPlatform],
    idf: dict[str, float],
) -> IndexedRoute:
    platform_terms = platforms[platform_position].name_terms
    name_terms = {t for t, code in fields.items() if code == NAME}
    return IndexedRoute(
        id=row.id,
        platform=platform_position,
        path=row.path,
        name=row.name,
        example=row.example,
        required_params=_required_params(row.key),
        own_name_terms=frozenset(name_terms - platform_terms),
        alternatives=_name_alternatives(row.name, platform_terms, idf),
    )


def curation_load(index: SearchIndex, version: tuple) -> Curation:
    """Read every row's curation (two narrow queries) into position order for ``index``."""
    platforms = {row.id: row for row in selectors.platform_curation_rows()}
    routes = {row.id: row for row in selectors.route_curation_rows()}
    route_ok = bytearray(len(index.routes))
    route_priority = [0] * len(index.routes)
    for position, route in enumerate(index.routes):
        row = routes.get(route.id)
        platform = platforms.get(index.platforms[route.platform].id)
        if row is not None and platform is not None:
            route_ok[position] = row.eligible and platform.eligible
            route_priority[position] = row.priority
    platform_ok = bytearray(len(index.platforms))
    platform_priority = [0] * len(index.platforms)
    for position, platform in enumerate(index.platforms):
        row = platforms.get(platform.id)
        if row is not None:
            platform_ok[position] = any(route_ok[r] for r in platform.routes)
            platform_priority[position] = row.priority
    ok = (bytes(route_ok), tuple(route_priority), bytes(platform_ok), tuple(platform_priority))
    return Curation(version, *ok)


# --- One index per process ----------------------------------------------------------------------


def recheck_seconds() -> float:
    return float(getattr(settings, "CATALOG_SEARCH_RECHECK_SECONDS", 2.0))


class _IndexHolder:
    """Holds the process's index; checks the catalog version at most every recheck interval.

    While one thread rebuilds, others keep searching the previous index (safe: search re-reads
    eligibility of what it returns); only the very first build makes them wait.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._index: SearchIndex | None = None
        self._checked_at = -math.inf

    def current(self) -> SearchIndex:
        index = self._index
        if index is not None and time.monotonic() - self._checked_at < recheck_seconds():
            return index
        if not self._lock.acquire(blocking=index is None):
            return index  # another thread is checking or rebuilding
        try:
            return self._refresh()
        finally:
            self._lock.release()

    def _refresh(self) -> SearchIndex:
        index = self._index
        if index is not None and time.monotonic() - self._checked_at < recheck_seconds():
            return index  # checked by another thread while this one waited
        # The version is read before the rows: an index never claims a newer version than its
        # data, so a change racing the build causes one extra rebuild, never a stale index.
        text, curation = version = selectors.catalog_search_version()
        if index is None or (index.version != text and not index_touch(index, text)):
            index = self._index = search_index_build(version)
        elif index.curation.version != curation:
            index.curation = curation_load(index, curation)  # readers hold the old one meanwhile
        self._checked_at = time.monotonic()
        return index

    def invalidate(self) -> None:
        with self._lock:
            self._index, self._checked_at = None, -math.inf


_holder = _IndexHolder()


def search_index_current() -> SearchIndex:
    """This process's index, rebuilt first when the catalog changed (see the module docstring)."""
    return _holder.current()


def search_index_invalidate() -> None:
    """Drop this process's index; the next search rebuilds it. For writers in this process."""
    _holder.invalidate()
