"""Route search, the agent's first step: a question -> ranked platforms and routes with scores.

The parts: the terms of a text (``catalog.search_terms``), the in-memory index with its fields and
invalidation (``catalog.search_index``), what a question names and gives
(``catalog.search_question``) and how well routes fit it (``catalog.search_relevance``); this
module scores and ranks. Scoring, per platform ``p`` and route ``r``:

- name: when the question contains one of ``p``'s names whole (namespace, name, translated
  name, alias, domain), ``NAME_WEIGHT`` x the idf sum of that name's terms. A name found inside a
  longer name of another platform (新浪 inside 新浪微博) counts ``CONTAINED_NAME_FACTOR`` of it.
- route relevance: the sum over question terms of idf x query weight x the term's best field
  weight in the route, times ``0.5 + 0.5 x coverage``, where coverage is the idf share of the route
  name's own terms (those not also the platform's name) that the question holds, so 知乎热榜 beats
  知乎想法热榜 for "知乎热榜". Terms of a platform's name found in the question do not count again
  for its routes, and count ``NAMED_TERM_FACTOR`` for other platforms' (the "arxiv" of a question
  names arXiv more than it describes a route of Trending Papers that mentions arXiv).
- subject values (owner/name pairs, @handles, ids mixing letters and digits: see
  ``catalog.search_terms.entities_split``) name no platform and their terms weigh
  ``ENTITY_WEIGHT``: the rust-lang of rust-lang/rust is no platform called Lang. A platform named
  after "of", "from" or "by" says whose items are asked for: beside another platform named about
  as strongly, it counts ``CONTAINED_NAME_FACTOR`` of it ("Instagram posts of natgeo").
- platform score = (name + own-text relevance + best route relevance, plus ``SIZE_PRIOR`` x
  ln(1 + its routes) when that relevance is not nil) x priority(p): between two platforms the
  question fits alike, the larger one is the likelier source;
- route score = (name(p) + (route relevance + ``PRIOR_RELEVANCE``) / (1 + required path
  parameters the question's own values cannot fill)) x priority(p) x priority(r) x
  ``route_health_score``: a parameter the agent cannot fill from the question makes a route
  fail, so fewer is better.

Priority multiplies by ``PRIORITY_BASE ** priority`` (capped at +-``PRIORITY_CAP``).

Queries per call: none for the index while it is current (see ``search_index_current``), then
one for the top candidates' fresh curation and health (``selectors.search_states``).
Candidates no longer eligible are dropped there, so a disabled or removed route or platform
never comes back, even from an index built before the change.
"""

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.utils import timezone

from catalog import selectors
from catalog.health import route_health_score
from catalog.search_index import SearchIndex, search_index_current
from catalog.search_question import SearchQuery, names_said, query_parse
from catalog.search_relevance import Relevance, matched_terms, relevance_of
from catalog.search_terms import MAX_QUESTION_CHARS, word_stem

PRIOR_RELEVANCE = 0.5
SIZE_PRIOR = 0.15
PRIORITY_BASE = 1.25
PRIORITY_CAP = 10
# C0 and C1 controls but tab and newlines, DEL, and lone surrogates (not text at all).
CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


class SearchQuestionInvalid(ValueError):
    """The question cannot be searched (empty, too long, control characters); says why."""


@dataclass(frozen=True, slots=True)
class PlatformHit:
    namespace: str
    name: str
    score: float
    reasons: tuple[str, ...] = ()
    named_by: str = ""  # the name of it the question says, as its "name" reason shows it


@dataclass(frozen=True, slots=True)
class RouteHit:
    route_id: int
    namespace: str
    path: str  # the full route template, e.g. /zhihu/hot/:category?
    name: str
    example: str
    score: float
    platform_score: float = 0.0
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchResult:
    platforms: list[PlatformHit]
    routes: list[RouteHit]
    terms: tuple[str, ...] = ()  # the question terms that were searched for


def question_problem(question: object, *, allow_empty: bool = False) -> str | None:
    """Why ``question`` cannot be searched, or None when it can."""
    if not isinstance(question, str):
        return f"the question must be text, not {type(question).__name__}"
    if not allow_empty and not question.strip():
        return "the question is empty"
    if len(question) > MAX_QUESTION_CHARS:
        return f"the question is {len(question)} characters long; at most {MAX_QUESTION_CHARS}"
    if match := CONTROL_RE.search(question):
        return f"the question holds a control character (U+{ord(match.group()):04X})"
    return None


# --- Scores -------------------------------------------------------------------------------------


def priority_factor(priority: int) -> float:
    if not priority:
        return 1.0
    return PRIORITY_BASE ** max(-PRIORITY_CAP, min(PRIORITY_CAP, priority))


def _route_base(index: SearchIndex, query: SearchQuery, rel: Relevance, position: int) -> float:
    """A route's score before curation and health.

    The route's own part (relevance and a small prior, so that routes matching nothing still
    rank) is divided by 1 + its required path parameters: the agent must fill each one from the
    question, and one it cannot fill makes the route fail.
    """
    route = index.routes[position]
    required = max(0, route.required_params - query.values)
    own = (rel.route(position) + PRIOR_RELEVANCE) / (1 + required)
    return query.name_scores.get(route.platform, 0.0) + own


def _platform_base(index: SearchIndex, query: SearchQuery, rel: Relevance, position: int) -> float:
    own = rel.platform(position)
    if own:
        own += SIZE_PRIOR * math.log1p(len(index.platforms[position].routes))
    return query.name_scores.get(position, 0.0) + own


def _route_reasons(
    index: SearchIndex, query: SearchQuery, terms: list[str], position: int, health: float, state
) -> tuple[str, ...]:
    reasons = []
    if hit := query.hits.get(index.routes[position].platform):
        reasons.append(f"platform named {hit.label!r}")
    if terms:
        reasons.append("matches " + ", ".join(dict.fromkeys(terms)))
    if state.priority or state.platform_priority:
        reasons.append(f"priority {state.priority:+d} (platform {state.platform_priority:+d})")
    reasons.append(f"health {health:.2f}")
    return tuple(reasons)


def _platform_reasons(
    index: SearchIndex, query: SearchQuery, rel: Relevance, position: int, priority: int
) -> tuple[str, ...]:
    reasons = []
    if hit := query.hits.get(position):
        reasons.append(f"name {hit.label!r}")
    routes = [r for r in index.platforms[position].routes if rel.found(r)]
    if routes:
        best = max(routes, key=rel.route)
        reasons.append(f"route {index.routes[best].name[:60]!r}")
    if rel.platforms[position] > 0:
        reasons.append("platform text")
    if priority:
        reasons.append(f"priority {priority:+d}")
    return tuple(reasons)


def _route_hit(
    index: SearchIndex, query: SearchQuery, rel: Relevance, scored: tuple, terms: list[str]
) -> RouteHit:
    score, position, state, health = scored
    route = index.routes[position]
    platform_score = _platform_base(index, query, rel, route.platform)
    platform_score *= priority_factor(state.platform_priority)
    return RouteHit(
        route_id=route.id,
        namespace=index.platforms[route.platform].namespace,
        path=route.path,
        name=route.name,
        example=route.example,
        score=round(score, 4),
        platform_score=round(platform_score, 4),
        reasons=_route_reasons(index, query, terms, position, health, state),
    )


def _route_hits(
    index: SearchIndex,
    query: SearchQuery,
    rel: Relevance,
    positions: dict[int, float | None],
    states: dict,
    limit: int,
) -> list[RouteHit]:
    """The best ``limit`` route candidates (position -> score before curation, None: to be
    computed), rescored with their fresh state; ineligible dropped."""
    now = timezone.now()
    scored = []
    for position, base in positions.items():
        state = states.get(index.routes[position].id)
        if state is None or not state.eligible:
            continue
        health = route_health_score(state, now=now)
        if base is None:
            base = _route_base(index, query, rel, position)
        score = base * health
        score *= priority_factor(state.platform_priority) * priority_factor(state.priority)
        scored.append((score, position, state, health))
    scored.sort(key=lambda s: (-s[0], index.routes[s[1]].path))
    scored = scored[:limit]
    terms = matched_terms(index, query, rel, [s[1] for s in scored])
    return [_route_hit(index, query, rel, s, terms[s[1]]) for s in scored]


def _platform_hits(
    index: SearchIndex,
    query: SearchQuery,
    rel: Relevance,
    positions: dict[int, float],
    states: dict,
    limit: int,
) -> list[PlatformHit]:
    """Platform candidates (position -> score before curation) rescored with their fresh state,
    best first; the ineligible dropped."""
    hits = []
    for position, base in positions.items():
        platform = index.platforms[position]
        state = states.get(platform.id)
        if state is None or not state.eligible:
            continue
        score = base * priority_factor(state.priority)
        hits.append((round(score, 4), platform.namespace, position, state.priority))
    hits.sort(key=lambda h: (-h[0], h[1]))
    return [
        PlatformHit(namespace, index.platforms[position].name, score,
                    _platform_reasons(index, query, rel, position, priority),
                    hit.label if (hit := query.hits.get(position)) else "")
        for score, namespace, position, priority in hits[:limit]
    ]  # fmt: skip


def _fresh_hits(
    index: SearchIndex,
    query: SearchQuery,
    rel: Relevance,
    routes: tuple[dict[int, float | None], int],
    platforms: tuple[dict[int, float], int],
) -> tuple[list[RouteHit], list[PlatformHit]]:
    """The best of the route and platform candidates, each given as (positions, limit), rescored
    with curation and health read now, in one query."""
    (routes, route_limit), (platforms, platform_limit) = routes, platforms
    platform_ids = {index.platforms[p].id for p in platforms}
    platform_ids |= {index.platforms[index.routes[r].platform].id for r in routes}
    route_states, platform_states = selectors.search_states(
        [index.routes[r].id for r in routes], platform_ids
    )
    return (
        _route_hits(index, query, rel, routes, route_states, route_limit),
        _platform_hits(index, query, rel, platforms, platform_states, platform_limit),
    )


def _priority_factors(priorities) -> np.ndarray:
    values = np.clip(np.array(priorities, dtype=np.float64), -PRIORITY_CAP, PRIORITY_CAP)
    return PRIORITY_BASE**values


_curation_factors: list = [None, None]  # (curation, (route factors, platform factors))


def _curation_priorities(curation) -> tuple[np.ndarray, np.ndarray]:
    """Priority factors of every route and platform under ``curation`` (kept for the last one:
    a curation is replaced whole, never changed)."""
    if _curation_factors[0] is not curation:
        factors = (
            _priority_factors(curation.route_priority),
            _priority_factors(curation.platform_priority),
        )
        _curation_factors[:] = [curation, factors]
    return _curation_factors[1]


def _largest(
    scores: np.ndarray, positions: np.ndarray, bases: np.ndarray, count: int
) -> dict[int, float]:
    """The ``count`` positions of highest score, ties to the higher position (as sorting
    (score, position) pairs would have it), best first, each with its score before curation
    (``bases``), which the fresh rescoring starts from."""
    if len(scores) > count:
        threshold = np.partition(scores, len(scores) - count)[len(scores) - count]
        keep = scores >= threshold
        scores, positions, bases = scores[keep], positions[keep], bases[keep]
    order = np.lexsort((-positions, -scores))[:count]
    return dict(zip(positions[order].tolist(), bases[order].tolist(), strict=True))


def _top_routes(index, query, rel, skip: set[int], limit: int) -> dict[int, float]:
    """The candidates that can rank in the first ``limit``: the relevant routes and the named
    platforms' searchable ones, by the index's curation, oversampled since fresh health can
    still reorder them."""
    arrays = index.arrays
    positions = rel.positions
    if query.hits:
        route_ok = query.curation.route_ok
        named = [r for r in rel.named_routes if route_ok[r] and r not in skip and not rel.found(r)]
        positions = np.concatenate([positions, np.array(named, dtype=np.int64)])
    platforms = arrays.route_platform[positions]
    required = np.maximum(arrays.route_required[positions] - query.values, 0)
    own = (rel.routes[positions] + PRIOR_RELEVANCE) / (1 + required)
    names = np.zeros(len(index.platforms))
    for platform, score in query.name_scores.items():
        names[platform] = score
    route_factor, platform_factor = _curation_priorities(query.curation)
    bases = names[platforms] + own
    scores = bases * route_factor[positions] * platform_factor[platforms]
    return _largest(scores, positions, bases, 2 * limit + 5)


def _top_platforms(index, query, rel, skip: set[int], limit: int) -> dict[int, float]:
    names = np.zeros(len(index.platforms))
    for platform, score in query.name_scores.items():
        names[platform] = score
    named = [p for p in query.hits if not (rel.platforms[p] > 0 or rel.best_route[p] > 0)]
    positions = np.concatenate([rel.platform_positions, np.array(named, dtype=np.int64)])
    if skip:
        positions = positions[~np.isin(positions, np.fromiter(skip, dtype=np.int64))]
    own = rel.platforms[positions] + rel.best_route[positions]
    own = np.where(own > 0, own + SIZE_PRIOR * index.arrays.platform_size[positions], 0.0)
    _, platform_factor = _curation_priorities(query.curation)
    bases = names[positions] + own
    scores = bases * platform_factor[positions]
    return _largest(scores, positions, bases, 2 * limit + 5)


# --- Public API ---------------------------------------------------------------------------------


def _excluded_routes(index: SearchIndex, routes: Iterable[int | str]) -> set[int]:
    found = set()
    for route in routes:
        position = (index.route_by_path if isinstance(route, str) else index.route_by_id).get(route)
        if position is not None:
            found.add(position)
    return found


def _checked(question: str, *, allow_empty: bool = False) -> None:
    problem = question_problem(question, allow_empty=allow_empty)
    if problem:
        raise SearchQuestionInvalid(problem)


def search_catalog(
    question: str,
    *,
    limit: int = 10,
    platform_limit: int = 5,
    exclude_namespaces: Iterable[str] = (),
    exclude_routes: Iterable[int | str] = (),
) -> SearchResult:
    """Rank the searchable platforms and routes for ``question``, best first.

    ``exclude_routes`` holds Route ids or full path templates. Only platforms and routes that
    match the question appear (an empty result when nothing does), each enabled and present
    upstream, its platform too. Raises ``SearchQuestionInvalid`` for an empty question, one over
    ``MAX_QUESTION_CHARS``, or one holding control characters.
    """
    _checked(question)
    index = search_index_current()
    query = query_parse(index, question)
    skip_platforms = {index.platform_by_namespace.get(n) for n in exclude_namespaces} - {None}
    skip_routes = _excluded_routes(index, exclude_routes)
    for position in skip_platforms:
        query.hits.pop(position, None)
        query.name_scores.pop(position, None)
    if not query.terms and not query.hits:
        return SearchResult(platforms=[], routes=[])
    rel = relevance_of(index, query, skip_routes=skip_routes, skip_platforms=skip_platforms)
    routes, platforms = _fresh_hits(
        index,
        query,
        rel,
        (_top_routes(index, query, rel, skip_routes, limit), limit),
        (_top_platforms(index, query, rel, skip_platforms, platform_limit), platform_limit),
    )
    terms = tuple(term for term, _, _ in query.terms)
    return SearchResult(platforms=platforms, routes=routes, terms=terms)


def routes_for_platforms(
    namespaces: Iterable[str],
    question: str,
    *,
    exclude: Iterable[int | str] = (),
    limit: int = 20,
) -> list[RouteHit]:
    """Rank every searchable route of the chosen platforms for ``question``, best first.

    For the agent's route step: unlike ``search_catalog`` it also lists routes that match
    nothing in the question (after those that do), so a fallback is always offered while one is
    left. Unknown namespaces contribute nothing. ``exclude`` holds Route ids or full path
    templates (routes already tried). The question may be empty; otherwise it is checked as in
    ``search_catalog``.
    """
    _checked(question, allow_empty=True)
    index = search_index_current()
    query = query_parse(index, question)
    skip = _excluded_routes(index, exclude)
    platforms = {index.platform_by_namespace.get(n) for n in namespaces} - {None}
    route_ok = query.curation.route_ok
    allowed = {r for p in platforms for r in index.platforms[p].routes if route_ok[r]} - skip
    rel = relevance_of(index, query, allowed=allowed)
    return _fresh_hits(index, query, rel, (dict.fromkeys(allowed), limit), ({}, 0))[0]


def platforms_named(question: str) -> list[tuple[str, float]]:
    """(namespace, strength of the name found) of every platform ``question`` names by one of
    its names, whether or not any of its routes can be searched, strongest first. The agent
    tells a platform asked for by name whose routes all wait for staff from another one."""
    _checked(question, allow_empty=True)
    index = search_index_current()
    found = names_said(index, question)
    ranked = sorted(found.items(), key=lambda item: -item[1])
    return [(index.platforms[position].namespace, strength) for position, strength in ranked]


# Below this idf a word is common in the catalog's text: said in many routes' names and
# descriptions ("thread", "daily", "hot"), where a brand (Shopify, Bing) is said in its own
COMMON_IDF = 5.0


def words_common(words: Iterable[str]) -> frozenset[str]:
    """Those of ``words`` that are words of the catalog's text at large, not one platform's
    name."""
    index = search_index_current()
    return frozenset(
        w for w in words if index.idf.get(word_stem(w.casefold()), COMMON_IDF) < COMMON_IDF
    )
