"""What of a route's name the question says (the route node's offline choice, ``fit``).

- ``name_said``: the words of a route's name the question says (in Chinese, an English word
  the glossary gives), and those it does not (a route that qualifies what was asked reads a
  narrower feed than the one asked for);
- ``kind_said``: the kinds of subject (channel, user, repository...) the route takes that the
  question names;
- ``kind_named``: the values the question calls by a subject parameter's name ("the alpine
  tag"), for parameter filling.
"""

import functools
import itertools
import re

from agent.question import EN_STOP
from agent.routes.entities import Asked
from agent.routes.forms import CJK_RE
from agent.routes.marked import zh_content
from agent.routes.markers import AUTHOR_MARKERS, ZH_AFTER_MARKERS, ZH_BEFORE_MARKERS
from agent.routes.platform_names import platform_blank
from agent.routes.slots import Slot, words_of
from agent.routes.words import GENERIC
from agent.vocabulary import (
    EN_KIND_NOUNS,
    FILLER_ZH,
    INTENTS,
    ITEM_EN,
    LATIN_WORD_RE,
    ZH_KIND_NOUNS,
    plural_stem,
)
from catalog.search_terms import GLOSSARY
from fetching.paths import template_parameters

# Kinds of value a route's parameter may be named for: "the alpine tag", "the main branch"
VALUE_KINDS = frozenset(str.split("tag branch image repo user channel"))

# The markers a Chinese question puts by a subject, each a kind of one (吧: a forum).
ZH_KIND_MARKERS = frozenset(m for m in (*ZH_BEFORE_MARKERS, *ZH_AFTER_MARKERS) if " " not in m)
# A route name's words: Latin words and runs of other letters (a Chinese name's phrases).
NAME_WORD_RE = re.compile(r"[a-z0-9]+|[^\sa-z0-9\W]+")
# Verbs that ask for a feed ("follow it", "subscribe me"): said so, they name no route's word.
SUBSCRIBING = frozenset(str.split("follow subscribe track monitor"))
# Route-name words that say how a feed is addressed, not which part of a site it reads.
ADDRESS_WORDS = frozenset(
    str.split("timeline feed feeds id ids handle details profile user users account accounts")
)


def name_said(
    route_name: str, question: str, platform_words: tuple[str, ...], template: str = ""
) -> tuple[int, int]:
    """How many words of a route's name (its platform's names left out) the question says,
    generic ones (posts, 文章) not counted, and how many words it does not say.

    A route that shares no word with the question is not about it; one that qualifies what was
    asked ("Starred", "投币") reads a narrower feed than the one asked for. Words that only say
    whose feed it is or how it is addressed (user, timeline, UP 主, with, id; a kind of subject
    the ``template`` takes, as the repo of Repo Issues) qualify nothing. A Latin word counts as
    said when a question word shares its first four letters (repos, repositories); a Chinese
    word when one of its character pairs occurs."""
    asked = question.casefold()
    # "I want to *follow* it" asks for a feed, it names no Following route
    latin = set(LATIN_WORD_RE.findall(asked)) - SUBSCRIBING
    glossed = _glossed(asked)
    glossed_zh = _glossed_zh(frozenset(plural_stem(w) for w in latin))
    joined = words_joined(asked)
    said = unsaid = 0
    name = platform_blank(route_name, platform_words).casefold()
    for marker in (m for m in AUTHOR_MARKERS if CJK_RE.search(m)):  # UP 主, 用户: whose feed
        name = name.replace(marker.casefold(), " ")
    taken = {w[:4] for n, _r, _o in template_parameters(template) for w in words_of(n)}
    for word in NAME_WORD_RE.findall(name):
        if word.isascii():
            content = "" if word in GENERIC or word in EN_STOP else word
        else:
            content = zh_content(word)
        said += bool(content) and (
            content in joined
            or _word_said(content, latin, asked)
            or plural_stem(content) in glossed
            or any(zh in content for zh in glossed_zh)
        )
        qualifier = "" if word in EN_KIND_NOUNS and word[:4] in taken else _qualifier(word)
        unsaid += bool(qualifier) and not (
            qualifier in joined
            or _word_said(qualifier, latin, asked)
            or plural_stem(qualifier) in glossed
        )
    return said, unsaid


# Chinese filler of two characters or more, longest first: blanked before a feed word is read
FILLER_ZH_LONGEST = sorted((f for f in FILLER_ZH if len(f) > 1), key=len, reverse=True)


@functools.lru_cache(maxsize=256)
def _glossed(asked: str) -> frozenset[str]:
    """The English of the feed words a question says in Chinese, its filler aside ("通知我" asks
    for a feed, names no Notifications): 学术 is Scholar, 构建 a Build. Read once a question,
    not once for each route's name."""
    for filler in FILLER_ZH_LONGEST:
        asked = asked.replace(filler, " ")
    words = {w for zh, english in GLOSSARY.items() if zh in asked for w in english}
    words |= {w for english, zh in INTENTS.values() if any(c in asked for c in zh) for w in english}
    return frozenset(plural_stem(w) for w in words)


@functools.lru_cache(maxsize=256)
def _glossed_zh(stems: frozenset[str]) -> frozenset[str]:
    """The Chinese of the feed words a question says in English, words said of any feed
    (news, updates) aside: "rebalancing" says 调仓 of 组合最新调仓信息."""
    return frozenset(
        zh
        for zh, english in GLOSSARY.items()
        if any(e in stems and e not in ITEM_EN and e not in GENERIC for e in english)
    )


def _qualifier(word: str) -> str:
    """``word`` of a route name without what qualifies nothing (see ``name_said``)."""
    return "" if word in EN_STOP or word in ADDRESS_WORDS else word


def kind_said(route_name: str, template: str, question: str, parameters: object = None) -> int:
    """How many kinds of subject that the route's name or parameters name (channel, user,
    playlist, repository, organization...) the question names too: "videos from channel X"
    asks for the route of a channel, not of a playlist; 组织 is an organization, and of two
    Chinese kind nouns in a row the last is the one asked for (镜像仓库: repositories). A Chinese
    kind is also a marker the
    question puts by its subject (原神*吧*, *用户* X) that the route's name or a parameter's
    description says (吧名: the forum's name)."""
    asked = question.casefold()
    latin = set(LATIN_WORD_RE.findall(asked))
    names = [w for n, _r, _o in template_parameters(template) for w in words_of(n)]
    words = set(re.findall(r"[a-z]+", route_name.casefold())) | set(names)
    kinds = {w[:4] for w in words if w in EN_KIND_NOUNS and _word_said(w, latin, asked)}
    said_zh = {en[:4] for zh, en in ZH_KIND_NOUNS.items() if _head_said(zh, question)}
    kinds |= {w[:4] for w in words if w[:4] in said_zh}
    # "UP 主" and "UP主" are one marker
    described = "".join([route_name, *_descriptions(parameters)]).replace(" ", "")
    question = question.replace(" ", "")
    # 用户 and user are one kind, whichever language the route says it in
    kinds |= {
        ZH_KIND_NOUNS.get(m, m)[:4] for m in ZH_KIND_MARKERS if m in question and m in described
    }
    return len(kinds)  # repo and repository are one kind


def _head_said(kind: str, question: str) -> bool:
    """A Chinese kind noun the question says as the head of what it asks for: not one that
    qualifies another kind noun right after it (镜像仓库 asks for repositories, of images; 频道的
    社区帖子 for a community's posts, of a channel)."""
    at = question.find(kind)
    while at != -1:
        rest = question[at + len(kind) :].lstrip(" 的")
        if not any(rest.startswith(other) for other in ZH_KIND_NOUNS):
            return True
        at = question.find(kind, at + 1)
    return False


def _descriptions(parameters: object) -> list[str]:
    specs = parameters.values() if isinstance(parameters, dict) else ()
    texts = [s.get("description") if isinstance(s, dict) else s for s in specs]
    return [t for t in texts if isinstance(t, str)]


def words_joined(asked: str) -> set[str]:
    """Each two Latin words in a row of a (case-folded) question, run together: "hot links"
    says a route's Hotlinks."""
    words = LATIN_WORD_RE.findall(asked)
    return {a + b for a, b in itertools.pairwise(words) if a.isalpha() and b.isalpha()}


def _word_said(word: str, latin: set[str], asked: str) -> bool:
    if word.isascii():
        return (
            word in latin
            or any(w[:4] == word[:4] for w in latin if min(len(w), len(word)) >= 4)
            # "what she has been liking" says Likes
            or any(
                word.rstrip("s") in (w[:-3], w[:-3] + "e")
                for w in latin
                if len(w) >= 6 and w.endswith("ing")
            )
        )
    return any(word[i : i + 2] in asked for i in range(max(1, len(word) - 1)))


def kind_named(slots: list[Slot], asked: Asked) -> tuple[dict[str, str], set[str]]:
    """Subject parameters the question names a value of by their name ("the alpine tag" of
    ``:owner/:image/:tag?``, "16-alpine 这个tag"), with that value: theirs, no other's; and the
    values it calls by a kind no subject parameter of the route is or is described as
    ("16-alpine 这个tag" of ``/dockerhub/tag/:owner/:image``), which fill none."""
    names = {s.name.casefold(): s.name for s in slots if s.subject and len(s.name) >= 3}
    # a kind a subject parameter's description says is its ("Tag id", "channel username")
    described = {
        plural_stem(w)
        for s in slots
        if s.subject
        for w in re.findall(r"[a-z]+", s.description.lower())
    }
    # or says in Chinese ("标签 id" is a tag's)
    zh_kinds = [((en,), (zh,)) for zh, en in ZH_KIND_NOUNS.items()] + list(INTENTS.values())
    described |= {
        plural_stem(en)
        for s in slots
        if s.subject
        for latin, chinese in zh_kinds
        if any(zh in s.description for zh in chinese)
        for en in latin
    }
    found: dict[str, str] = {}
    elsewhere: set[str] = set()
    for entity in asked.entities:
        # not one before a kind said before its own value ("the 2023 issue 3")
        after = re.search(
            rf"(?<![\w-]){re.escape(entity.value)}(?:\s+|\s*(?:这个|那个|的)\s*)([a-z]+)(?!\s+\d)",
            asked.text,
            re.I,
        )
        kind = plural_stem(after.group(1).casefold()) if after else ""
        if kind in names:
            found.setdefault(names[kind], entity.value)
        # (a kind that ends a word the description says is its: "tag" of "Hashtag name")
        elif kind in VALUE_KINDS and not any(w.endswith(kind) for w in described):
            elsewhere.add(entity.value.casefold())
    return found, elsewhere
