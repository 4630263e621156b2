"""Chinese word segmentation: jieba, its dictionary loaded once per process.

One home for the segmenter, shared by the question reading (``agent.question``,
``agent.summary.subject``) and the facts a text states (``agent.summary.facts``). jieba loads a
dictionary of about 350,000 words (about a second, measured by ``bench/support_check.py``): it is
loaded on first use, or ahead of it with ``segmenter_warm()`` (a worker calls it before it forks
its children). Only Chinese pieces are given to it: Latin words, handles, ids and numbers between
them stay whole.
"""

import functools
import logging
import re
import threading
from typing import Any

CJK_ONLY_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_lock = threading.Lock()
_segmenter: Any = None


def segmenter() -> Any:
    """jieba's part-of-speech tokenizer (``.tokenizer`` is the plain one), loaded once."""
    global _segmenter
    if _segmenter is None:
        with _lock:
            if _segmenter is None:
                import jieba
                import jieba.posseg

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _segmenter = jieba.posseg.dt
    return _segmenter


def segmenter_warm() -> None:
    """Load the dictionary now, so that no question waits for it."""
    segmenter()


def zh_words(run: str) -> list[str]:
    """The words of a run, in order: its Chinese pieces segmented, anything between them (a
    Latin word, a number, a handle) kept whole as one word (``36氪`` -> ``36``, ``氪``)."""
    tokenizer = segmenter().tokenizer
    words: list[str] = []
    last = 0
    for match in CJK_ONLY_RE.finditer(run):
        words += run[last : match.start()].split()
        words += [w for w in tokenizer.cut(match.group(0), HMM=True) if w.strip()]
        last = match.end()
    return words + run[last:].split()


def zh_parts(run: str) -> list[str]:
    """The words of a run and the dictionary's words inside them (jieba's search mode:
    实时票房榜 is 实时, 票房, 票房榜): what a name's words say, each part alone."""
    tokenizer = segmenter().tokenizer
    parts: list[str] = []
    for word in zh_words(run):
        parts += tokenizer.cut_for_search(word, HMM=True) if CJK_ONLY_RE.search(word) else [word]
    return parts


def zh_places(text: str) -> list[str]:
    """The place names of a text's Chinese runs, in order, as the segmenter tags them
    (浙江省, 杭州市, 南山区; 北京): words of two characters or more."""
    cut = segmenter().cut
    return [
        pair.word
        for run in CJK_ONLY_RE.findall(text)
        for pair in cut(run, HMM=True)
        if pair.flag == "ns" and len(pair.word) >= 2
    ]


def zh_simplified(text: str) -> str:
    """``text`` with traditional Chinese characters as simplified ones (本週 is 本周, 最多觀看
    最多观看): a label and a question compare whichever script each is written in. Short texts
    (labels, names, questions) come back run after run and are kept; a long one (a route's
    description, read once when the search index is built) is not."""
    return _simplified_kept(text) if len(text) <= KEPT_CHARS else _simplified(text)


KEPT_CHARS = 300


@functools.lru_cache(maxsize=65536)
def _simplified_kept(text: str) -> str:
    return _simplified(text)


def _simplified(text: str) -> str:
    import zhconv

    return zhconv.convert(text, "zh-cn") if CJK_ONLY_RE.search(text) else text


@functools.lru_cache(maxsize=16384)
def zh_scripts(text: str) -> frozenset[str]:
    """``text`` as written, and in simplified and traditional characters when it has Chinese."""
    if not CJK_ONLY_RE.search(text):
        return frozenset((text,))
    import zhconv

    return frozenset((text, zhconv.convert(text, "zh-cn"), zhconv.convert(text, "zh-hant")))


# Parts of speech that say how something is asked, never what about: verbs (not verbal
# nouns), adverbs, pronouns, prepositions, conjunctions and particles. Adjectives, numerals and
# the like are left: the segmenter tags a name it does not know so (英伟达: 英 j, 伟达 a).
FUNCTION_FLAGS = frozenset(str.split("v vd vg vi vl d dg r rr rz rg p c u uj ul uz ug uv ud y e o"))
VERB_FLAGS = frozenset(str.split("v vd vg vi vl"))


def zh_function_words(text: str) -> frozenset[str]:
    """The words of two characters or more of a text's Chinese runs that the segmenter tags as
    verbs or function words (``FUNCTION_FLAGS``): 想买, 征求, 安排, 什么; not a verb that makes a
    noun with the character after it (交付量)."""
    cut = segmenter().cut
    found = set()
    for run in CJK_ONLY_RE.findall(text):
        pairs = list(cut(run, HMM=True))
        for pair, after in zip(pairs, [*pairs[1:], None], strict=True):
            # a verb a one-character noun follows makes a noun of both: 交付量
            compound = after is not None and len(after.word) == 1 and after.flag.startswith("n")
            if pair.flag in FUNCTION_FLAGS and len(pair.word) >= 2 and not compound:
                found.add(pair.word)
    return frozenset(found)


def zh_leads_as_function(run: str, *, verbs: bool = True) -> bool:
    """The first word of a Chinese run is a verb, a pronoun or another function word (写, 我,
    很): how a sentence goes on, never the start of a name. Not ``verbs``: a verb may start
    what is meant (a topic: 具身智能, whose 具身 is tagged a verb)."""
    first = next(iter(segmenter().cut(run[:12], HMM=True)), None)
    flags = FUNCTION_FLAGS if verbs else FUNCTION_FLAGS - VERB_FLAGS
    return first is not None and (first.flag in flags or first.flag.startswith("r"))


def zh_placed_less(run: str) -> str:
    """A Chinese run without what leads it up to a preposition (只在显卡: 显卡; 帮我在原神:
    原神); one with none is whole (具身智能, whose 具身 is tagged a verb)."""
    words = list(segmenter().cut(run, HMM=True)) if CJK_ONLY_RE.search(run) else []
    at = max((i for i, w in enumerate(words[:-1]) if w.flag == "p"), default=-1)
    return "".join(w.word for w in words[at + 1 :]) if at >= 0 else run


def zh_ends_as_function(run: str) -> bool:
    """The last word of a Chinese run is a function word or a place word (在, 上, 里, 关注):
    what stands before a name, never the name's start ("上ChinaJoy" is ChinaJoy on a site)."""
    words = list(segmenter().cut(run[-12:], HMM=True))
    last = words[-1] if words else None
    return last is not None and (last.flag in FUNCTION_FLAGS or last.flag in {"f", "r"})
