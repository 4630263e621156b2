"""The subject a question names, and which fetched items are about it.

A general feed (a hot list, newsflashes) answers every question about its platform with the
same items; whether they answer *this* question depends on whether they mention its subject.
When the question marks its topic ("about the Kirin 9050 chip", "关于小米汽车"), the subject is
that phrase, read by the same rules that fill route parameters (``agent.routes.entities``): the
other words ("test feed 1") chose the feed, they are not what the items must mention. Otherwise
the subject is what is left of the rewrite's keywords once the words that only name the
platforms and routes read (36kr, 快讯, newsflashes, GitHub, issues...), stop words and filler
words are taken out: a question of filler alone ("36氪最近有什么值得注意的快讯") has none.
A feed whose path carries a subject term (``/weibo/keyword/小米``) was chosen for the subject, so
its items are about it whatever their text says.

An item mentions the subject when its title or summary holds any subject term that is not a
bare number: "none mention it" must be true however the subject is read, so the test errs
towards mentioning.
"""

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from agent.question import CJK_RE, EN_STOP, WORD_RE
from agent.routes.fit import template_intents, template_literals
from agent.routes.forms import DURATION_RE, POSSESSIVE_RE, ZH_SPAN_WORD_RE, address_host
from agent.routes.marked import marked_after
from agent.routes.markers import EN_PHRASE_MARKERS, ZH_TOPIC_MARKERS
from agent.routes.platform_names import platform_blank
from agent.routes.slots import route_slots
from agent.vocabulary import (
    FILLER_EN,
    FILLER_ZH_SET,
    FILLER_ZH_WORDS,
    FREQUENCY_EN,
    INTENT_WORDS,
    INTENTS,
    LATIN_WORD_RE,
    PAST_FORM_RE,
    asker_clauses,
    plural_stem,
)
from catalog.abbreviations import short_names
from catalog.models import Platform, Route
from catalog.segment import zh_function_words, zh_parts, zh_simplified, zh_words
from fetching.paths import template_values

# Words that say what kind of items are wanted, or how the question is put, not what it is
# about: the one filler vocabulary (``agent.vocabulary``). Latin words are compared whole;
# Chinese ones are cut out of a keyword wherever they are (no single character: 上 starts 上海).
# A feed's language ("from the original English site") says which feed, not what about.
LANGUAGES_LATIN = frozenset((*INTENTS["english"][0], *INTENTS["chinese"][0]))
FILLER_LATIN = FILLER_EN | EN_STOP | FREQUENCY_EN | LANGUAGES_LATIN
FILLER_CJK = FILLER_ZH_WORDS
FILLER_CJK_RE = re.compile("|".join(map(re.escape, FILLER_ZH_WORDS)))
# An owner's possessive right before a word: "Indonesia's BMKG".
SOURCE_OWNER_RE = re.compile(r"(\b[A-Za-z][\w.\-]*(?:'s|\u2019s))(\s+[\w.\-]+)")


@dataclass(frozen=True)
class Subject:
    terms: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.terms)

    @property
    def text(self) -> str:
        return " ".join(self.terms)

    def carried_by(self, path: str) -> bool:
        """The feed at ``path`` was chosen for the subject: a segment of its path holds a subject
        term (a bare number only as a whole segment: ``/test/1`` is not about "1 chip")."""
        segments = [fold(unquote(s)) for s in path.split("/") if s]
        return any(
            fold(term) == segment or (not term.isdigit() and fold(term) in segment)
            for term in self.terms
            for segment in segments
        )

    def mentions(self, text: str) -> int:
        """How many subject terms ``text`` holds; bare numbers count only when the subject is
        nothing else (an "80" alone is in too many texts)."""
        folded = fold(text)
        terms = [t for t in self.terms if not t.isdigit()] or self.terms
        return sum(1 for t in terms if fold(t) in folded)


def fold(text: str) -> str:
    """Case, width and space folded, for comparing a term with a text."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def context_words_load(
    *, namespaces: set[str], route_ids: set[int], paths: Iterable[tuple[str, int | None]] = ()
) -> set[str]:
    """The words that name the platforms and routes a run read (a Chinese name also in its
    words), folded: not subjects. Of the
    ``paths`` read, the listed values their settings took and those values' labels name the
    feed too ("Ask HN" chose ``/hackernews/ask``, 前端 ``/juejin/trending/frontend/weekly``)."""
    names: list[str] = []
    for platform in Platform.objects.filter(namespace__in=namespaces):
        # its address too: "the blog posts on The Gradient (thegradient.pub)"
        host = address_host(platform.url)
        names += [platform.namespace, platform.name, *platform.aliases, host]
        names += short_names(platform.name)  # 中新网 names 中国新闻网, 工信部 its ministry
        # and its host's own words: "KBS World" is world.kbs.co.kr
        names += [label for label in host.split(".")[:-1] if len(label) > 2]
    routes = Route.objects.in_bulk(set(route_ids) | {r for _p, r in paths if r})
    names += [routes[r].name for r in route_ids if r in routes]
    for path, route_id in paths:
        if route_id in routes:
            names += _settings_named(path, routes[route_id])
    names += _feed_words(routes.values())
    words = {fold(n) for n in names} | {fold(w) for n in names for w in WORD_RE.findall(n)}
    # A Chinese name is read in words too: 正在上映的电影 names 正在, 上映 and 电影 wherever
    # the question puts them.
    # and in the words inside its words: 实时票房榜 names 票房 too.
    words |= {fold(w) for n in names if CJK_RE.search(n) for w in zh_parts(n) if len(w) > 1}
    return {w for w in words if w}


def _feed_words(routes: Iterable[Route]) -> list[str]:
    """What the routes' addresses say of their feed: the literal words of each path after its
    namespace ("Newest *questions*" read ``/codefather/questions``, a *chart* ``/imdb/chart``),
    singular and plural, and every word, in both languages, of a kind of feed those words or the
    route's name name (``/twitter/trends``: 趋势, 热搜...)."""
    words: list[str] = []
    for route in routes:
        literal = LATIN_WORD_RE.findall(template_literals(route.path).casefold().replace("_", " "))
        words += [form for word in literal for form in (word, plural_stem(word), word + "s")]
        for concept in template_intents(route.name, route.path):
            latin, chinese = INTENTS[concept]
            words += [*latin, *chinese]
    return words


def _settings_named(path: str, route: Route) -> list[str]:
    """The listed values ``path`` gives its route's parameters, with their labels."""
    values = template_values(route.path, unquote(path))
    slots = route_slots(route.path, route.parameters, route.description, route.example)
    return [
        text
        for slot in slots
        for label, value in slot.choices
        if values.get(slot.name) == value
        for text in (label, value)
    ]


def topic_of(question: str, context_words: set[str]) -> list[str]:
    """The phrases ``question`` marks as its topic (after "about", "search for", 关于, 搜索...),
    the platform and route words blanked first."""
    text = platform_blank(question, context_words)
    return marked_after(text, (*EN_PHRASE_MARKERS, *ZH_TOPIC_MARKERS), context_words)


def subject_of(
    keywords: list[str], context_words: set[str], *, topics: list[str] | None = None
) -> Subject:
    """The subject terms: of the ``topics`` the question marks when there are any, else of
    ``keywords``; what is left of each once the platform, route, stop and filler words are
    taken out."""
    if topics:
        keywords = topics
    cjk_context = sorted((w for w in context_words if CJK_RE.search(w)), key=len, reverse=True)
    # A platform's name parted into keywords ("Hugging", "Face") is still its name.
    # A span of time ("24 小时", "一周") says when, not what about.
    text = _source_owners_blank(DURATION_RE.sub(" ", " ".join(keywords)), context_words)
    keywords = [platform_blank(text, context_words)]
    terms: list[str] = []
    for keyword in keywords:
        for token in WORD_RE.findall(keyword):
            if CJK_RE.search(token):
                terms += _cjk_terms(token, cjk_context)
            elif _latin_term(token, context_words):
                terms.append(POSSESSIVE_RE.sub("", token))  # Indonesia's is Indonesia
    return Subject(tuple(dict.fromkeys(t for t in terms if len(t) >= 2 or t.isdigit())))


def asker_said(question: str) -> set[str]:
    """The words, folded, that ``question`` says only in clauses about the asker ("I run an
    Unraid server", "I'm a tokusatsu fan", "I prefer reading over listening"): how they come
    to ask, not what the items are to be about. A clause of what they want, like, follow or are
    interested in ("I only care about the office repacks") is none of them."""
    said: set[str] = set()
    elsewhere: set[str] = set()
    for clause, of_asker in asker_clauses(question):
        words = {fold(w) for w in LATIN_WORD_RE.findall(clause.casefold())}
        (said if of_asker else elsewhere).update(words)
    return said - elsewhere


def _source_owners_blank(text: str, context_words: set[str]) -> str:
    """``text`` without the owners of a source's name: "Indonesia's BMKG" names the source,
    the items need not mention Indonesia."""

    def owner(match: re.Match[str]) -> str:
        named = fold(match.group(2)) in context_words
        return " " * len(match.group(1)) + match.group(2) if named else match.group(0)

    return SOURCE_OWNER_RE.sub(owner, text)


# A verb's past form said in lower case ("launched", "announced", "published"): what happened
# to the items, not what they are about.
def _latin_term(token: str, context_words: set[str]) -> bool:
    """A Latin word of the question is a subject term: not a platform's or route's word, nor
    filler (a possessive read as its word: "today's" is today), nor a verb's past form."""
    word = fold(token.removesuffix("'s").removesuffix("\u2019s"))
    if word in context_words or word in FILLER_LATIN or plural_stem(word) in INTENT_WORDS:
        return False  # a kind of feed asked for (changelog, releases) is what to read, not about
    parts = [part for part in word.split("-") if part]
    if len(parts) > 1 and all(p in context_words or p in FILLER_LATIN for p in parts):
        return False  # "pre-releases" for /python/pre: each part names the feed
    return PAST_FORM_RE.fullmatch(token) is None


# Characters that stand alone as words of their own (new, old, hot, big...; with, and, to...),
# never a name's part.
LONE_MODIFIERS = frozenset("新旧老大小热多各全本该每某这那跟和与同对从向给把被想")


def _cjk_terms(token: str, cjk_context: list[str]) -> list[str]:
    """A Chinese run's words (a real segmenter's: 小米汽车交付量 is 小米, 汽车, 交付) without its
    platform, route and filler words; a filler inside a word cuts it (最新消息)."""
    rest = unicodedata.normalize("NFKC", token)
    if rest in FILLER_ZH_SET:  # segmented alone, 最热 is 最 and 热: a filler word whole first
        return []
    for word in cjk_context:
        rest = re.sub(re.escape(word), " ", rest, flags=re.I)
    # a filler the segmenter would part (盯 着, 就 通知) goes before it does
    rest = _filler_blank(rest)
    terms: list[str] = []
    lone = ""  # a character the segmenter left alone: part of a name it does not know (泽菲尔)
    unsaid = zh_function_words(rest)
    for word in zh_words(rest):
        if word.isascii() and word.strip():  # a Latin word among Chinese (用RSS): its own
            lone = ""
            terms += [word] if _latin_term(word, set()) else []
            continue
        simple = zh_simplified(word)  # 網站 is the filler 网站
        if simple in FILLER_ZH_SET or not word.strip() or ZH_SPAN_WORD_RE.fullmatch(word):
            lone = ""
            continue
        if word in unsaid:  # how it is asked (想买, 征求, 安排, 完整), not what about
            lone = ""
            continue
        pieces = _filler_blank(word).split()
        if len(word) == 1 and CJK_RE.search(word) and pieces and word not in LONE_MODIFIERS:
            if terms and terms[-1].endswith(lone) and lone:
                terms[-1] += word
            lone = word
            if not terms or not terms[-1].endswith(word):
                terms.append(word)
            continue
        if lone and pieces and terms and terms[-1].endswith(lone):
            terms[-1] += pieces.pop(0)
        lone = ""
        terms += pieces
    return [t for t in terms if len(t) >= 2 or not CJK_RE.search(t)]


def _filler_blank(text: str) -> str:
    """``text`` with its filler words blanked, found in either script (想追蹤 says 追踪) and
    blanked where they stand, the characters kept as written."""
    blanked = FILLER_CJK_RE.sub(lambda m: " " * len(m.group(0)), text)
    simple = zh_simplified(text)
    if len(simple) != len(text):
        return blanked
    kept = list(blanked)
    for match in FILLER_CJK_RE.finditer(simple):
        kept[match.start() : match.end()] = " " * (match.end() - match.start())
    return "".join(kept)
