"""What a question names: the subjects a route parameter may take, read by rules.

A subject value must come from the question (a route's example is a format hint, never a
value). This module finds the candidates, each with its form:

- forms that say what they are (their patterns: ``agent.routes.forms``): quoted strings,
  ``owner/name`` pairs, ``@handles``, video ids (``BV...``), stock codes (``SH600519``,
  ``00700.HK``), domains, numbers;
- words a marker introduces: the word after 关于, 搜索, 作者, UP 主, of, from, by, for, user,
  package... (a phrase after "about" and "search"), and the word before or after 标签, 话题...;
- the word after a parameter's own name ("sport football", "user torvalds"), asked per route;
- Latin words inside Chinese text ("IT之家 iPhone 标签").

The platform's own names are blanked first (``agent.routes.platform_names``: they name the
source), unless one stands right after a kind of subject ("Telegram 频道 telegram": the channel is
named telegram); a word of the route's own name is never its subject ("User Activities" is no
user). Nor is a noun that heads a clause about the asker ("the lab I follow") or a word for a
kind of feed after a name marker ("UP 主点赞的视频"). Names an English question puts in a subject's
place unmarked are read by ``agent.routes.clauses``; what is never a value, by
``agent.routes.words``; the marker words, in ``agent.routes.markers``; the word each
introduces, by ``agent.routes.marked``.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from agent.question import EN_STOP, keywords_of
from agent.regions import regions_said
from agent.routes.clauses import in_subject_place
from agent.routes.forms import (
    CJK_RE,
    DURATION_RE,
    NUMBER_RE,
    OWNER_RE,
    POSSESSIVE_RE,
    WORD_TOKEN_RE,
    Formed,
    forms_read,
)
from agent.routes.marked import marked_after, marked_before, zh_word
from agent.routes.markers import (
    AUTHOR_MARKERS,
    EN_PHRASE_MARKERS,
    EN_WORD_MARKERS,
    PERSON_BEFORE_MARKERS,
    ZH_AFTER_MARKERS,
    ZH_TOPIC_MARKERS,
)
from agent.routes.platform_names import named_first, platform_blank, platform_named
from agent.routes.whose import askers_own, name_under, own_host, said_by
from agent.routes.words import GENERIC, PEOPLE, describes, usable
from agent.unnamed import ONE_OF_KIND_ZH
from agent.vocabulary import (
    EN_KIND_NOUNS,
    FILLER_EN,
    FILLER_ZH,
    ITEM_EN,
    NEGATED_RE,
    ORDERED_BY_RE,
    ZH_KIND_NOUNS,
)

# Words around a topic that are not part of it ("latest posts about X"): never a topic.
EN_FILLER, ZH_FILLER = FILLER_EN, FILLER_ZH
LATIN_RUN_RE = re.compile(r"[A-Za-z][A-Za-z']*")
LOWER_PHRASE_RE = re.compile(r"(?<![\w.\-])[a-z]{2,}(?: [a-z]{2,}){2,}(?![\w.\-])")
# A key of a query written out ("?gid=4893"): it says what the value after it is
QUERY_KEY_RE = re.compile(r"(?<![\w.\-])[A-Za-z_][\w.\-]*(?==)")
# A Latin word right after a kind of subject and 的, perhaps a short verb between ("频道的
# shorts", "用户上传的 datasets"): what of it is asked for, not its name
KIND_OWNS_RE = re.compile(
    rf"((?:{'|'.join(ZH_KIND_NOUNS)})\s*[\u4e00-\u9fff]{{0,4}}的)\s*[A-Za-z][\w.\-]*"
)
# Latin words said before 相关 (related to): one thing, whatever its words
RELATED_PHRASE_RE = re.compile(
    r"(?<![\w.\-])[A-Za-z][\w.+#\-]*(?: [A-Za-z][\w.+#\-]*)+(?=\s*(?:相关|有关))"
)
# A quoted phrase right after 搜 (search), which alone is no marker: 热搜 is a hot list (the
# kind searched may come between: "搜尋場地「育音堂」")
SEARCHED_QUOTE_RE = re.compile(r"搜[索寻尋]?\s*[\u4e00-\u9fff]{0,4}\s*[「“『\"]([^」”』\"]{1,40})")
# or set apart by spaces after 搜, up to a space or 的 ("b站搜 黑神话悟空 的视频"), or a Latin
# name right after it ("用百度搜DeepSeek")
SEARCHED_SPACED_RE = re.compile(
    r"(?<!热)搜[索寻尋]?(?:\s+([^\s\W]{1,40})(?=\s|的|$)|\s*([A-Za-z0-9][\w.+#\-]*)"
    # or a Chinese word run on, up to 的 or 相关 (搜比亚迪的文章; not 搜狐, 搜狗: names)
    r"|(?![狐狗])([\u4e00-\u9fff]{2,8}?)(?=的|相关|有关))"
)


@dataclass(frozen=True)
class Entity:
    value: str
    # quoted | pair | handle | video | stock | domain | id | number | topic | marked | latin
    kind: str
    marked: bool = False  # a marker introduced it (a bare number is only a number)
    # account: someone's (by X, @X, "did X post"); topic: something to search for; tag: a
    # hashtag; ref: an issue's or pull request's number (#44265)
    role: str = ""
    label: str = ""  # the key the question gave it: "(fid -7)"


@dataclass(frozen=True)
class Asked:
    """A question read for one platform: its subjects, and its text with the platform blanked."""

    text: str
    entities: tuple[Entity, ...]
    topic: tuple[str, ...]  # topic words for keyword parameters, no filler, no platform name


# A number of three digits at most before a plural that is no feed's item: a count of things
COUNTED_RE = re.compile(
    rf"(?<![\w.\-])(\d{{1,3}})\s+(?!(?:{'|'.join(sorted(ITEM_EN))})\b)[a-z]{{3,}}s\b", re.I
)


def _latin_in_chinese(text: str, excluded: set[str]) -> list[str]:
    if not CJK_RE.search(text) or _english_glossing(text):
        return []
    text = KIND_OWNS_RE.sub(r"\1 ", text)  # "那个频道的 shorts": what of the channel, not which
    for marker in ZH_AFTER_MARKERS + ZH_TOPIC_MARKERS:  # "UP 主" is a marker, not a subject
        text = re.sub(re.escape(marker), " ", text, flags=re.I)
    text = ONE_OF_KIND_ZH.sub(" ", text)  # "一个 Chrome 扩展": Chrome says which kind, not which
    text = QUERY_KEY_RE.sub(" ", text)  # "?gid=4893012345678901": gid names what the number is
    # three lower-case words or more run together are one thing ("Scholar 上 retrieval augmented
    # generation 的新论文"), a lone letter (雪球大V, B 站) part of a word, no name
    phrases = [m.group(0) for m in LOWER_PHRASE_RE.finditer(text)]
    phrases = [p for p in phrases if all(usable(w, excluded) or w in EN_STOP for w in p.split())]
    text = LOWER_PHRASE_RE.sub(" ", text)
    # "diffusion models 相关的新论文": what is related to, whatever its words
    phrases += [m.group(0) for m in RELATED_PHRASE_RE.finditer(text)]
    text = RELATED_PHRASE_RE.sub(" ", text)
    return phrases + [
        w
        for w in WORD_TOKEN_RE.findall(text)
        if len(w) > 1
        and not w.isdigit()
        and usable(w, excluded)
        and w.lower() not in PEOPLE
        and w.lower() not in EN_WORD_MARKERS  # "社群 ID 是 3": ID says what 3 is
    ]


def _english_glossing(text: str) -> bool:
    """An English question that quotes a Chinese or Japanese word ("the essence (精華) picks"):
    its Latin words outnumber those characters, two of them English function words."""
    words = LATIN_RUN_RE.findall(text)
    said = sum(w.lower() in EN_STOP for w in words)
    return len(words) > len(CJK_RE.findall(text)) and said >= 2


def question_read(
    question: str,
    *,
    platform_words: Iterable[str],
    excluded: Iterable[str],
    hosts: tuple[str, ...] = (),
    keywords: list[str] | None = None,
) -> Asked:
    """Read ``question`` for a route of the platform named by ``platform_words``.

    ``excluded`` holds lower-case words that describe the route (its name, its literal path
    segments): never a subject value. ``hosts`` are the platform's: a name under one is a
    blog's or a user's own (noahpinion.substack.com). ``keywords`` are topic words for keyword
    parameters; by default those of the question without the platform's names and time
    spans."""
    platform = {w.lower() for w in platform_words if w}
    # Each word of a platform's names names the source too: "Docker" of Docker Hub.
    parts = {p for w in platform for p in WORD_TOKEN_RE.findall(w) if len(p) > 2}
    skip = {w.lower() for w in excluded} | platform | parts
    text = platform_blank(question.replace("\u2019", "'"), platform)
    rest, formed = forms_read(text)
    rest = NEGATED_RE.sub(" ", rest)  # "instead of email", "not the full IPSWs": no one named
    # nor a value said after "not" ("some smaller instance, not mastodon.social")
    refused = [m.span() for m in NEGATED_RE.finditer(text)]
    formed = [f for f in formed if not _within(f.value, text, refused)]
    rest = ORDERED_BY_RE.sub(" ", rest)
    # the platform's own host, as a page's address gives it (greasyfork.org/scripts/...), names
    # the source, as its name does; said alone it may be a value (an instance: mastodon.social)
    formed = [f for f in formed if not (f.label == "address" and own_host(f.value, hosts))]
    # nor when another domain is said (winstall.app's Microsoft.PowerToys)
    if any(f.kind == "domain" and not own_host(f.value, hosts) for f in formed):
        formed = [f for f in formed if not (f.kind == "domain" and own_host(f.value, hosts))]
    found = [_formed_entity(f, hosts) for f in formed if not describes(f.value.lower(), skip)]
    # 'the user "pg"': a quoted name after an account's marker is someone's; '搜索“具身智能”':
    # one after a topic's marker is something to search for
    by = set(marked_after(text, AUTHOR_MARKERS, skip))
    about = set(marked_after(text, (*EN_PHRASE_MARKERS, *ZH_TOPIC_MARKERS), skip))
    about |= {m.group(1) for m in SEARCHED_QUOTE_RE.finditer(text)}  # 搜「低空经济」
    by |= {e.value for e in found if e.kind == "quoted" and said_by(e.value, text)}
    found = [_quoted_role(e, by, about) if e.kind == "quoted" else e for e in found]
    # "a Twitch streamer's schedule": a kind of subject owns, no name does
    owners = [
        o
        for o in OWNER_RE.findall(rest)
        if usable(o, skip) and o.casefold() not in EN_KIND_NOUNS and o.casefold() not in PEOPLE
    ]
    markers = (*sorted(EN_WORD_MARKERS), *ZH_AFTER_MARKERS)
    marked = marked_before(rest, skip) + marked_after(rest, markers, skip) + owners
    accounts = {*marked_after(rest, AUTHOR_MARKERS, skip), *owners}
    accounts |= set(marked_before(rest, skip, PERSON_BEFORE_MARKERS))  # "patio11 这个用户"
    found += [
        Entity(v, _kind_of(v), marked=True, role="account" if v in accounts else "") for v in marked
    ]
    topics = marked_after(rest, (*EN_PHRASE_MARKERS, *ZH_TOPIC_MARKERS), skip)
    searched = [a or b or c for a, b, c in SEARCHED_SPACED_RE.findall(rest)]
    topics += [m for m in searched if usable(m, skip) and m not in topics]
    latin = _latin_in_chinese(rest, skip)
    # "关键词 graph neural networks": a run of Latin words in Chinese is marked whole
    topics = [next((w for w in latin if w.split()[0] == v), v) for v in topics]
    found += [Entity(v, "topic", marked=True, role="topic") for v in topics]
    named = platform_named(question.replace("\u2019", "'"), platform)
    first = named_first(question, platform)  # "torvalds github activity"
    if first and usable(first, skip) and first not in ITEM_EN | EN_KIND_NOUNS | GENERIC:
        named.append(first)
    found += [Entity(v, "marked", marked=True, role="account") for v in named]
    subjects = in_subject_place(rest, skip)
    found += [Entity(w, "marked", marked=True, role="account") for w in subjects]
    found += [Entity(w, "quoted" if " " in w else "latin") for w in latin]
    counted = set(COUNTED_RE.findall(rest))  # "Tokyo's 23 wards": how many, no one's number
    found += [Entity(n, "number") for n in NUMBER_RE.findall(rest) if n not in skip | counted]
    if keywords is None:
        unmarked = re.sub("|".join(map(re.escape, ZH_AFTER_MARKERS)), " ", text, flags=re.I)
        keywords = keywords_of(DURATION_RE.sub(" ", ORDERED_BY_RE.sub(" ", unmarked)))
    topic = [
        POSSESSIVE_RE.sub("", k)
        for k in keywords
        if _topical(k, platform) and not describes(k.lower(), skip) and not own_host(k, hosts)
    ]
    # (the question as asked, too: "我在码云上维护的那个开源仓库" with the platform's name in it)
    found = [
        e
        for e in found
        if e.kind != "marked" or not (askers_own(e.value, rest) or askers_own(e.value, question))
    ]
    # the start of the platform's name run together ("Barron's" of barronschina) names it
    found = [e for e in found if not _name_start(e.value, platform)]
    # and a country right after it names its edition ("InfoQ China's front page")
    found = [e for e in found if not _edition(e.value, question, platform)]
    return Asked(text=text, entities=_unique(_names_whole(found)), topic=tuple(topic))


def _within(value: str, text: str, spans: list[tuple[int, int]]) -> bool:
    """``value`` is said in ``text`` only inside the spans."""
    starts = [m.start() for m in re.finditer(re.escape(value), text)]
    return bool(starts) and all(any(a <= i < b for a, b in spans) for i in starts)


def _edition(value: str, question: str, platform: set[str]) -> bool:
    """``value`` is a country said right after the platform's name: the site's edition."""
    if not value.isalpha() or not regions_said(value):
        return False
    names = "|".join(re.escape(p) for p in sorted(platform, key=len, reverse=True) if p)
    edition = rf"(?<![\w.])(?:{names})\s+{re.escape(value)}(?![\w-])"
    return bool(names) and re.search(edition, question, re.I) is not None


def _name_start(value: str, platform: set[str]) -> bool:
    word = value.casefold()
    return (
        len(word) >= 4
        and word.isalpha()
        and any(name.startswith(word) and name != word and name.isalnum() for name in platform)
    )


def _formed_entity(formed: Formed, hosts: tuple[str, ...] = ()) -> Entity:
    if formed.kind == "domain" and (name := name_under(formed.value, hosts)):
        return Entity(name, "marked", marked=True, role="account")
    if formed.kind == "hashtag":  # something to look for under a tag, as "about X" is
        return Entity(formed.value, "topic", marked=True, role="tag")
    if formed.kind == "ref":  # an issue's or a pull request's number
        return Entity(formed.value, "number", marked=True, role="ref")
    role = "account" if formed.kind == "handle" else ""
    return Entity(formed.value, formed.kind, role=role, label=formed.label)


def _quoted_role(entity: Entity, by: set[str], about: set[str]) -> Entity:
    if entity.value in by:
        return replace(entity, role="account")
    if entity.value in about or any(a.startswith(entity.value) for a in about):
        return replace(entity, marked=True, role="topic")
    return entity


def _names_whole(found: list[Entity]) -> list[Entity]:
    """A bare number that ends a name found whole (the 14 of 小米14) is no value of its own."""
    names = [e.value for e in found if e.kind != "number"]
    return [
        e
        for e in found
        if e.kind != "number"
        or e.marked
        or not any(n != e.value and n.endswith(e.value) for n in names)
    ]


def _kind_of(value: str) -> str:
    return "number" if value.isdigit() else "marked"


def _topical(word: str, platform: set[str]) -> bool:
    low = word.lower()
    if low in platform or any(p in low for p in platform if not p.isascii()):
        return False
    if CJK_RE.search(word):
        return bool(zh_word(word)) and word not in ZH_FILLER
    return low not in EN_FILLER and low not in EN_STOP


def _unique(entities: list[Entity]) -> tuple[Entity, ...]:
    """First of each value (case-folded); it takes a later one's mark and role."""
    seen: dict[str, Entity] = {}
    for entity in entities:
        key = entity.value.casefold()
        if key not in seen:
            seen[key] = entity
        elif (entity.marked and not seen[key].marked) or (entity.role and not seen[key].role):
            # '"pg"' quoted, then marked by "user": a quoted account
            first = seen[key]
            role = first.role or entity.role
            seen[key] = Entity(first.value, first.kind, True, role, first.label)
    return tuple(seen.values())
