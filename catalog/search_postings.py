"""The search index's postings as arrays, for relevance scored a whole posting list at a time.

``catalog.search_index`` keeps, per term, the routes that hold it and the best field each holds
it in; this module turns that into NumPy arrays (positions, field weights) so that
``catalog.search_relevance`` adds one term's contribution to every route of its list in one
operation instead of a Python loop per posting: at ten times the catalog a common question
touches ~10,000 postings. Beside them, per term, the *name alternatives* (``IndexedRoute``)
whose own terms hold it, for name coverage; and per route its platform, required parameters and
whether its name has alternatives.

Memory is linear in the postings: 4 bytes of position and 8 of weight per posting, 8 per
alternative posting, a few bytes per route and platform.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class TermPostings:
    routes: np.ndarray  # int32 route positions, ascending
    weights: np.ndarray  # float64 weight of the field each route holds the term in
    alts: np.ndarray  # int32 name alternatives whose own terms hold it
    alt_routes: np.ndarray  # int32 the route of each of those alternatives


@dataclass(frozen=True, slots=True)
class PostingArrays:
    routes: dict[str, TermPostings]
    platforms: dict[str, tuple[np.ndarray, np.ndarray]]  # term -> (positions, field weights)
    route_platform: np.ndarray  # int32, per route
    route_required: np.ndarray  # int32 required path parameters, per route
    route_has_alts: np.ndarray  # bool, per route: its name lists alternatives
    alt_route: np.ndarray  # int32, per alternative
    alt_mass: np.ndarray  # float64 idf sum of an alternative's own terms
    platform_size: np.ndarray  # float64 ln(1 + its routes), per platform

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays (not the dictionaries' own overhead)."""
        total = sum(
            a.nbytes
            for a in (self.route_platform, self.route_required, self.route_has_alts,
                      self.alt_route, self.alt_mass, self.platform_size)
        )  # fmt: skip
        for p in self.routes.values():
            total += p.routes.nbytes + p.weights.nbytes + p.alts.nbytes + p.alt_routes.nbytes
        return total + sum(p.nbytes + w.nbytes for p, w in self.platforms.values())


def _split(codes, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A posting list (``position << 2 | field``) as positions and field weights."""
    packed = np.frombuffer(codes, dtype=np.uint32) if len(codes) else np.zeros(0, np.uint32)
    return (packed >> 2).astype(np.int32), weights[packed & 3]


def _alternatives(routes) -> tuple[dict[str, tuple[list, list]], list[int], list[float]]:
    """Per term, the alternatives (and their routes) whose own terms hold it, where the route
    holds the term in its name: only such a match counts toward coverage."""
    by_term: dict[str, tuple[list, list]] = {}
    alt_route, alt_mass = [], []
    for position, route in enumerate(routes):
        for terms, mass in route.alternatives:
            alt = len(alt_route)
            alt_route.append(position)
            alt_mass.append(mass)
            for term in terms & route.own_name_terms:
                alts, owners = by_term.setdefault(term, ([], []))
                alts.append(alt)
                owners.append(position)
    return by_term, alt_route, alt_mass


def posting_arrays(index, field_weights: tuple[float, ...]) -> PostingArrays:
    """The arrays of ``index`` (a ``SearchIndex`` whose postings and routes are built)."""
    weights = np.array(field_weights, dtype=np.float64)
    by_term, alt_route, alt_mass = _alternatives(index.routes)
    routes = {}
    for term, codes in index.route_postings.items():
        positions, field = _split(codes, weights)
        alts, owners = by_term.get(term, ((), ()))
        routes[term] = TermPostings(
            positions, field, np.array(alts, dtype=np.int32), np.array(owners, dtype=np.int32)
        )
    return PostingArrays(
        routes=routes,
        platforms={t: _split(codes, weights) for t, codes in index.platform_postings.items()},
        route_platform=np.array([r.platform for r in index.routes], dtype=np.int32),
        route_required=np.array([r.required_params for r in index.routes], dtype=np.int32),
        route_has_alts=np.array([bool(r.alternatives) for r in index.routes], dtype=bool),
        alt_route=np.array(alt_route, dtype=np.int32),
        alt_mass=np.array(alt_mass, dtype=np.float64),
        platform_size=np.log1p(np.array([len(p.routes) for p in index.platforms], np.float64)),
    )
