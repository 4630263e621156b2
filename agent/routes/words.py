"""The words of a question that are never a subject's value, and the test a word must pass
to be one: filler and kinds of thing (``GENERIC``), people in general, spans of time, and the
route's own words (``describes``). Read by ``agent.routes.entities`` and
``agent.routes.clauses``.
"""

import re

from agent.question import EN_STOP
from agent.routes.forms import CJK_RE, DURATION_RE, ZH_SPAN_WORD_RE
from agent.vocabulary import FILLER_EN, KIND_EN, intent_word, plural_stem
from catalog.search_terms import word_stem

# Words that say what kind of thing is asked for, or that no subject is named: never a subject.
GENERIC = FILLER_EN | KIND_EN
# Words for people in general: in a subject's place ("what did people say") they name nobody.
PEOPLE = frozenset(
    str.split(
        """people person persons everyone everybody someone somebody anyone anybody folks they
    them he she it you we who users user developers fans experts others he's she's they're
    ta"""
    )
)


def usable(word: str, excluded: set[str]) -> bool:
    """``word`` may be a subject's value: a word, no stop word, filler, kind of thing or span of
    time, and none of the route's own."""
    low = word.lower().strip(".'-_")
    return (
        bool(re.search(r"[^\W_]", low))
        and low not in EN_STOP
        and low not in GENERIC
        and not ZH_SPAN_WORD_RE.fullmatch(low)  # 这两天 says when, not who
        and not DURATION_RE.fullmatch(low)  # nor does "24-hour"
        and not describes(low, excluded)
    )


def describes(word: str, excluded: set[str]) -> bool:
    """``word`` is one of the route's own words, a plural as its singular ("events" of
    Organization Event), a verb as its other forms ("star" of Starred Repositories); for
    Chinese, a part of one: 发帖 of 用户发帖."""
    if word in excluded or (word.isascii() and plural_stem(word) in excluded):
        return True
    if word.isascii() and word.isalpha() and len(word) > 3:
        stem = word_stem(word)
        if any(e.isascii() and word_stem(e) == stem for e in excluded):
            return True
    return bool(CJK_RE.search(word)) and any(word in e for e in excluded if not e.isascii())


def feeds_named(word: str) -> bool:
    """A kind of feed said in the plural ("the image builds") names no one after a marker; a
    label may be one in the singular ("labelled bug")."""
    return intent_word(word) and plural_stem(word) != word
