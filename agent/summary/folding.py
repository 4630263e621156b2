"""Near-duplicate folding: the same story told by several items becomes one story.

Two outlets rarely title a story alike, but they open it with the same facts. Two items tell
the same story when their titles share most of their shingles, or when their title and opening
text together do. Folding takes connected components, so which items fold does not depend on
their order; each story keeps its items in the order given, the first being its lead.

Anything with a ``title`` and a ``summary`` can be folded: a brief's items, and a watch's new
items when it says what changed.
"""

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

LATIN_RE = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
CJK_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
OPENING_CHARS = 240  # how much of the text two tellings of a story are compared on
TITLE_SAME = 0.6  # Jaccard of title shingles above which two titles tell one story
TEXT_SAME = 0.6  # share of the smaller opening's shingles the other holds
TEXT_MIN_SHINGLES = 8  # openings shorter than this are not compared (too little to tell)


class Foldable(Protocol):
    @property
    def title(self) -> str: ...

    @property
    def summary(self) -> str: ...


T = TypeVar("T", bound=Foldable)


@dataclass(frozen=True)
class Story(Generic[T]):
    """Items that tell one story; the first is its lead."""

    items: tuple[T, ...]

    @property
    def lead(self) -> T:
        return self.items[0]


def shingles(text: str) -> frozenset[str]:
    """Latin words and numbers, and the character pairs of Chinese runs (a lone character
    stands for itself), case and width folded."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    out = set(LATIN_RE.findall(folded))
    for run in CJK_RUN_RE.findall(folded):
        out.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return frozenset(out)


def same_story(a: Foldable, b: Foldable) -> bool:
    """Whether two items tell the same story (see the module's note)."""
    bits: dict[str, int] = {}
    return _same(_Marks.of(a, bits), _Marks.of(b, bits))


def stories_fold(items: Sequence[T]) -> list[Story[T]]:
    """The items folded into stories, in the order of each story's first item."""
    bits: dict[str, int] = {}  # shingle -> its bit: sets as ints, intersections in C
    marks = [_Marks.of(item, bits) for item in items]
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if root(i) != root(j) and _same(marks[i], marks[j]):
                parent[max(root(i), root(j))] = min(root(i), root(j))
    groups: dict[int, list[T]] = {}
    for i, item in enumerate(items):
        groups.setdefault(root(i), []).append(item)
    return [Story(tuple(group)) for group in groups.values()]


@dataclass(frozen=True)
class _Marks:
    """An item's shingles as bit sets (a bit per shingle seen in the fold), and their sizes."""

    title: int
    opening: int
    title_size: int
    opening_size: int

    @classmethod
    def of(cls, item: Foldable, bits: dict[str, int]) -> "_Marks":
        title = shingles(item.title)
        opening = title | shingles(item.summary[:OPENING_CHARS])
        return cls(_bitset(title, bits), _bitset(opening, bits), len(title), len(opening))


def _bitset(marks: frozenset[str], bits: dict[str, int]) -> int:
    value = 0
    for mark in marks:
        value |= 1 << bits.setdefault(mark, len(bits))
    return value


def _same(a: _Marks, b: _Marks) -> bool:
    shared = (a.title & b.title).bit_count()
    if shared and shared >= TITLE_SAME * (a.title_size + b.title_size - shared):
        return True
    smaller = min(a.opening_size, b.opening_size)
    return (
        smaller >= TEXT_MIN_SHINGLES and (a.opening & b.opening).bit_count() >= TEXT_SAME * smaller
    )
