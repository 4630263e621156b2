"""Route search, the agent's first step: a question -> ranked platforms and routes with scores.

Relevance comes from the in-memory index (``catalog.search_index``, which documents the terms,
fields and invalidation). Scoring, per platform ``p`` and route ``r``:

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
  ``catalog.search_index.entities_split``) name no platform and their terms weigh
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

import bisect
import heapq
import math
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from django.utils import timezone

from catalog import selectors
from catalog.health import route_health_score
from catalog.search_index import (
    CJK_RE,
    FIELD_WEIGHTS,
    NAME,
    Curation,
    IndexedRoute,
    NamePhrase,
    SearchIndex,
    entities_split,
    question_terms,
    search_index_current,
    text_canonical,
    text_runs,
)

MAX_QUESTION_CHARS = 2000
NAME_WEIGHT = 2.0
NAME_STRENGTH_CAP = 10.0
CONTAINED_NAME_FACTOR = 0.25
NAMED_TERM_FACTOR = 0.3
PRIOR_RELEVANCE = 0.5
SIZE_PRIOR = 0.15
PRIORITY_BASE = 1.25
PRIORITY_CAP = 10
MIN_CANDIDATES = 300
# C0 and C1 controls but tab and newlines, DEL, and lone surrogates (not text at all).
SUBJECT_MARKERS = frozenset(("of", "from", "by"))
SUBJECT_NAME_RIVAL = 0.5  # how strongly another platform must be named to be the one read
NUMBER_RE = re.compile(r"(?<![\w.])\d{3,}(?![\w.])")
CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


class SearchQuestionInvalid(ValueError):
    """The question cannot be searched (empty, too long, control characters); says why."""


@dataclass(frozen=True, slots=True)
class PlatformHit:
    namespace: str
    name: str
    score: float
    reasons: tuple[str, ...] = ()


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


# --- The question -------------------------------------------------------------------------------


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


@dataclass(slots=True)
class _NameHit:
    strength: float
    label: str
    span: tuple[int, int]
    exclude_terms: frozenset[str]  # its name's terms: they say nothing about its routes
    phrase_terms: frozenset[str]  # the terms of all its names found in the question


@dataclass(slots=True)
class _Query:
    """One question against one index, with the index's curation as this search began."""

    curation: Curation
    terms: list[tuple[str, float, float]]  # (term, query weight, idf), rarest first
    hits: dict[int, _NameHit] = field(default_factory=dict)
    named_terms: frozenset[str] = frozenset()  # phrase terms of all hits
    name_scores: dict[int, float] = field(default_factory=dict)  # NAME_WEIGHT x hit strength
    values: int = 0  # parameter values the question gives (see ``question_values``)

    def factor(self, term: str, platform: int, named: bool) -> float:
        """How much ``term`` counts for a platform's relevance (``named``: in named_terms)."""
        hit = self.hits.get(platform)
        if hit is not None and term in hit.exclude_terms:
            return 0.0
        if named and (hit is None or term not in hit.phrase_terms):
            return NAMED_TERM_FACTOR  # "arxiv" names arXiv; it says little about Trending Papers
        return 1.0


def _bounded(text: str, start: int, end: int, phrase: str) -> bool:
    """A phrase edge that is a letter or digit must sit at a word edge; CJK edges need not."""
    left = start == 0 or text[start - 1] == " " or CJK_RE.match(phrase[0]) is not None
    right = end == len(text) or text[end] == " " or CJK_RE.match(phrase[-1]) is not None
    return left and right


def _find(text: str, phrase: str) -> tuple[int, int] | None:
    start = text.find(phrase)
    while start != -1:
        if _bounded(text, start, start + len(phrase), phrase):
            return start, start + len(phrase)
        start = text.find(phrase, start + 1)
    return None


def _word_phrase_matches(index: SearchIndex, canonical: str) -> Iterable[tuple[NamePhrase, tuple]]:
    runs = list(text_runs(canonical))
    for i, (_, is_cjk, start) in enumerate(runs):
        squashed = ""
        for later, cjk, later_start in runs[i : i + index.longest_phrase_words]:
            if is_cjk or cjk:
                break
            squashed += later
            for phrase in index.word_phrases.get(squashed, ()):
                yield phrase, (start, later_start + len(later))


def _cjk_phrase_matches(index: SearchIndex, canonical: str) -> Iterable[tuple[NamePhrase, tuple]]:
    seen: set[int] = set()
    for match in CJK_RE.finditer(canonical):
        at = match.start()
        for key in (canonical[at], canonical[at : at + 2]):
            for phrase in index.cjk_phrases.get(key, ()):
                if id(phrase) in seen:
                    continue
                seen.add(id(phrase))
                span = _find(canonical, phrase.text)
                if span is not None:
                    yield phrase, span


def _name_hits(index: SearchIndex, canonical: str, curation: Curation) -> dict[int, _NameHit]:
    """The searchable platforms the question names, with the strongest of their names found."""
    found: dict[int, list[tuple[float, NamePhrase, tuple[int, int]]]] = {}
    matches = [*_word_phrase_matches(index, canonical), *_cjk_phrase_matches(index, canonical)]
    for phrase, span in matches:
        if not curation.platform_ok[phrase.platform]:
            continue
        strength = min(phrase.strength, NAME_STRENGTH_CAP)
        found.setdefault(phrase.platform, []).append((strength, phrase, span))
    hits = {}
    for position, candidates in found.items():
        strength, best, span = max(candidates, key=lambda c: c[0])
        shortest = min(candidates, key=lambda c: len(c[1].text))[1]
        exclude = index.platforms[position].name_terms | set(shortest.terms)
        phrase_terms = frozenset(t for c in candidates for t in c[1].terms)
        hits[position] = _NameHit(strength, best.label, span, frozenset(exclude), phrase_terms)
    for position, hit in hits.items():
        if any(_inside(hit.span, o.span) for p, o in hits.items() if p != position):
            hit.strength *= CONTAINED_NAME_FACTOR
    # "Instagram posts of natgeo": natgeo says whose posts, Instagram where to read them. Not
    # when the other name is a weak one, a common word ("News of BBC").
    subjects = [p for p, hit in hits.items() if _after_subject_marker(canonical, hit.span)]
    others = [hit.strength for p, hit in hits.items() if p not in subjects]
    for position in subjects:
        if max(others, default=0.0) >= SUBJECT_NAME_RIVAL * hits[position].strength:
            hits[position].strength *= CONTAINED_NAME_FACTOR
    return hits


def _after_subject_marker(canonical: str, span: tuple[int, int]) -> bool:
    """The name follows "of", "from" or "by": it says whose items, not where to read them."""
    before = canonical[: span[0]].split()
    return bool(before) and before[-1] in SUBJECT_MARKERS


def _inside(span: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= span[0] and span[1] <= outer[1] and span != outer


def _parse(index: SearchIndex, question: str) -> _Query:
    terms = [
        (term, weight, index.idf[term])
        for term, weight in question_terms(question).items()
        if term in index.idf
    ]
    terms.sort(key=lambda t: -t[2])
    curation = index.curation
    plain, entities = entities_split(question)  # a subject value names no platform
    hits = _name_hits(index, text_canonical(plain), curation)
    named = frozenset(t for hit in hits.values() for t in hit.phrase_terms)
    scores = {p: NAME_WEIGHT * hit.strength for p, hit in hits.items()}
    values = question_values(plain, entities)
    return _Query(curation, terms, hits, named_terms=named, name_scores=scores, values=values)


def question_values(plain: str, entities: list[str]) -> int:
    """How many path parameters the question's own values can fill: two for an owner/name
    pair, one for another subject value or a number of three digits or more."""
    numbers = NUMBER_RE.findall(plain)
    return sum(2 if "/" in e else 1 for e in entities) + len(numbers)


# --- Relevance ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Relevance:
    routes: dict[int, float]  # route position -> relevance
    matched: dict[int, list[str]]  # route position -> question terms it matched
    platforms: dict[int, float]  # platform position -> own-text relevance
    best_route: dict[int, float]  # platform position -> its best route's relevance


@dataclass(slots=True)
class _RouteScores:
    """Route relevance, accumulated one question term at a time."""

    index: SearchIndex
    query: _Query
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


def _route_relevance(
    index: SearchIndex, query: _Query, allowed: Collection[int] | None = None
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


def _platform_relevance(index: SearchIndex, query: _Query) -> dict[int, float]:
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


def _relevance(
    index: SearchIndex, query: _Query, *, allowed=None, skip_routes=(), skip_platforms=()
) -> _Relevance:
    """Relevance of the routes and platforms that are searchable and not skipped."""
    route_ok, platform_ok = query.curation.route_ok, query.curation.platform_ok
    found, matched = _route_relevance(index, query, allowed)
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
        for p, s in _platform_relevance(index, query).items()
        if platform_ok[p] and p not in skip_platforms
    }
    return _Relevance(routes, matched, platforms, best)


# --- Scores -------------------------------------------------------------------------------------


def priority_factor(priority: int) -> float:
    if not priority:
        return 1.0
    return PRIORITY_BASE ** max(-PRIORITY_CAP, min(PRIORITY_CAP, priority))


def _route_base(index: SearchIndex, query: _Query, rel: _Relevance, position: int) -> float:
    """A route's score before curation and health.

    The route's own part (relevance and a small prior, so that routes matching nothing still
    rank) is divided by 1 + its required path parameters: the agent must fill each one from the
    question, and one it cannot fill makes the route fail.
    """
    route = index.routes[position]
    required = max(0, route.required_params - query.values)
    own = (rel.routes.get(position, 0.0) + PRIOR_RELEVANCE) / (1 + required)
    return query.name_scores.get(route.platform, 0.0) + own


def _platform_base(index: SearchIndex, query: _Query, rel: _Relevance, position: int) -> float:
    own = rel.platforms.get(position, 0.0) + rel.best_route.get(position, 0.0)
    if own:
        own += SIZE_PRIOR * math.log1p(len(index.platforms[position].routes))
    return query.name_scores.get(position, 0.0) + own


def _route_reasons(
    query: _Query, rel: _Relevance, route: IndexedRoute, position: int, health: float, state
) -> tuple[str, ...]:
    reasons = []
    if hit := query.hits.get(route.platform):
        reasons.append(f"platform named {hit.label!r}")
    if terms := rel.matched.get(position):
        reasons.append("matches " + ", ".join(dict.fromkeys(terms)))
    if state.priority or state.platform_priority:
        reasons.append(f"priority {state.priority:+d} (platform {state.platform_priority:+d})")
    reasons.append(f"health {health:.2f}")
    return tuple(reasons)


def _platform_reasons(
    index: SearchIndex, query: _Query, rel: _Relevance, position: int, priority: int
) -> tuple[str, ...]:
    reasons = []
    if hit := query.hits.get(position):
        reasons.append(f"name {hit.label!r}")
    routes = [r for r in index.platforms[position].routes if r in rel.routes]
    if routes:
        best = max(routes, key=lambda r: rel.routes[r])
        reasons.append(f"route {index.routes[best].name[:60]!r}")
    if position in rel.platforms:
        reasons.append("platform text")
    if priority:
        reasons.append(f"priority {priority:+d}")
    return tuple(reasons)


def _route_hit(index: SearchIndex, query: _Query, rel: _Relevance, scored: tuple) -> RouteHit:
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
        reasons=_route_reasons(query, rel, route, position, health, state),
    )


def _route_hits(
    index: SearchIndex,
    query: _Query,
    rel: _Relevance,
    positions: list[int],
    states: dict,
    limit: int,
) -> list[RouteHit]:
    """The best ``limit`` route candidates, rescored with their fresh state; ineligible dropped."""
    now = timezone.now()
    scored = []
    for position in positions:
        state = states.get(index.routes[position].id)
        if state is None or not state.eligible:
            continue
        health = route_health_score(state, now=now)
        score = _route_base(index, query, rel, position) * health
        score *= priority_factor(state.platform_priority) * priority_factor(state.priority)
        scored.append((score, position, state, health))
    scored.sort(key=lambda s: (-s[0], index.routes[s[1]].path))
    return [_route_hit(index, query, rel, s) for s in scored[:limit]]


def _platform_hits(
    index: SearchIndex,
    query: _Query,
    rel: _Relevance,
    positions: list[int],
    states: dict,
    limit: int,
) -> list[PlatformHit]:
    """Platform candidates rescored with their fresh state, best first; the ineligible dropped."""
    hits = []
    for position in positions:
        platform = index.platforms[position]
        state = states.get(platform.id)
        if state is None or not state.eligible:
            continue
        score = _platform_base(index, query, rel, position) * priority_factor(state.priority)
        reasons = _platform_reasons(index, query, rel, position, state.priority)
        hits.append(PlatformHit(platform.namespace, platform.name, round(score, 4), reasons))
    hits.sort(key=lambda h: (-h.score, h.namespace))
    return hits[:limit]


def _fresh_hits(
    index: SearchIndex,
    query: _Query,
    rel: _Relevance,
    routes: tuple[list[int], int],
    platforms: tuple[list[int], int],
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


def _top_routes(index, query, rel, candidates: set[int], limit: int) -> list[int]:
    """The candidates that can rank in the first ``limit``: by the index's curation, oversampled
    since fresh health can still reorder them."""
    routes, relevance, names = index.routes, rel.routes, query.name_scores
    route_priority = query.curation.route_priority
    platform_priority = query.curation.platform_priority
    scored = []
    for position in candidates:  # _route_base x curation, inlined: this loop is the hot one
        route = routes[position]
        required = max(0, route.required_params - query.values)
        own = (relevance.get(position, 0.0) + PRIOR_RELEVANCE) / (1 + required)
        score = names.get(route.platform, 0.0) + own
        if route_priority[position] or platform_priority[route.platform]:
            score *= priority_factor(route_priority[position])
            score *= priority_factor(platform_priority[route.platform])
        scored.append((score, position))
    return [position for _, position in heapq.nlargest(2 * limit + 5, scored)]


def _top_platforms(index, query, rel, skip: set[int], limit: int) -> list[int]:
    positions = ({*rel.best_route, *rel.platforms, *query.hits}) - skip
    priority = query.curation.platform_priority
    scored = [
        (_platform_base(index, query, rel, p) * priority_factor(priority[p]), p) for p in positions
    ]
    return [position for _, position in heapq.nlargest(2 * limit + 5, scored)]


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
    query = _parse(index, question)
    skip_platforms = {index.platform_by_namespace.get(n) for n in exclude_namespaces} - {None}
    skip_routes = _excluded_routes(index, exclude_routes)
    for position in skip_platforms:
        query.hits.pop(position, None)
        query.name_scores.pop(position, None)
    if not query.terms and not query.hits:
        return SearchResult(platforms=[], routes=[])
    rel = _relevance(index, query, skip_routes=skip_routes, skip_platforms=skip_platforms)
    route_ok = query.curation.route_ok
    named = (r for p in query.hits for r in index.platforms[p].routes)
    candidates = {*rel.routes, *(r for r in named if route_ok[r] and r not in skip_routes)}
    routes, platforms = _fresh_hits(
        index,
        query,
        rel,
        (_top_routes(index, query, rel, candidates, limit), limit),
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
    query = _parse(index, question)
    skip = _excluded_routes(index, exclude)
    platforms = {index.platform_by_namespace.get(n) for n in namespaces} - {None}
    route_ok = query.curation.route_ok
    allowed = {r for p in platforms for r in index.platforms[p].routes if route_ok[r]} - skip
    rel = _relevance(index, query, allowed=allowed)
    return _fresh_hits(index, query, rel, (list(allowed), limit), ([], 0))[0]
