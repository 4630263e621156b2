"""Key terms: the words that recur across a brief's items more than across other recent items.

A term counts once per item that holds it. It is a key term when at least ``MIN_ITEMS`` items
hold it, scored by how many do, weighted by how rare it is among the catalog's other recent items
(the background), so "发布" or "today" that every feed says do not crowd out the story words.
Chinese text is cut into character pairs: with no dictionary, a pair that recurs across items
and is rare elsewhere is usually a word or a name's core; of overlapping pairs held by the same
items (人工, 工智, 智能) only the best-scored stands.
"""

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from agent.summary.folding import CJK_RUN_RE

MIN_ITEMS = 2
SHOWN = 6
LATIN_WORD_RE = re.compile(r"[a-z][a-z0-9+#.-]*[a-z0-9+#]|[a-z]{3,}")
STOP_LATIN = frozenset(
    str.split(
        """the and for with that this from have has had was were are been will would could should
        its it's their they them then than there here what when where which who whom why how
        not but all any can into about after before over under more most some such only also
        just new says said say one two three first last year years day days week weeks today
        yesterday out off our your you his her she him via per com www http https html amp nbsp
        get got make made many much very may might now own same other others each every being"""
    )
)
STOP_CJK = frozenset(
    str.split(
        """一个 我们 他们 你们 这个 那个 没有 可以 已经 表示 进行 以及 其中 目前 今天 昨天 今年
        去年 因为 所以 但是 如果 就是 不是 还是 这是 自己 时候 什么 这样 如何 发布 记者 消息
        报道 相关 公司 日电 月日 年月 其他 通过 成为 认为 需要 将在 了一 的一 是一 在一 有一 显示
        今日 本周 近日 日前 此前 预计 宣布 指出 提醒"""
    )
)


@dataclass(frozen=True)
class KeyTerm:
    term: str
    numbers: tuple[int, ...]  # citation numbers of the items that hold it


def terms_of(text: str) -> set[str]:
    """The candidate terms of a text: Latin words and Chinese character pairs."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    terms = {w for w in LATIN_WORD_RE.findall(folded) if w not in STOP_LATIN}
    for run in CJK_RUN_RE.findall(folded):
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    return {t for t in terms if t not in STOP_CJK}


def background_counts(texts: Iterable[str]) -> tuple[Counter[str], int]:
    """How many of the background texts hold each term, and how many texts there are."""
    counts: Counter[str] = Counter()
    total = 0
    for text in texts:
        counts.update(terms_of(text))
        total += 1
    return counts, total


def key_terms(
    items: list[tuple[int, str]], background: Counter[str], background_total: int
) -> list[KeyTerm]:
    """The recurring terms of ``items`` (citation number, text), best first."""
    holders: dict[str, list[int]] = {}
    for n, text in items:
        for term in terms_of(text):
            holders.setdefault(term, []).append(n)

    def score(term: str) -> float:
        rarity = math.log((background_total + 1) / (background.get(term, 0) + 1)) + 1
        return len(holders[term]) * rarity

    ranked = sorted(
        (t for t, ns in holders.items() if len(ns) >= MIN_ITEMS and len(ns) < len(items)),
        key=lambda t: (-score(t), t),
    )
    chosen: list[KeyTerm] = []
    for term in ranked:
        numbers = tuple(sorted(holders[term]))
        if not any(_overlaps(term, k) and set(numbers) <= set(k.numbers) for k in chosen):
            chosen.append(KeyTerm(term, numbers))
        if len(chosen) == SHOWN:
            break
    return chosen


def _overlaps(term: str, other: KeyTerm) -> bool:
    """Two Chinese pairs that share a character are pieces of one longer word."""
    return bool(CJK_RUN_RE.fullmatch(term)) and bool(set(term) & set(other.term))
