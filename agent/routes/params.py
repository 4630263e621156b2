"""Filling a route's parameters from a question (the route node's offline method).

The route's example path is a format hint, never a value. Each parameter is one of two kinds:

- a *subject* (user, repo, id, keyword, tag, channel...): it names what the question is about,
  so its value comes from the question (``agent.routes.entities``) or the route is not fetched:
  ``SubjectMissing`` says which parameter the question did not give;
- a *setting*: its values are an enumeration (upstream ``options``, a description table, an
  inline list) or its name says it is one (type, category, sort, language...). The question's
  choice comes first (``agent.routes.enums``); a required one without it takes its documented
  default, else the example's value (that is a working choice, not somebody's subject).

A subject may also take a documented conventional default (Docker Hub's ``library`` owner of
official images), but only to complete a subject the question named (the image), never in place
of one. An optional parameter stays out unless the question asks for it.

The result is only a proposal: ``fetching.paths.path_build`` validates it before any request.
"""

import itertools
import re
from dataclasses import dataclass, replace
from urllib.parse import unquote

from agent.question import EN_STOP
from agent.routes.dates import date_fill
from agent.routes.entities import Asked, Entity, marked_after, question_read
from agent.routes.forms import CJK_RE, DOMAIN_RE, QUERY_KEY, TICKER_RE
from agent.routes.keyed import keyed_query_fill
from agent.routes.named import kind_named
from agent.routes.pathed import path_fill
from agent.routes.places import place_fill
from agent.routes.queries import query_fill
from agent.routes.said import YEAR_RE, of_year, said_fill
from agent.routes.settings import keyed_settings, labelled, settings_fill
from agent.routes.slots import (
    TOPIC_PARAMS,
    Slot,
    route_slots,
    route_words,
    searched_described,
    shape_of,
    slots_lent,
    words_of,
)
from agent.routes.switches import switch_fill
from agent.routes.unsaid import NOT_NAMED, defaults_dropped, unsaid_fill
from agent.routes.words import usable
from agent.vocabulary import EN_KIND_NOUNS, INTENTS, plural_stem
from fetching.paths import path_build, template_values

# Words before a kind's value that say it is no one named: "a web3 community", "my favourite"
UNNAMING = frozenset(str.split("a an one my our your some any whose this that which"))
# A parameter whose description asks for its value in lower case.
LOWER_CASE_RE = re.compile(r"全小写|小写|lower[- ]?case", re.I)
SLUG_ID_RE = re.compile(r"[a-z][a-z0-9_\-]{3,}")
# An id numbered (a run of five digits or more: id408709785), and a digit anywhere
NUMBERED_RE = re.compile(r"\d{5}")
WORD_NUMBERED_RE = re.compile(r"[A-Za-z]+(?:[-_]\d+)+")
DIGIT_RE = re.compile(r"\d")


@dataclass(frozen=True)
class FilledPath:
    path: str
    params: dict[str, str]
    sources: dict[str, str]  # parameter -> option | entity kind | keywords | default | example
    fit: int = 0  # how well the question's values suit their parameters (see ``_fit``)

    @property
    def options_named(self) -> int:
        """How many listed values the question chose (not defaults or examples)."""
        return sum(source == "option" for source in self.sources.values())

    @property
    def searches_only(self) -> bool:
        """Its only subject values are a topic to search for ("关于比亚迪"), no one's name."""
        return all(s in NOT_NAMED or s == "topic" for s in self.sources.values())

    @property
    def names_subject(self) -> bool:
        """A subject value came from an entity the question names."""
        return any(s not in NOT_NAMED for s in self.sources.values())


# "留空, 用于兼容之前的路由": a parameter kept for old paths, always left empty
KEPT_EMPTY_RE = re.compile(
    r"\s*(?:\u7559\u7a7a|leave\s+(?:it\s+)?(?:empty|blank))\W{0,3}"
    r"(?:\u7528\u4e8e\u517c\u5bb9|for\s+compat)",  # 留空, 用于兼容
    re.I,
)
# "支持带有`mc`前缀", "with or without the `av` prefix": a number may be written after it
PREFIX_ALLOWED_RE = re.compile(
    r"(?:\u5e26\u6709|\u5e26|\bwith(?:\s+or\s+without)?(?:\s+the)?)\s*`?([A-Za-z]{1,4})`?\s*"
    r"(?:\u524d\u7f00|prefix)",
    re.I,
)


def _shape(slot: Slot) -> str | None:
    """The form a parameter's values take, by its example, else by a default that is a host
    ("Gitlab instance hostname, default to gitlab.com": gitlab.gnome.org is one)."""
    shape = shape_of(slot.example)
    return shape or ("domain" if shape_of(slot.default) == "domain" else None)


def _searched(slot: Slot) -> bool:
    """The parameter takes something to search for: a keyword, a query, a tag (hashtag)."""
    words = words_of(slot.name)
    tagged = bool(words) and words[-1].endswith("tag")
    return slot.name.lower() in TOPIC_PARAMS or tagged or searched_described(slot.description)


def _fits(entity: Entity, slot: Slot) -> bool:
    shape = _shape(slot)
    if entity.kind == "domain" and entity.value.casefold() == (slot.default or "").casefold():
        return False  # the default host said ("over on gitlab.com") is no other instance
    if entity.value.casefold() in (slot.name.casefold(), slot.description.strip().casefold()):
        # the parameter's own name ("剧集id是 qEzRyY3v") says what comes after, and the kind
        # its description is ("城市") names none of its values ("支持哪些城市")
        return False
    if not slot.example and (slot.default or "").isdigit() and not entity.value.isdigit():
        return False  # a page's number, `0` by default, is never a name ("Hikaru's")
    if slot.regex and not re.fullmatch(slot.regex, entity.value):
        return False
    if shape == "switch":  # a switch takes only a switch's value
        return shape_of(entity.value) == "switch"
    if shape == "number" and _number_prefixed(entity.value, slot.description):
        return True  # "支持带有`mc`前缀": mc26742 is comic 26742
    if shape in ("pair", "number", "video", "domain", "file"):
        return entity.kind == shape or _domain_handle(entity, shape)
    if shape == "stock":
        return entity.kind == "stock" or (entity.kind == "number" and len(entity.value) == 6)
    if shape == "id" and CJK_RE.search(entity.value):
        return False  # an id (id414478124, UC...) is never Chinese words
    if shape == "id" and NUMBERED_RE.search(slot.example) and not DIGIT_RE.search(entity.value):
        return False  # an id numbered as id408709785 is, never a word ("Apple TV")
    if WORD_NUMBERED_RE.fullmatch(slot.example or ""):  # a board as forum-6-1, an issue as
        return WORD_NUMBERED_RE.fullmatch(entity.value) is not None  # IJPL-174543: never "S1"
    if entity.kind == "topic":  # "about X", "搜索 X": something to search for, not a name
        return _searched(slot)
    if entity.kind in ("pair", "domain", "file"):
        return False
    if entity.kind == "number" and not entity.marked:  # keyed for it: "&id=1985"; a year's
        labelled_for = bool(entity.label) and labelled(entity.label, slot)
        return labelled_for or (YEAR_RE.fullmatch(entity.value) is not None and of_year(slot))
    return " " not in entity.value or entity.kind == "quoted" or _searched(slot)


def _number_prefixed(value: str, description: str) -> bool:
    """``value`` is a number with the prefix the parameter's description allows."""
    prefix = PREFIX_ALLOWED_RE.search(description or "")
    return bool(prefix) and re.fullmatch(rf"{prefix.group(1)}\d+", value, re.I) is not None


def _own_markers(slot: Slot, asked: Asked, excluded: set[str]) -> list[Entity]:
    """Values right after the parameter's own name ("sport football", "appid" -> "app 570")."""
    words = [w.removesuffix("id") for w in words_of(slot.name)]
    markers = [w for w in words if len(w) > 2 and w not in ("name", "type")]
    # "issues labelled bug", "tagged rust": the name as a past form marks its value too
    stems = {plural_stem(w) for w in markers}
    markers += [f for w in stems for f in (w, w + "ed", w + w[-1] + "ed") if f not in markers]
    if words_of(slot.name) == ["id"]:  # "剧集id是 qEzRyY3v", "the show's id is 4521"
        markers.append("id")
    found = marked_after(asked.text, markers, excluded)
    return [Entity(v, "number" if v.isdigit() else "marked", marked=True) for v in found]


def _asked_of(entity: Entity, slot: Slot) -> bool:
    """An optional parameter takes only what the question asks of it: a value after its own
    name, someone it marks ("submitted by pg", "@name"), a topic ("搜索 X") or hashtag for a
    search, a domain for an instance's host (gitlab.gnome.org), an issue's #number; or one right
    after the kind its description names (``_kind_said_before``)."""
    if _searched(slot):
        return entity.role in ("topic", "tag")
    shape = _shape(slot)
    return (
        entity.role == "account"
        or (entity.kind == "domain" and shape == "domain")
        or (entity.role == "ref" and shape == "number")
        or (entity.kind == "number" and YEAR_RE.fullmatch(entity.value) and of_year(slot))
    )


def _fit(entity: Entity, slot: Slot) -> int:
    """How well a value suits its parameter, beyond fitting: 1 when its form or role is the
    one the parameter asks for (an id with the example's prefix, UC... for a channel; an account
    for an @handle; a topic for a keyword), -1 when it is another (an account searched as a
    keyword, a PL... playlist id for a channel), else 0."""
    example = slot.example or ""
    if entity.label:  # given for this parameter, or for another one
        # (a page's query key, detail?cid=, says only what the site calls it)
        return 2 if labelled(entity.label, slot) else -int(entity.label[0] != QUERY_KEY)
    if _searched(slot):
        tagged = words_of(slot.name)[-1:] and words_of(slot.name)[-1].endswith("tag")
        return {"topic": 1, "account": -1, "tag": 2 if tagged else 0}.get(entity.role, 0)
    if example.startswith("@"):
        return 1 if entity.role == "account" else 0
    shape = shape_of(example)
    if shape == "id" and entity.kind == "id":
        return 1 if entity.value[:2] == example[:2] else -1
    if _domain_handle(entity, shape):
        return 1
    return int(shape in ("number", "stock", "video", "domain", "file") and entity.kind == shape)


def _slug_for_id(entity: Entity, slot: Slot, text: str) -> bool:
    """A name given as a slug where the example's id is a number, right after the kind the
    parameter says it is (豆瓣小组 shanghaizufang: "豆瓣小组的 id"): some sites take either."""
    if SLUG_ID_RE.fullmatch(entity.value) is None or entity.kind not in ("marked", "quoted"):
        return False
    return _kind_said_before(entity.value, slot, text)


# A parameter's name for whose a thing is
OWNER_WORDS = frozenset(str.split("owner user username author account"))
# A Chinese kind keying a value as its id: "分区id 86", "标签 ID: 1044"
KIND_ID_RE = re.compile(r"([\u4e00-\u9fff]{2,})\s*id\s*[:=\uff1a]?\s*$", re.I)
# What stands between a kind and its value: "社群 ID 是 3", "作品 id: 6921873"
KIND_TAIL_RE = re.compile(r"(?:[\s\W_]|(?<![A-Za-z])id|[\u662f\u4e3a\u70ba])+$", re.I)


def _kind_said_before(value: str, slot: Slot, text: str) -> bool:
    """Right before ``value`` the question says the kind its parameter's description names
    (晋江作品 6921873: "作品 id"; 豆瓣小组 shanghaizufang: "豆瓣小组的 id"; "社群 ID 是 3")."""
    return bool(_kind_before(value, slot, text))


def _kind_keyed(value: str, slot: Slot, text: str) -> bool:
    """``value`` follows a Chinese kind and "id" ("分区id 86"), the kind its parameter's
    description names."""
    at = text.find(value)
    keyed = KIND_ID_RE.search(text[max(0, at - 12) : max(0, at)])
    return bool(keyed) and keyed.group(1)[-2:] in slot.description


def _kind_before(value: str, slot: Slot, text: str) -> str:
    """The kind ``_kind_said_before`` finds, or ""."""
    at = text.find(value)
    before = KIND_TAIL_RE.sub("", text[max(0, at - 12) : max(0, at)])
    kind = re.findall(r"[\u4e00-\u9fff]{2,}$|[A-Za-z]{3,}$", before)
    said = slot.description.casefold()
    if at > 0 and kind and any(kind[0][i : i + 2] in said for i in range(len(kind[0]) - 1)):
        return kind[0]
    return ""


def _domain_handle(entity: Entity, shape: str | None) -> bool:
    """An @handle that is a domain ("@pfrazee.com", as Bluesky's are) for a parameter whose
    example is a domain (a profile's ``bsky.app``)."""
    return shape == "domain" and entity.kind == "handle" and bool(DOMAIN_RE.fullmatch(entity.value))


def _subject_value(
    slot: Slot, asked: Asked, used: set[str], excluded: set[str]
) -> tuple[str | None, str, int]:
    """The value of a subject parameter, its source and its fit (see ``_fit``)."""
    own = _own_markers(slot, asked, excluded)
    # "Team Vitality (page Team_Vitality)": the value given whole beats a part of it
    quoted = [e.value for e in asked.entities if e.kind == "quoted"]
    own = [o for o in own if not any(o.value in q and o.value != q for q in quoted)]
    kinds = [_kind_before(e.value, slot, asked.text) for e in asked.entities]
    # a number right after the kind its parameter is ("社群27") is marked as its value
    entities = [
        replace(e, marked=True) if e.kind == "number" and CJK_RE.match(kind) else e
        for e, kind in zip(asked.entities, kinds, strict=True)
    ]
    asked_of = [
        e
        for e, kind in zip(entities, kinds, strict=True)
        if _asked_of(e, slot)
        or kind
        or (e.label and labelled(e.label, slot))  # keyed by its name: "&id=19854910"
    ]
    candidates = own + (asked_of if slot.optional else entities)
    # a value keyed by the parameter's name first ("...&id=19854910" for :id), and a year
    # for a year's ("fiscal 2019")
    candidates.sort(key=lambda e: not (e.label and labelled(e.label, slot)))
    if of_year(slot):
        candidates.sort(key=lambda e: YEAR_RE.fullmatch(e.value) is None)
    if _searched(slot):  # a search takes what is marked, else the topic
        candidates = [e for e in candidates if e.marked or e.kind == "quoted"]
    for entity in candidates:
        if entity.value.casefold().lstrip("@") not in used and _fits(entity, slot):
            # keyed by the kind its description names ("分区id 86" for a 分区 ID), it is given
            # for this parameter as a key's value is
            suits = 2 if _kind_keyed(entity.value, slot, asked.text) else _fit(entity, slot)
            return _formed_as(entity, slot, asked), entity.kind, suits
    shape = shape_of(slot.example)
    if shape == "ticker":  # capitals, where a ticker is asked for: NVDA
        for match in TICKER_RE.finditer(asked.text):  # RSS, said of the feed, is none
            if match.group(1).casefold() not in used and usable(match.group(1), excluded):
                return match.group(1), "ticker", 1
    if shape == "number":  # a slug for a numbered id, when no number fits
        for entity in candidates:
            if entity.value.casefold() not in used and _slug_for_id(entity, slot, asked.text):
                return entity.value, entity.kind, -1
    if not _searched(slot) and (named := _named_before_kind(slot, asked, used, excluded)):
        return named, "marked", 0
    words = " ".join(asked.topic[:4])
    # a tag is one word: the question's words at large ("想看 mstdn.jp 实例 跨站") are none
    tagged = words_of(slot.name)[-1:] and words_of(slot.name)[-1].endswith("tag")
    searchable = _searched(slot) and words and not slot.optional and not (tagged and " " in words)
    if searchable and (not slot.regex or re.fullmatch(slot.regex, words)):
        return words, "keywords", 0
    return None, "", 0


def _named_before_kind(slot: Slot, asked: Asked, used: set[str], excluded: set[str]) -> str | None:
    """A topic word of the question said right before the kind the route is named for and the
    parameter's description names ("Indian Express India section": the route Section, its :id
    described as "Section ID"): that kind's value, in lower case where the example writes it
    so. Not after a word saying no one is named ("a web3 community", "my favourite ...")."""
    kinds = {
        w for w in re.findall(r"[a-z]{4,}", slot.description.lower()) if w in excluded
    } - EN_STOP
    # or the route's English name for the kind a Chinese description names (Tag: 标签)
    kinds |= {
        w
        for latin, chinese in INTENTS.values()
        if any(c in slot.description for c in chinese)
        for w in latin
        if w in excluded
    }
    topics = set(asked.topic)
    for word in asked.topic if kinds else ():
        if not word.isascii() or word.casefold() in used | EN_KIND_NOUNS:
            continue  # a kind of subject itself is no name ("my favourite streamer ... live")
        pattern = rf"(?:(\w+)\s+)?(?<![\w-]){re.escape(word)}\s+(?:([a-z]+)\s+)?([a-z]+)"
        after = re.search(pattern, asked.text, re.I)
        if not after or (after.group(1) or "").lower() in UNNAMING:
            continue
        between, last = (after.group(2) or "").lower(), after.group(3).lower()
        # the kind right after the word, or after one word that is no topic and no stop word
        # (the platform's name: "the mysql docker image")
        if (between or last) in kinds or (
            last in kinds and after.group(2) not in topics and between not in EN_STOP
        ):
            lower = (slot.example or "").islower()
            return word.lower() if lower else word
    return None


def _formed_as(entity: Entity, slot: Slot, asked: Asked) -> str:
    """The value in the parameter's form: a handle keeps the @ its example writes (@mkbhd); a
    word a search marks takes the topic words that follow it ("results for retrieval augmented
    generation": the whole phrase)."""
    value = entity.value
    if LOWER_CASE_RE.search(slot.description) and value.isascii():
        value = value.lower()  # "全小写的英文队名": Lakers is lakers
    if slot.takes_place and (slot.example or "").islower() and value.isascii():
        value = value.lower()  # a place written as its example writes one: Chengdu is chengdu
    if entity.kind == "handle" and (slot.example or "").startswith("@") and "@" not in value:
        return f"@{value}"
    if _searched(slot) and entity.kind == "marked" and value.isascii() and value in asked.topic:
        start = asked.topic.index(value)
        following = itertools.takewhile(str.isascii, asked.topic[start : start + 4])
        # Latin words run on: 文章给我来一份 is no part of "Rust"; and only as the question
        # says them in a row ("tagged ambient on bandcamp? (bandcamp.com/...)": ambient alone)
        words = " ".join(asked.text.casefold().split())
        phrase = value
        for word in list(following)[1:]:
            if f"{phrase} {word}".casefold() not in words:
                break
            phrase = f"{phrase} {word}"
        if not slot.regex or re.fullmatch(slot.regex, phrase):
            return phrase
    return value


def _pair_fill(slots: list[Slot], asked: Asked, values: dict, sources: dict) -> None:
    """An ``owner/name`` the question gives fills two subject parameters in a row."""
    pairs = [e.value for e in asked.entities if e.kind == "pair"]
    for first, second in itertools.pairwise(slots):
        if not pairs or not (first.subject and second.subject) or second.optional:
            continue
        if first.name in values or second.name in values:
            continue
        owner, name = pairs.pop(0).split("/", 1)
        values[first.name], values[second.name] = owner, name
        sources[first.name] = sources[second.name] = "pair"


def params_fill(
    *,
    template: str,
    parameters: object,
    description: str,
    example: str,
    question: str,
    keywords: list[str] | None = None,
    platform_words: tuple[str, ...] | list[str] = (),
    platform_hosts: tuple[str, ...] = (),
    route_name: str = "",
    asked: Asked | None = None,
    lent: dict[str, list[tuple[str, str]]] | None = None,
) -> FilledPath:
    """Propose parameters for ``template`` from ``question`` and build the path.

    ``asked`` is the run's reading of the question for this route
    (``agent.reading.Reading.route_subjects``); without it, the question is read here.
    ``lent``: values other routes list for parameters this one documents "as above".
    ``SubjectMissing`` when a required subject parameter has no value in the question,
    ``RoutePathRejected`` when the values do not make a valid path."""
    slots = slots_lent(route_slots(template, parameters, description, example), lent or {})
    slots = [s for s in slots if not KEPT_EMPTY_RE.match(s.description)]
    excluded = set(route_words(template, route_name))
    if asked is None:
        asked = question_read(
            question,
            platform_words=platform_words,
            hosts=platform_hosts,
            excluded=excluded,
            keywords=keywords,
        )
    values: dict[str, str] = {}
    sources: dict[str, str] = {}
    query_fill(slots, question, values, sources, platform_hosts)
    path_fill(slots, template, question, values, sources)
    settings_fill(slots, question, asked, platform_words, excluded, values, sources, platform_hosts)
    _pair_fill(slots, asked, values, sources)
    place_fill(slots, asked.text, excluded, values, sources, tuple(platform_words))
    date_fill(slots, asked.text, values, sources)
    said_fill(slots, asked.text, excluded, values, sources)
    kinded, elsewhere = kind_named(slots, asked)
    for name, value in kinded.items():
        values.setdefault(name, value)
        sources.setdefault(name, "marked")
    used = {v.casefold().lstrip("@") for v in values.values()}  # @mkbhd is mkbhd, used once
    used |= elsewhere
    fit = 0
    # someone acting ("has linuxserver been pushing new images") is an owner first, not the
    # thing owned under an owner by default (Docker Hub's ``library``)
    acting = any(e.role == "account" for e in asked.entities)
    for slot in sorted(
        (s for s in slots if s.subject),
        key=lambda s: (not (acting and OWNER_WORDS & set(words_of(s.name))), s.default is not None),
    ):
        if slot.name not in values:
            value, source, suits = _subject_value(slot, asked, used, excluded)
            if value is not None:
                values[slot.name], sources[slot.name] = value, source
                used.add(value.casefold().lstrip("@"))
                # its default said ("on gitlab.com") suits no better than leaving it out
                fit += 0 if value.casefold() == (slot.default or "").casefold() else suits
    # a subject keyed by its own name in the page's query (collectiondetail?sid=) suits as a
    # value given for it does
    fit += sum(2 for s in slots if s.subject and sources.get(s.name) == "page")
    keyed_settings(slots, asked, values, sources, used)
    switch_fill(slots, asked.text, values, sources)
    keyed_query_fill(slots, description, question, values, sources)
    unsaid_fill(slots, values, sources, asked.text)
    path = path_build(template, defaults_dropped(slots, values))
    return FilledPath(path=path, params=values, sources=sources, fit=fit)


def example_leaks(
    *, template: str, parameters: object, description: str, example: str, path: str
) -> list[str]:
    """The subject parameters of ``path`` whose value is its route example's (and not the
    documented default): a value the question did not give."""
    values = template_values(template, unquote(path))
    return [
        slot.name
        for slot in route_slots(template, parameters, description, example)
        if slot.subject
        and slot.example
        and values.get(slot.name) == slot.example
        and slot.example != slot.default
    ]
