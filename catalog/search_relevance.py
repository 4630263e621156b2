"""How well routes and platforms fit a question's terms, from the index's postings.

Route relevance is the sum over question terms of idf x query weight x the term's best field
weight in the route, times ``0.5 + 0.5 x coverage``, where coverage is the idf share of the route
name's own terms (those not also the platform's name) that the question holds, so 知乎热榜 beats
知乎想法热榜 for "知乎热榜". A platform's own-text relevance is the same sum over its own fields.

Each term's posting list is added in one array operation (``catalog.search_postings``); scores
live in arrays as long as the catalog, so what ranks next reads them without building a
dictionary of every route that matched.
"""

from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np

from catalog.search_index import SearchIndex
from catalog.search_postings import TermPostings
from catalog.search_question import NAMED_TERM_FACTOR, SearchQuery

MIN_CANDIDATES = 300
EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(slots=True)
class Relevance:
    """Relevance of the searchable routes and platforms, by position (0.0: none)."""

    routes: np.ndarray  # float64 per route
    positions: np.ndarray  # int64, ascending: where ``found`` is true
    platforms: np.ndarray  # float64 per platform, own text
    best_route: np.ndarray  # float64 per platform, its best route's relevance
    platform_positions: np.ndarray  # int64: platforms with own-text or route relevance
    # How the terms were read, to tell afterwards which ones a route matched.
    # int32 per route: 1 + the step (term) that first scored it; 0 for a route not found, or
    # not searchable, or skipped.
    found_at: np.ndarray
    pooled: tuple[bool, ...]  # per step: the term only rescored routes already found
    named_routes: frozenset[int]  # routes of the platforms the question names
    allowed: np.ndarray | None  # bool per route, when only those were scored

    def found(self, position: int) -> bool:
        return bool(self.found_at[position])

    def route(self, position: int) -> float:
        return float(self.routes[position])

    def platform(self, position: int) -> float:
        return float(self.platforms[position] + self.best_route[position])


def _hit_factors(query: SearchQuery, term: str, named: bool) -> list[tuple[int, float]]:
    """(platform, factor) where a named platform's factor differs from every other's."""
    default = NAMED_TERM_FACTOR if named else 1.0
    out = []
    for platform in query.hits:
        factor = query.factor(term, platform, named)
        if factor != default:
            out.append((platform, factor))
    return out


def _factors(platforms: np.ndarray, default: float, overrides) -> np.ndarray | None:
    """Per posting (given its platform), how much the term counts; None when all count 1."""
    if not overrides and default == 1.0:
        return None
    factors = np.full(len(platforms), default)
    for platform, factor in overrides:
        factors[platforms == platform] = factor
    return factors


@dataclass(slots=True)
class _Accumulator:
    index: SearchIndex
    query: SearchQuery
    allowed: np.ndarray | None
    named: np.ndarray
    scores: np.ndarray
    found_at: np.ndarray
    coverage: np.ndarray  # per alternative: idf of its own terms the question holds
    count: int = 0
    chunks: list = field(default_factory=list)  # positions found, term by term
    alt_chunks: list = field(default_factory=list)  # alternatives touched, term by term

    def add(self, step: int, term: str, weight: float, idf: float, pooled: bool) -> None:
        postings: TermPostings = self.index.arrays.routes[term]
        named = term in self.query.named_terms
        default = NAMED_TERM_FACTOR if named else 1.0
        overrides = _hit_factors(self.query, term, named)
        platform_of = self.index.arrays.route_platform
        # Coverage first: it asks which routes were found before this term.
        alts = postings.alts
        if len(alts):
            keep = self._kept(postings.alt_routes, pooled, default, overrides, platform_of)
            alts = alts if keep is None else alts[keep]
            self.coverage[alts] += idf
            self.alt_chunks.append(alts)
        positions = postings.routes
        factors = _factors(platform_of[positions], default, overrides)
        keep = self._kept(positions, pooled, default, overrides, platform_of, factors)
        contribution = (weight if factors is None else weight * factors) * postings.weights
        if keep is not None:
            positions, contribution = positions[keep], contribution[keep]
        self.scores[positions] += contribution
        new = positions[self.found_at[positions] == 0]
        self.found_at[new] = step + 1
        self.count += len(new)
        self.chunks.append(new)

    def _kept(self, routes, pooled, default, overrides, platform_of, factors=None):
        """Which of ``routes`` this term is read for (None: all of them)."""
        keep = None
        if self.allowed is not None:
            keep = self.allowed[routes]
        elif pooled:
            keep = (self.found_at[routes] > 0) | self.named[routes]
        if default == 0.0 or any(f == 0.0 for _, f in overrides):
            if factors is None:
                factors = _factors(platform_of[routes], default, overrides)
            nonzero = factors != 0.0
            keep = nonzero if keep is None else keep & nonzero
        return keep

    def finish(self) -> np.ndarray:
        """Scores x (0.5 + 0.5 x name coverage), in place; returns the positions found."""
        arrays = self.index.arrays
        positions = np.sort(np.concatenate(self.chunks)) if self.chunks else EMPTY
        coverage = np.ones(len(positions))
        coverage[arrays.route_has_alts[positions]] = 0.0
        if self.alt_chunks:
            touched = np.concatenate(self.alt_chunks)  # repeats do not change a maximum
            mass = arrays.alt_mass[touched]
            share = np.divide(self.coverage[touched], mass, out=np.zeros(len(touched)),
                              where=mass > 0)  # fmt: skip
            best = np.zeros(len(self.scores))
            np.maximum.at(best, arrays.alt_route[touched], share)
            coverage = np.where(arrays.route_has_alts[positions], best[positions], 1.0)
        self.scores[positions] *= 0.5 + 0.5 * coverage
        return positions


def _route_relevance(index, query, named: np.ndarray, allowed) -> tuple[_Accumulator, list]:
    """Relevance of routes that match the question (only ``allowed`` ones when given).

    A term held by more than ``common_cutoff`` routes ("news", 文章) only rescores the routes
    already found and a named platform's: by itself it cannot make a route relevant. Unless the
    question names no platform and fewer than ``MIN_CANDIDATES`` routes are found by then: a
    question of common words still finds routes.
    """
    n = len(index.routes)
    acc = _Accumulator(
        index, query, allowed, named, np.zeros(n), np.zeros(n, dtype=np.int32),
        np.zeros(len(index.arrays.alt_route)),
    )  # fmt: skip
    pooled = []
    for step, (term, weight, idf) in enumerate(query.terms):
        postings = index.arrays.routes.get(term)
        if postings is None or not len(postings.routes):
            pooled.append(False)
            continue
        common = len(postings.routes) > index.common_cutoff and (
            bool(query.hits) or acc.count >= MIN_CANDIDATES
        )
        pooled.append(common and allowed is None)
        acc.add(step, term, weight * idf, idf, common and allowed is None)
    return acc, pooled


def _platform_relevance(index: SearchIndex, query: SearchQuery) -> np.ndarray:
    scores = np.zeros(len(index.platforms))
    for term, weight, idf in query.terms:
        if term not in index.arrays.platforms:
            continue
        positions, weights = index.arrays.platforms[term]
        named = term in query.named_terms
        factors = _factors(positions, NAMED_TERM_FACTOR if named else 1.0,
                           _hit_factors(query, term, named))  # fmt: skip
        scaled = weight * idf if factors is None else weight * idf * factors
        scores[positions] += scaled * weights
    return scores


def _mask(size: int, positions: Collection[int]) -> np.ndarray:
    mask = np.zeros(size, dtype=bool)
    if positions:
        mask[np.fromiter(positions, dtype=np.int64, count=len(positions))] = True
    return mask


def relevance_of(
    index: SearchIndex, query: SearchQuery, *, allowed=None, skip_routes=(), skip_platforms=()
) -> Relevance:
    """Relevance of the routes and platforms that are searchable and not skipped."""
    arrays = index.arrays
    named = frozenset(r for p in query.hits for r in index.platforms[p].routes)
    named_mask = _mask(len(index.routes), named) if named else np.zeros(len(index.routes), bool)
    allowed_mask = None if allowed is None else _mask(len(index.routes), allowed)
    acc, pooled = _route_relevance(index, query, named_mask, allowed_mask)
    positions = acc.finish()
    routes = acc.scores
    searchable = np.frombuffer(query.curation.route_ok, dtype=bool)[positions]
    if skip_routes:
        searchable &= ~np.isin(positions, np.fromiter(skip_routes, dtype=np.int64))
    if skip_platforms:
        skipped = np.fromiter(skip_platforms, dtype=np.int64)
        searchable &= ~np.isin(arrays.route_platform[positions], skipped)
    dropped = positions[~searchable]
    routes[dropped], acc.found_at[dropped] = 0.0, 0
    positions = positions[searchable]
    best = np.zeros(len(index.platforms))
    np.maximum.at(best, arrays.route_platform[positions], routes[positions])
    platforms = _platform_relevance(index, query)
    platforms[~np.frombuffer(query.curation.platform_ok, dtype=bool)] = 0.0
    if skip_platforms:
        platforms[np.fromiter(skip_platforms, dtype=np.int64)] = 0.0
    relevant = np.flatnonzero((platforms > 0) | (best > 0))
    return Relevance(routes, positions, platforms, best, relevant, acc.found_at,
                     tuple(pooled), named, allowed_mask)  # fmt: skip


def matched_terms(
    index: SearchIndex, query: SearchQuery, rel: Relevance, positions: list[int]
) -> dict[int, list[str]]:
    """Per route position, the question terms it matched, in the order they were read."""
    wanted = np.array(positions, dtype=np.int32)
    platforms = index.arrays.route_platform[wanted]
    out: dict[int, list[str]] = {p: [] for p in positions}
    for step, (term, _, _) in enumerate(query.terms):
        postings = index.arrays.routes.get(term)
        if postings is None or not len(postings.routes):
            continue
        at = np.minimum(np.searchsorted(postings.routes, wanted), len(postings.routes) - 1)
        held = postings.routes[at] == wanted
        if rel.allowed is not None:
            held &= rel.allowed[wanted]
        elif rel.pooled[step]:
            found_at = rel.found_at[wanted]  # 1 + the step that found it
            named = np.fromiter((p in rel.named_routes for p in positions), bool, len(positions))
            held &= named | ((found_at > 0) & (found_at <= step))
        named_term = term in query.named_terms
        for k in np.flatnonzero(held).tolist():
            if query.factor(term, int(platforms[k]), named_term):
                out[positions[k]].append(term)
    return out
