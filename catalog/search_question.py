"""A question read against the search index: the platforms it names, its terms, its values.

A platform is named when the question holds one of its names whole (``catalog.search_index``
phrases: namespace, name, translated name, alias, domain); the strength of the name found counts
``NAME_WEIGHT`` in its score. A name found inside a longer name of another platform (新浪 inside
新浪微博) counts ``CONTAINED_NAME_FACTOR`` of it, and so does a name after "of", "from" or "by"
beside another platform named about as strongly: it says whose items, not where to read them
("Instagram posts of natgeo"); a name after "about" or 关于 beside another platform named says
what to look for ("V2EX about Cursor"). Terms of a named platform's names say nothing about its
routes, and count ``NAMED_TERM_FACTOR`` for other platforms'.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from catalog.aliases import CHINESE_ONLY_NAMES
from catalog.search_index import Curation, NamePhrase, SearchIndex
from catalog.search_slips import SLIP_FACTOR, slipped_keys
from catalog.search_terms import (
    CJK_RE,
    entities_split,
    question_terms,
    text_canonical,
    text_runs,
)
from catalog.segment import CJK_ONLY_RE, segmenter, zh_simplified

NAME_WEIGHT = 2.0
NAME_STRENGTH_CAP = 10.0
CONTAINED_NAME_FACTOR = 0.25
NAMED_TERM_FACTOR = 0.3
SUBJECT_MARKERS = frozenset(("of", "from", "by"))
FEED_WORDS = frozenset(("feed", "feeds", "rss"))
# "the paper's own": an article run into the next word spells a one-word name (thepaper) by
# chance; a name written so (The Guardian, The Verge) is found as its words.
ARTICLES = frozenset(("the", "a", "an"))
# What follows these is a topic to look for in the items, not where to read them ("on V2EX
# about Cursor": Cursor is a platform too, but not the one asked for).
TOPIC_MARKERS = frozenset(("about", "regarding", "mentioning", "concerning"))
ZH_TOPIC_MARKERS = ("关于", "提到", "提及", "涉及")
# What a search is for follows these: "search for", "results for", "the word"; 搜, 搜索
SEARCH_LEADS = (("search", "for"), ("searching", "for"), ("results", "for"), ("the", "word"))
ZH_SEARCHES = ("搜", "搜索", "搜一下", "搜搜", "检索")
# What a word said as a verb follows (``_said_as_verb``).
VERB_SUBJECTS = frozenset(str.split("i we you they please let's lets"))
# "a way to follow", "how to keep up with": the name is an infinitive's verb
VERB_LEADS = frozenset(
    str.split("want wants need needs like love going have has wanna try trying way ways how able")
)
# "and keep missing", "still keep forgetting": a word between these and a verb's -ing form is a
# verb that takes it
GERUND_LEADS = frozenset(str.split("and still always never often just also"))
PEOPLE_WORDS = frozenset(str.split("people folks everyone everybody"))
SUBJECT_NAME_RIVAL = 0.5  # how strongly another platform must be named to be the one read
GERUND_RE = re.compile(r"[a-z]{2,}ing")
NUMBER_RE = re.compile(r"(?<![\w.])\d{3,}(?![\w.])")


@dataclass(slots=True)
class NameHit:
    strength: float
    label: str
    span: tuple[int, int]
    exclude_terms: frozenset[str]  # its name's terms: they say nothing about its routes
    phrase_terms: frozenset[str]  # the terms of all its names found in the question


@dataclass(slots=True)
class SearchQuery:
    """One question against one index, with the index's curation as this search began."""

    curation: Curation
    terms: list[tuple[str, float, float]]  # (term, query weight, idf), rarest first
    hits: dict[int, NameHit] = field(default_factory=dict)
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


def _word_windows(index: SearchIndex, canonical: str) -> Iterable[tuple[str, tuple[int, int]]]:
    """Each run of Latin words as long as a name can be, squashed, and where it stands."""
    runs = list(text_runs(canonical))
    for i, (_, is_cjk, start) in enumerate(runs):
        squashed = ""
        for later, cjk, later_start in runs[i : i + index.longest_phrase_words]:
            if is_cjk or cjk:
                break
            squashed += later
            yield squashed, (start, later_start + len(later))


def _word_phrase_matches(index: SearchIndex, canonical: str) -> Iterable[tuple[NamePhrase, tuple]]:
    for squashed, span in _word_windows(index, canonical):
        for phrase in index.word_phrases.get(squashed, ()):
            yield phrase, span


def _slipped_matches(
    index: SearchIndex, canonical: str, exact: list[tuple[NamePhrase, tuple]]
) -> Iterable[tuple[NamePhrase, tuple]]:
    """Long names written with one slip (``catalog.search_slips``), where no name is found
    exactly in those words, weaker than written right."""
    for squashed, span in _word_windows(index, canonical):
        if any(_inside(span, s) or s == span for _p, s in exact):
            continue  # those words are a name written right, or inside one
        for key in slipped_keys(index, squashed):
            for phrase in index.word_phrases[key]:
                yield replace(phrase, strength=phrase.strength * SLIP_FACTOR), span


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


def _name_hits(index: SearchIndex, plain: str, curation: Curation) -> dict[int, NameHit]:
    """The searchable platforms the question names, with the strongest of their names found."""
    canonical = text_canonical(plain)
    # a short name made of a name in simplified characters is a mainland one: a question in
    # traditional characters means its own school by 成大 (成功大學), not 成都大学
    # (its characters, not its punctuation: 「新闻快讯」 is simplified Chinese quoted)
    characters = "".join(CJK_RE.findall(plain))
    traditional = zh_simplified(characters) != characters
    found: dict[int, list[tuple[float, NamePhrase, tuple[int, int]]]] = {}
    matches = [*_word_phrase_matches(index, canonical), *_cjk_phrase_matches(index, canonical)]
    matches += list(_slipped_matches(index, canonical, matches))
    for phrase, span in matches:
        if not curation.platform_ok[phrase.platform]:
            continue
        strength = min(phrase.strength, NAME_STRENGTH_CAP)
        if _article_run_on(canonical, span, phrase):
            strength *= CONTAINED_NAME_FACTOR
        if phrase.short and not _whole_words(canonical, span):
            continue  # 华南理工 holds 南理, no short name of 南京理工大学; 上交所 no 上交
        if phrase.short and traditional and _simplified_name(index, phrase.platform):
            continue
        if phrase.text in CHINESE_ONLY_NAMES and not characters:
            continue  # "ins" in an English question is a word ("the ins and outs")
        found.setdefault(phrase.platform, []).append((strength, phrase, span))
    hits = {}
    for position, candidates in list(found.items()):
        # "I want to keep up with", "the artists I follow": a verb, no platform's name
        found[position] = [c for c in candidates if not _said_as_verb(canonical, c[2])]
        if not found[position]:
            del found[position]
    for position, candidates in found.items():
        strength, best, span = max(candidates, key=lambda c: c[0])
        shortest = min(candidates, key=lambda c: len(c[1].text))[1]
        exclude = index.platforms[position].name_terms | set(shortest.terms)
        phrase_terms = frozenset(t for c in candidates for t in c[1].terms)
        hits[position] = NameHit(strength, best.label, span, frozenset(exclude), phrase_terms)
    for position, hit in hits.items():
        if any(_inside(hit.span, o.span) for p, o in hits.items() if p != position):
            hit.strength *= CONTAINED_NAME_FACTOR
    # "Instagram posts of natgeo": natgeo says whose posts, Instagram where to read them. Not
    # when the other name is a weak one, a common word ("News of BBC").
    subjects = [p for p, hit in hits.items() if _after_subject_marker(canonical, hit.span)]
    # "IT之家的苹果分类": a name after another's and 的 is what of it is asked for (its section)
    for position, hit in hits.items():
        others = [o.span for p, o in hits.items() if p != position]
        if _owned_by(canonical, hit.span, others):
            hit.strength *= CONTAINED_NAME_FACTOR
    topics = [p for p, hit in hits.items() if _after_topic_marker(canonical, hit.span)]
    for position in topics:
        if any(p not in topics for p in hits):
            hits[position].strength *= CONTAINED_NAME_FACTOR
    others = [hit.strength for p, hit in hits.items() if p not in subjects]
    for position in subjects:
        if max(others, default=0.0) >= SUBJECT_NAME_RIVAL * hits[position].strength:
            hits[position].strength *= CONTAINED_NAME_FACTOR
    return hits


def _simplified_name(index: SearchIndex, position: int) -> bool:
    name = index.platforms[position].name
    return zh_simplified(name) == name


def _whole_words(canonical: str, span: tuple[int, int]) -> bool:
    """``span`` starts and ends where words of the question do, its Chinese run cut by the
    segmenter with the dictionary's words alone or guessing the unknown ones: 川农动科院 is
    川|农|动|科|院 by the dictionary (川农 whole), though its guess glues 川农动."""
    return any(_cut_at_edges(canonical, span, guess) for guess in (True, False))


def _cut_at_edges(canonical: str, span: tuple[int, int], guess: bool) -> bool:
    for run in CJK_ONLY_RE.finditer(canonical):
        if run.end() <= span[0] or run.start() >= span[1]:
            continue
        edges = {run.start(), run.end()}
        at = run.start()
        for word in segmenter().tokenizer.cut(run.group(0), HMM=guess):
            at += len(word)
            edges.add(at)
        inside = [e for e in span if run.start() < e < run.end()]
        if any(e not in edges for e in inside):
            return False
    return True


def _article_run_on(canonical: str, span: tuple[int, int], phrase: NamePhrase) -> bool:
    """A one-word name found as an article and the word after it ("the paper" as thepaper)."""
    words = canonical[span[0] : span[1]].split()
    label = phrase.label.strip()
    return len(words) > 1 and words[0] in ARTICLES and " " not in label and label.isascii()


def names_said(index: SearchIndex, question: str) -> dict[int, float]:
    """Every platform the question names, searchable or not (one whose routes all wait for
    staff is still the one asked for), with the strength of its name found."""
    everyone = Curation(index.curation.version, b"", (), b"\x01" * len(index.platforms), ())
    plain, _entities = entities_split(question, index.platform_by_namespace)
    hits = _name_hits(index, plain, everyone)
    return {position: hit.strength for position, hit in hits.items()}


def _after_subject_marker(canonical: str, span: tuple[int, int]) -> bool:
    """The name follows "of", "from" or "by": it says whose items, not where to read them;
    not when it owns what follows ("the past 5 days of iciba's daily sentence"), nor after a
    word for a feed ("a feed of GitHub reviewed advisories": where it is read)."""
    before = canonical[: span[0]].split()
    owns = canonical[span[1] :].startswith(" s ")  # 's, as the canonical text writes it
    of_feed = len(before) > 1 and before[-2] in FEED_WORDS
    return bool(before) and before[-1] in SUBJECT_MARKERS and not owns and not of_feed


def _owned_by(canonical: str, span: tuple[int, int], others: list[tuple[int, int]]) -> bool:
    """The name follows another name found and 的, as a thing of it (IT之家的苹果)."""
    before = canonical[: span[0]].rstrip()
    if not before.endswith("\u7684"):  # 的
        return False
    end = len(before[:-1].rstrip())
    return any(other[1] == end for other in others)


def _said_as_verb(canonical: str, span: tuple[int, int]) -> bool:
    """The name is a word said as a verb: right after a personal pronoun ("I follow"), after a
    verb that takes another ("want to keep up"), or first before "me" ("Keep me posted"), or
    between "and" (or an adverb) and an -ing form ("and keep missing"); or a
    word for people in general ("what have *people* opened")."""
    before = canonical[: span[0]].split()
    if before and before[-1] in VERB_SUBJECTS:
        return True
    after = canonical[span[1] :].split()[:1]
    if after and after[0] in ("me", "us") and not before:  # "Keep me posted": imperative
        return True
    if len(before) > 1 and before[-1] == "to" and before[-2] in VERB_LEADS:
        return True
    if before and before[-1] in GERUND_LEADS and after and GERUND_RE.fullmatch(after[0]):
        return True  # "I play FFXIV and keep missing the notices"
    # "what PRs have people opened": a word for people in general names no site
    return canonical[span[0] : span[1]].strip() in PEOPLE_WORDS


def _after_topic_marker(canonical: str, span: tuple[int, int]) -> bool:
    """The name follows "about" or 关于, or what a search is for ("results for the word",
    用百度搜): it is what to look for, not where."""
    before = canonical[: span[0]].rstrip()
    words = before.split()
    searched = any(tuple(words[-len(lead) :]) == lead for lead in SEARCH_LEADS)
    return bool(words) and (
        words[-1] in TOPIC_MARKERS or searched or before.endswith(ZH_TOPIC_MARKERS + ZH_SEARCHES)
    )


def _inside(span: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= span[0] and span[1] <= outer[1] and span != outer


def query_parse(index: SearchIndex, question: str) -> SearchQuery:
    """The question read against ``index``: its terms, rarest first, the searchable platforms it
    names and how many path parameters its own values can fill."""
    terms = [
        (term, weight, index.idf[term])
        for term, weight in question_terms(question).items()
        if term in index.idf
    ]
    terms.sort(key=lambda t: -t[2])
    curation = index.curation
    # a subject value names no platform
    plain, entities = entities_split(question, index.platform_by_namespace)
    hits = _name_hits(index, plain, curation)
    named = frozenset(t for hit in hits.values() for t in hit.phrase_terms)
    scores = {p: NAME_WEIGHT * hit.strength for p, hit in hits.items()}
    values = question_values(plain, entities)
    return SearchQuery(curation, terms, hits, named_terms=named, name_scores=scores, values=values)


def question_values(plain: str, entities: list[str]) -> int:
    """How many path parameters the question's own values can fill: two for an owner/name
    pair, one for another subject value or a number of three digits or more."""
    numbers = NUMBER_RE.findall(plain)
    return sum(2 if "/" in e else 1 for e in entities) + len(numbers)
