"""How well routes and platforms fit a question's terms, from the index's postings.

Route relevance is the sum over question terms of idf x query weight x the term's best field
weight in the route, times ``0.5 + 0.5 x coverage``, where coverage is the idf share of the route
name's own terms (those not also the platform's name) that the question holds, so 知乎热榜 beats
知乎想法热榜 for "知乎热榜". A platform's own-text relevance is the same sum over its own fields.
"""

import bisect
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from catalog.search_index import FIELD_WEIGHTS, NAME, SearchIndex
from catalog.search_question import SearchQuery

MIN_CANDIDATES = 300


@dataclass(slots=True)
class Relevance:
    routes: dict[int, float]  # route position -> relevance
    matched: dict[int, list[str]]  # route position -> question terms it matched
    platforms: dict[int, float]  # platform position -> own-text relevance
    best_route: dict[int, float]  # platform position -> its best route's relevance


@dataclass(slots=True)
class _RouteScores:
    """Route relevance, accumulated one question term at a time."""

    index: SearchIndex
    query: SearchQuery
    scores: dict[int, float] = field(default_factory=dict)
    matched: dict[int, list[str]] = field(default_factory=dict)
    own: dict[int, set[str]] = field(default_factory=dict)  # matched terms of its own name

    def add(self, term: str, weight: float, codes: Iterable[int]) -> None:
        """Add ``term`` (query weight x idf ``weight``) to the routes of the postings ``codes``."""
        routes, scores, matched = self.index.routes, self.scores, self.matched
        named = term in self.query.named_terms
        check = named or bool(self.query.hits)  # else every factor is 1: skip the call
        for code in codes:
            position = code >> 2
            route = routes[position]
            factor = self.query.factor(term, route.platform, named) if check else 1.0
            if not factor:
                continue
            field_code = code & 3
            scores[position] = (
                scores.get(position, 0.0) + weight * factor * FIELD_WEIGHTS[field_code]
            )
            matched.setdefault(position, []).append(term)
            if field_code == NAME and term in route.own_name_terms:
                self.own.setdefault(position, set()).add(term)

    def finish(self) -> dict[int, float]:
        """Scores x (0.5 + 0.5 x name coverage)."""
        routes = self.index.routes
        for position, score in self.scores.items():
            alternatives = routes[position].alternatives
            if not alternatives:
                coverage = 1.0  # the name says nothing beyond the platform's name
            elif position in self.own:
                coverage = _name_coverage(self.index, alternatives, self.own[position])
            else:
                coverage = 0.0
            self.scores[position] = score * (0.5 + 0.5 * coverage)
        return self.scores


def _name_coverage(index: SearchIndex, alternatives, matched: Collection[str]) -> float:
    """The largest idf share of one name alternative's own terms that the question holds."""
    idf = index.idf
    return max(
        sum(idf.get(t, 0.0) for t in terms if t in matched) / mass if mass else 0.0
        for terms, mass in alternatives
    )


def _posting(postings, position: int) -> int | None:
    """The posting of ``position`` in a term's postings (sorted by position), or None."""
    i = bisect.bisect_left(postings, position << 2)
    if i < len(postings) and postings[i] >> 2 == position:
        return postings[i]
    return None


def _routerelevance_of(
    index: SearchIndex, query: SearchQuery, allowed: Collection[int] | None = None
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """Relevance of routes that match the question (only ``allowed`` ones when given).

    A term held by more than ``common_cutoff`` routes ("news", 文章) only rescores the routes
    already found and a named platform's: by itself it cannot make a route relevant, and its
    long posting list stays unread. Unless the question names no platform and fewer than
    ``MIN_CANDIDATES`` routes are found by then: a question of common words still finds routes.
    """
    acc = _RouteScores(index, query)
    named_routes = [r for p in query.hits for r in index.platforms[p].routes]
    for term, weight, idf in query.terms:
        postings = index.route_postings.get(term)
        if not postings:
            continue
        common = len(postings) > index.common_cutoff and (
            query.hits or len(acc.scores) >= MIN_CANDIDATES
        )
        if allowed is None and not common:
            acc.add(term, weight * idf, postings)
            continue
        pool = allowed if allowed is not None else {*acc.scores, *named_routes}
        codes = (_posting(postings, position) for position in pool)
        acc.add(term, weight * idf, (code for code in codes if code is not None))
    return acc.finish(), acc.matched


def _platformrelevance_of(index: SearchIndex, query: SearchQuery) -> dict[int, float]:
    scores: dict[int, float] = {}
    for term, weight, idf in query.terms:
        named = term in query.named_terms
        for code in index.platform_postings.get(term, ()):
            position = code >> 2
            factor = query.factor(term, position, named)
            if factor:
                score = weight * idf * factor * FIELD_WEIGHTS[code & 3]
                scores[position] = scores.get(position, 0.0) + score
    return scores


def relevance_of(
    index: SearchIndex, query: SearchQuery, *, allowed=None, skip_routes=(), skip_platforms=()
) -> Relevance:
    """Relevance of the routes and platforms that are searchable and not skipped."""
    route_ok, platform_ok = query.curation.route_ok, query.curation.platform_ok
    found, matched = _routerelevance_of(index, query, allowed)
    routes = {p: s for p, s in found.items() if route_ok[p] and p not in skip_routes}
    for position in (r for p in skip_platforms for r in index.platforms[p].routes):
        routes.pop(position, None)
    best: dict[int, float] = {}
    for position, score in routes.items():
        platform = index.routes[position].platform
        if score > best.get(platform, 0.0):
            best[platform] = score
    platforms = {
        p: s
        for p, s in _platformrelevance_of(index, query).items()
        if platform_ok[p] and p not in skip_platforms
    }
    return Relevance(routes, matched, platforms, best)
