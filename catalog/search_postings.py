"""The search index's postings as arrays, for relevance scored a whole posting list at a time.

``catalog.search_index`` keeps, per term, the routes that hold it and the best field each holds
it in; this module turns that into NumPy arrays (positions, field weights) so that
``catalog.search_relevance`` adds one term's contribution to every route of its list in one
operation instead of a Python loop per posting: at ten times the catalog a common question
touches ~10,000 postings. Beside them, per term, the *name alternatives* (``IndexedRoute``)
whose own terms hold it, for name coverage; and per route its platform, required parameters and
whether its name has alternatives.

Layout. Every term's list is a slice of one flat array per field (compressed sparse rows: term
``i`` owns ``positions[starts[i]:starts[i + 1]]``), not a few NumPy arrays per term: ~25,000
terms as ~100,000 small arrays cost 18 MB of object headers for 1.5 MB of numbers. Flat arrays
are also what ``catalog.search_store`` writes to ``DATA_DIR`` and maps back, so every process of
the machine reads the same pages. Terms find their row through a dict per process (term -> row).

Memory is linear in the postings: 4 bytes of position and 8 of weight per posting, 8 per
alternative posting, a few bytes per route and platform, 8 per term.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

# The flat arrays, by name, with their types: what catalog.search_store writes and maps back.
ARRAY_TYPES = {
    "route_starts": np.int64, "route_positions": np.int32, "route_weights": np.float64,
    "alt_starts": np.int64, "alts": np.int32, "alt_routes": np.int32,
    "platform_starts": np.int64, "platform_positions": np.int32, "platform_weights": np.float64,
    "route_platform": np.int32, "route_required": np.int32, "route_has_alts": np.bool_,
    "alt_route": np.int32, "alt_mass": np.float64, "platform_size": np.float64,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class TermPostings:
    routes: np.ndarray  # int32 route positions, ascending
    weights: np.ndarray  # float64 weight of the field each route holds the term in
    alts: np.ndarray  # int32 name alternatives whose own terms hold it
    alt_routes: np.ndarray  # int32 the route of each of those alternatives


class _RouteLists(Mapping):
    """term -> ``TermPostings``: views into the flat arrays, made when asked."""

    def __init__(self, rows: dict[str, int], a: dict[str, np.ndarray]) -> None:
        self._rows, self._a = rows, a

    def __getitem__(self, term: str) -> TermPostings:
        i, a = self._rows[term], self._a
        lo, hi = a["route_starts"][i], a["route_starts"][i + 1]
        alo, ahi = a["alt_starts"][i], a["alt_starts"][i + 1]
        return TermPostings(a["route_positions"][lo:hi], a["route_weights"][lo:hi],
                            a["alts"][alo:ahi], a["alt_routes"][alo:ahi])  # fmt: skip

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class _PlatformLists(Mapping):
    """term -> (positions, field weights) of the platforms that hold it."""

    def __init__(self, rows: dict[str, int], a: dict[str, np.ndarray]) -> None:
        self._rows, self._a = rows, a

    def __getitem__(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        i, a = self._rows[term], self._a
        lo, hi = a["platform_starts"][i], a["platform_starts"][i + 1]
        return a["platform_positions"][lo:hi], a["platform_weights"][lo:hi]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class PostingArrays:
    """The flat arrays (``ARRAY_TYPES``), built here or mapped from a file, and per term its row."""

    def __init__(
        self, arrays: dict[str, np.ndarray], route_terms: list[str], platform_terms: list[str]
    ) -> None:
        self.arrays = arrays
        self.route_terms, self.platform_terms = route_terms, platform_terms
        self.routes = _RouteLists({t: i for i, t in enumerate(route_terms)}, arrays)
        self.platforms = _PlatformLists({t: i for i, t in enumerate(platform_terms)}, arrays)
        self.route_platform = arrays["route_platform"]
        self.route_required = arrays["route_required"]
        self.route_has_alts = arrays["route_has_alts"]
        self.alt_route = arrays["alt_route"]
        self.alt_mass = arrays["alt_mass"]
        self.platform_size = arrays["platform_size"]

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays (not the term dictionaries)."""
        return sum(a.nbytes for a in self.arrays.values())


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


def _rows(lists: list, dtype) -> tuple[np.ndarray, np.ndarray]:
    """Lists as (starts, concatenation): row ``i`` is ``flat[starts[i]:starts[i + 1]]``."""
    starts = np.zeros(len(lists) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(x) for x in lists])
    flat = np.concatenate([np.asarray(x, dtype=dtype) for x in lists]) if lists else []
    return starts, np.asarray(flat, dtype=dtype)


def posting_arrays(index, field_weights: tuple[float, ...]) -> PostingArrays:
    """The arrays of ``index`` (a ``SearchIndex`` whose postings and routes are built)."""
    weights = np.array(field_weights, dtype=np.float64)
    by_term, alt_route, alt_mass = _alternatives(index.routes)
    route_terms, platform_terms = list(index.route_postings), list(index.platform_postings)
    routes = [_split(index.route_postings[t], weights) for t in route_terms]
    platforms = [_split(index.platform_postings[t], weights) for t in platform_terms]
    alts = [by_term.get(t, ((), ())) for t in route_terms]
    a: dict[str, np.ndarray] = {}
    a["route_starts"], a["route_positions"] = _rows([p for p, _ in routes], np.int32)
    a["route_weights"] = _rows([w for _, w in routes], np.float64)[1]
    a["alt_starts"], a["alts"] = _rows([x for x, _ in alts], np.int32)
    a["alt_routes"] = _rows([o for _, o in alts], np.int32)[1]
    a["platform_starts"], a["platform_positions"] = _rows([p for p, _ in platforms], np.int32)
    a["platform_weights"] = _rows([w for _, w in platforms], np.float64)[1]
    a["route_platform"] = np.array([r.platform for r in index.routes], dtype=np.int32)
    a["route_required"] = np.array([r.required_params for r in index.routes], dtype=np.int32)
    a["route_has_alts"] = np.array([bool(r.alternatives) for r in index.routes], dtype=bool)
    a["alt_route"] = np.array(alt_route, dtype=np.int32)
    a["alt_mass"] = np.array(alt_mass, dtype=np.float64)
    a["platform_size"] = np.log1p(np.array([len(p.routes) for p in index.platforms], np.float64))
    return PostingArrays(a, route_terms, platform_terms)
