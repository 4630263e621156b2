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
``agent.routes.words``; the marker words, in ``agent.routes.markers``.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from agent.question import EN_STOP, keywords_of
from agent.routes.clauses import in_subject_place
from agent.routes.forms import (
    CJK_RE,
    DURATION_RE,
    LATIN,
    NUMBER_RE,
    OWNER_RE,
    POSSESSIVE_RE,
    RUN_RE,
    TOKEN_RE,
    WORD_TOKEN_RE,
    ZH_SPAN_WORD_RE,
    Formed,
    forms_read,
)
from agent.routes.markers import (
    AUTHOR_MARKERS,
    EN_PHRASE_MARKERS,
    EN_WORD_MARKERS,
    PARTICIPLE_LEADS,
    SEARCH_NOUNS,
    THIS_RE,
    TOPIC_LEADS,
    ZH_AFTER_MARKERS,
    ZH_BEFORE_MARKERS,
    ZH_TOPIC_MARKERS,
)
from agent.routes.platform_names import platform_blank, platform_named
from agent.routes.whose import askers_own, name_under, own_host, said_by
from agent.routes.words import GENERIC, PEOPLE, describes, feeds_named, usable
from agent.unnamed import ONE_OF_KIND_ZH, UNNAMED_ZH
from agent.vocabulary import (
    CLAUSE_PRONOUNS,
    EN_KIND_NOUNS,
    FILLER_EN,
    FILLER_ZH,
    INDEFINITE_EN,
    INDEFINITE_ZH,
    ITEM_EN,
    LIGHT_VERBS,
    NEGATED_RE,
    ORDERED_BY_RE,
    OWNERS,
    PAST_FORM_RE,
    PUT_EN,
    intent_word,
)
from catalog.segment import zh_ends_as_function, zh_leads_as_function

# Words around a topic that are not part of it ("latest posts about X"): never a topic.
EN_FILLER, ZH_FILLER = FILLER_EN, FILLER_ZH
# Where a Chinese word ends: filler of two characters or more, and the particles. Single
# characters such as 上 or 在 start words too (上海), so they do not cut.
ZH_CUT = [w for w in ZH_FILLER if len(w) > 1] + ["的", "了", "吗", "呢", "吧", "啥"]
GLUED_RE = re.compile(rf"[{LATIN}]+(?![{LATIN}_.\-/@])", re.ASCII)
LATIN_RUN_RE = re.compile(r"[A-Za-z][A-Za-z']*")
LATIN_TAIL_RE = re.compile(r"(.*[^\x00-\x7f])([A-Za-z][\w.+#\-]*)")
LOWER_PHRASE_RE = re.compile(r"(?<![\w.\-])[a-z]{2,}(?: [a-z]{2,}){2,}(?![\w.\-])")
# A quoted phrase right after 搜 (search), which alone is no marker: 热搜 is a hot list (the
# kind searched may come between: "搜尋場地「育音堂」")
SEARCHED_QUOTE_RE = re.compile(r"搜[索寻尋]?\s*[\u4e00-\u9fff]{0,4}\s*[「“『\"]([^」”』\"]{1,40})")


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


def _zh_word(run: str) -> str:
    """The first word of a CJK run: up to the first filler word (的, 最新, 文章...); a single
    character is no word."""
    while run:
        cuts = [run.find(f) for f in ZH_CUT if f in run]
        cut = min(cuts, default=len(run))
        if cut > 0:
            return run[:cut] if cut > 1 or run[:cut].isascii() else ""
        run = run[max(len(f) for f in ZH_CUT if run.startswith(f)) :]
    return ""


def zh_content(run: str) -> str:
    """A CJK run without its filler words (文章, 更新, 最新...)."""
    for filler in ZH_CUT:
        run = run.replace(filler, " ")
    return "".join(run.split())


def _zh_last_word(run: str) -> str:
    """The last word of a CJK run (what stands right before a marker such as 标签)."""
    ends = [run.rfind(f) + len(f) for f in ZH_CUT if f in run]
    word = run[max(ends, default=0) :]
    return word if len(word) > 1 or word.isascii() else ""


ZH_COPULAS = frozenset({"\u662f", "\u4e3a", "\u70ba"})  # 是, 为, 為 alone


def _after(text: str, start: int, excluded: set[str], *, phrase: bool = False) -> str:
    """The word (or, for ``phrase``, up to four words) at ``start``, skipping stop words."""
    words: list[str] = []
    previous = ""
    for match in TOKEN_RE.finditer(text, start):
        token = match.group(0)
        skipped, previous = previous, token.lower()
        if CJK_RE.match(token) and not words and token in ZH_COPULAS:
            continue  # "剧集id是 qEzRyY3v": the name follows the copula
        if CJK_RE.match(token):
            # "UP 主的最新投稿", "用户某位": the marker is possessed or its name left open.
            # A name marker's name stands right after it ("用户最近的回答" names no one).
            if not words and token.startswith(("的", *INDEFINITE_ZH, *([] if phrase else ZH_CUT))):
                break
            if not words and zh_leads_as_function(token):
                break  # "有个作者写得挺好", "up主我挺喜欢的": a verb or pronoun, no name, follows
            word = _zh_word(token)
            # a name that runs on into Latin letters or digits is one name: 小米14, 华为Mate60
            if word == token and (glued := GLUED_RE.match(text, match.end())):
                word += glued.group(0)
            # "UP 主点赞的视频": a kind of feed after the marker names no one
            # "UP 主这两天": a span of time after the marker names no one either
            if (
                word
                and not describes(word.lower(), excluded)
                and not intent_word(word)
                and not ZH_SPAN_WORD_RE.fullmatch(word)
            ):
                words.append(word)
            break
        token = POSSESSIVE_RE.sub("", token)
        low = token.lower()
        if not words and (low in INDEFINITE_EN or low in PEOPLE):
            break  # "the repo I care about", "from somebody I follow": no name is given
        if not phrase and low in TOPIC_LEADS:
            break  # "posts from Hacker News about Tesla": what follows is a topic
        if not words and (low in EN_STOP or low in EN_WORD_MARKERS):
            continue
        if not words and phrase and (low in GENERIC or low in SEARCH_NOUNS):
            continue  # "search results on frieren", "search term X": what is searched follows
        if phrase and words and low in PUT_EN:
            break  # "tagged Obsidian pls": how the question is put ends the phrase
        fits = usable(token, excluded) if not phrase else low not in EN_STOP and low not in excluded
        if not fits or low in EN_WORD_MARKERS or (not words and feeds_named(low)):
            break
        if not phrase and _clause_head(text, match.end()):
            break  # "by the lab I follow": the asker's clause says which, no name does
        if not phrase and (PAST_FORM_RE.fullmatch(token) or low in LIGHT_VERBS):
            break  # "the image on Docker Hub picked up": a verb, no name
        if token.islower() and low.endswith("ing") and skipped in PARTICIPLE_LEADS:
            break  # "the Qwen org been uploading": a verb in its -ing form, no name
        if not phrase and (
            _feed_kind(low, text, match.end()) or _modifies_owned_kind(text, match.end())
        ):
            break  # "a feed of *pull* requests", "for the *Chrome* extension our team publishes"
        words.append(token.rstrip(".'"))
        if not phrase or len(words) == 4 or text[match.end() : match.end() + 1] in ",.;?!":
            break
    return " ".join(words)


def _owned(text: str, start: int) -> bool:
    """A possessive pronoun stands right before ``start``: "*our* app", "*my* repo"."""
    before = WORD_TOKEN_RE.findall(text[max(0, start - 12) : start])
    return bool(before) and before[-1].casefold() in OWNERS


def _feed_kind(word: str, text: str, end: int) -> bool:
    """``word`` begins a word for a kind of feed: "*pull* requests" (not the "bug" of
    "labelled bug in ...")."""
    following = WORD_TOKEN_RE.findall(text[end : end + 20])[:1]
    return intent_word(word) and bool(following) and following[0].casefold() in GENERIC


def _modifies_owned_kind(text: str, end: int) -> bool:
    """The word ending at ``end`` qualifies a kind noun that heads a clause about the asker
    ("the Chrome *extension our team* publishes"): the asker's clause says which, no name."""
    following = [w.casefold() for w in WORD_TOKEN_RE.findall(text[end : end + 40])[:2]]
    return (
        len(following) == 2
        and following[0] in EN_KIND_NOUNS
        and following[1] in (CLAUSE_PRONOUNS | OWNERS)
    )


def _clause_head(text: str, end: int) -> bool:
    """The word ending at ``end`` heads a clause about the asker or someone unnamed: a
    personal pronoun follows it ("the lab *I* follow", "the repo *we* maintain")."""
    following = WORD_TOKEN_RE.search(text, end)
    if following is None or text[end : following.start()].strip():
        return False
    return following.group(0).casefold() in CLAUSE_PRONOUNS


def marked_after(text: str, markers: Iterable[str], excluded: set[str]) -> list[str]:
    """Values that follow one of ``markers`` (English markers match whole words)."""
    values = []
    for marker in markers:
        phrase = marker in EN_PHRASE_MARKERS
        # "organization's events": a possessive marker introduces nothing.
        bound = rf"(?<![{LATIN}]){re.escape(marker)}(?![{LATIN}']|\s*'s)"
        pattern = re.compile(bound if marker.isascii() else re.escape(marker), re.I)
        for match in pattern.finditer(text):
            if marker.isascii() and _owned(text, match.start()):
                continue  # "the package our app depends on": the asker's own, unnamed
            if not marker.isascii() and text[: match.start()].rstrip().endswith(UNNAMED_ZH):
                continue  # "某个豆瓣用户日记下面的回应": some user, and no name after
            if value := _after(text, match.end(), excluded, phrase=phrase):
                values.append(value)
    return values


def _marked_before(text: str, excluded: set[str]) -> list[str]:
    values = []
    for marker in ZH_BEFORE_MARKERS:
        for match in re.finditer(re.escape(marker), text):
            # "可转债 这个话题": a demonstrative may stand between the name and its marker
            before = THIS_RE.sub("", text[: match.start()].rstrip()).rstrip()
            runs = RUN_RE.findall(before)
            if not runs or not before.endswith(runs[-1]):
                continue
            run = _latin_tail(runs[-1].strip(".-_"))
            word = run if run.isascii() else _zh_last_word(run)
            if word and usable(word, excluded) and not any(f == word for f in ZH_FILLER):
                values.append(word)
    return values


def _latin_tail(run: str) -> str:
    """A Latin name a Chinese function word leads: "上ChinaJoy" (on the site) is ChinaJoy; a
    name whose Chinese is its own (小米SU7) stays whole."""
    mixed = LATIN_TAIL_RE.fullmatch(run)
    if mixed and zh_ends_as_function(mixed.group(1)):
        return mixed.group(2)
    return run


def _latin_in_chinese(text: str, excluded: set[str]) -> list[str]:
    if not CJK_RE.search(text) or _english_glossing(text):
        return []
    for marker in ZH_AFTER_MARKERS + ZH_TOPIC_MARKERS:  # "UP 主" is a marker, not a subject
        text = re.sub(re.escape(marker), " ", text, flags=re.I)
    text = ONE_OF_KIND_ZH.sub(" ", text)  # "一个 Chrome 扩展": Chrome says which kind, not which
    # three lower-case words or more run together are one thing ("Scholar 上 retrieval augmented
    # generation 的新论文"), a lone letter (雪球大V, B 站) part of a word, no name
    phrases = [m.group(0) for m in LOWER_PHRASE_RE.finditer(text)]
    phrases = [p for p in phrases if all(usable(w, excluded) or w in EN_STOP for w in p.split())]
    text = LOWER_PHRASE_RE.sub(" ", text)
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
    marked = _marked_before(rest, skip) + marked_after(rest, markers, skip) + owners
    accounts = {*marked_after(rest, AUTHOR_MARKERS, skip), *owners}
    found += [
        Entity(v, _kind_of(v), marked=True, role="account" if v in accounts else "") for v in marked
    ]
    topics = marked_after(rest, (*EN_PHRASE_MARKERS, *ZH_TOPIC_MARKERS), skip)
    found += [Entity(v, "topic", marked=True, role="topic") for v in topics]
    named = platform_named(question.replace("\u2019", "'"), platform)
    found += [Entity(v, "marked", marked=True, role="account") for v in named]
    subjects = in_subject_place(rest, skip)
    found += [Entity(w, "marked", marked=True, role="account") for w in subjects]
    found += [Entity(w, "quoted" if " " in w else "latin") for w in _latin_in_chinese(rest, skip)]
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
    found = [e for e in found if e.kind != "marked" or not askers_own(e.value, rest)]
    # the start of the platform's name run together ("Barron's" of barronschina) names it
    found = [e for e in found if not _name_start(e.value, platform)]
    return Asked(text=text, entities=_unique(_names_whole(found)), topic=tuple(topic))


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
        return bool(_zh_word(word)) and word not in ZH_FILLER
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
