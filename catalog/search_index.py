"""The route-search index: one inverted index of the catalog, built once per catalog version for
the machine (``catalog.search_store`` writes it to ``DATA_DIR``, every process maps it). Its terms
come from ``catalog.search_terms`` (per row: ``catalog.search_fields``), the same for the catalog
and for a question.

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
text signature rebuilds the index (or maps the file another process has built for that
signature), unless the rows written since kept their text (``catalog.search_touch``). Curation
is per process, read from the database beside the mapped file; a changed curation signature
reloads only the curation. Search
re-reads curation and health of its top candidates on every call (``catalog.search``), so a
disabled route disappears at once; additions wait for the next check. Health stays out of the
index: it changes on every fetch.
"""

import logging
import math
import threading
import time
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from catalog import selectors
from catalog.abbreviations import platform_short_names
from catalog.search_fields import (
    FIELD_WEIGHTS,
    NAME,
    name_alternatives,
    platform_fields,
    platform_names,
    required_params,
    route_fields,
    shared_domains,
)
from catalog.search_postings import posting_arrays
from catalog.search_store import IndexFileRefused, build_lock, index_path, index_read, index_write
from catalog.search_terms import CJK_RE, text_canonical, text_terms
from catalog.search_touch import index_touch, row_digests

log = logging.getLogger(__name__)

# --- The index ----------------------------------------------------------------------------------


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
    short: bool = False  # a short name made of its words' first characters (北林)


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


LONG_CJK_NAME = 4  # characters


def _strength(index: SearchIndex, terms: Iterable[str]) -> float:
    """The sum over a name's terms of the lesser of name idf and idf."""
    return sum(min(index.name_idf.get(t, 0.0), index.idf.get(t, 0.0)) for t in terms)


def _phrases(index: SearchIndex, position: int, names: list[str]) -> float:
    """Index the platform's names as phrases; the strongest one's strength."""
    strongest = 0.0
    for label in dict.fromkeys(names):
        canonical = text_canonical(label)
        # A name made of question words only ("right", "now", "today") names nothing.
        terms = tuple(dict.fromkeys(text_terms(label, question=True)))
        if not terms:
            continue
        # A name that is also a common word ("papers", "news") is weak evidence of the platform.
        strength = _strength(index, terms)
        if not strength and len(CJK_RE.findall(canonical)) >= LONG_CJK_NAME:
            # "什么值得买": a long Chinese name is one, though its words ask (什么) or go unindexed
            strength = _strength(index, dict.fromkeys(text_terms(label)))
        strongest = max(strongest, strength)
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
    return strongest


def _short_phrases(index: SearchIndex, position: int, shorts: list[str], strength: float):
    """A platform's short names (``catalog.abbreviations``: 北林), each as strong as the
    strongest of its names: its own characters say little to the idf."""
    for short in shorts:
        terms = tuple(dict.fromkeys(text_terms(short, question=True))) or (short,)
        phrase = NamePhrase(text_canonical(short), short, position, terms, strength, short=True)
        if CJK_RE.search(short):
            index.cjk_phrases.setdefault(short[:2], []).append(phrase)
        else:  # an English name's initials (JLL): a word of the question, as a name is
            index.word_phrases.setdefault(phrase.text, []).append(phrase)


def search_index_build(version: tuple[tuple, tuple]) -> SearchIndex:
    """Read the catalog and build the index for ``version`` (``catalog_search_version()``)."""
    started = time.perf_counter()
    platform_rows, routes_of = _load_rows()
    shared = shared_domains(platform_rows)
    builder = _Builder()
    routes: list[tuple[selectors.RouteRow, int, dict[str, int]]] = []
    for position, platform in enumerate(platform_rows):
        fields = platform_fields(platform, shared)
        _post(builder.platform_terms, position, fields)
        builder.name_vocab.append({t for t, code in fields.items() if code == NAME})
        vocabulary = set(fields)
        for route in routes_of[platform.id]:
            own = route_fields(route, platform.namespace)
            _post(builder.route_terms, len(routes), own)
            routes.append((route, position, own))
            vocabulary.update(own)
        builder.platform_vocab.append(vocabulary)
    index = _assemble(version[0], platform_rows, routes, builder)
    names = [(position, platform_names(row, shared)) for position, row in enumerate(platform_rows)]
    shorts = platform_short_names(names)
    for position, labels in names:
        strength = _phrases(index, position, labels)
        _short_phrases(index, position, shorts.get(position, []), strength)
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
        required_params=required_params(row.key),
        own_name_terms=frozenset(name_terms - platform_terms),
        alternatives=name_alternatives(row.name, platform_terms, idf),
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


# --- One index per machine, mapped by every process (catalog.search_store) ----------------------

# What the file holds besides the arrays; the postings by term live on only as the arrays.
STORED_FIELDS = (
    "version", "platforms", "routes", "idf", "name_idf", "word_phrases", "cjk_phrases",
    "platform_by_namespace", "route_by_path", "route_by_id", "common_cutoff", "digests",
    "built_seconds", "longest_phrase_words",
)  # fmt: skip


def _index_load(path, version: tuple[tuple, tuple]) -> SearchIndex | None:
    try:
        stored = index_read(path, version[0])
    except IndexFileRefused as exc:
        log.warning("search index %s refused (%s): rebuilding it", path.name, exc)
        return None
    if stored is None:
        return None
    rest, arrays = stored
    index = SearchIndex(
        **rest, curation=Curation((), b"", (), b"", ()), route_postings={}, platform_postings={}
    )
    index.arrays = arrays
    index.curation = curation_load(index, version[1])
    return index


def search_index_shared(version: tuple[tuple, tuple]) -> SearchIndex:
    """The index of ``version`` from this database's file in ``DATA_DIR``; built and written
    first (by one process at a time) when the file is absent, stale or damaged."""
    path = index_path()
    index = _index_load(path, version)
    if index is not None:
        return index
    with build_lock(path):
        index = _index_load(path, version)  # another process may have built it meanwhile
        if index is None:
            built = search_index_build(version)
            rest = {name: getattr(built, name) for name in STORED_FIELDS}
            index_write(path, version[0], rest, built.arrays)
            index = _index_load(path, version) or built
    return index


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
            index = self._index = search_index_shared(version)
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
