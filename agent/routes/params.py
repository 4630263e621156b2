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
from collections.abc import Iterator
from dataclasses import dataclass, replace
from urllib.parse import unquote

from agent.question import EN_STOP
from agent.routes.dates import date_fill
from agent.routes.entities import Asked, Entity, question_read
from agent.routes.forms import CJK_RE, TICKER_RE
from agent.routes.images import image_tag_fill
from agent.routes.keyed import keyed_query_fill
from agent.routes.marked import marked_after
from agent.routes.markers import AUTHOR_MARKERS
from agent.routes.named import kind_named
from agent.routes.pathed import path_fill
from agent.routes.places import place_fill
from agent.routes.queries import fielded_fill, query_fill
from agent.routes.said import YEAR_RE, of_year, said_fill
from agent.routes.sections import genre_fill, section_fill
from agent.routes.settings import keyed_settings, labelled, settings_fill
from agent.routes.slots import (
    Slot,
    route_slots,
    route_words,
    shape_of,
    slots_lent,
    words_of,
)
from agent.routes.suits import (
    fit_of,
    fits,
    formed_as,
    joined_as_example,
    kind_before,
    kind_id_before,
    kind_keyed,
    searched_slot,
    slot_shape,
    slug_for_id,
)
from agent.routes.switches import switch_fill
from agent.routes.unsaid import NOT_NAMED, defaults_dropped, unsaid_fill
from agent.routes.words import usable
from agent.vocabulary import EN_KIND_NOUNS, INTENTS, ITEM_EN, KIND_EN, PUT_EN, plural_stem
from fetching.paths import path_build, template_values

# A listed value for the feed of a tag (Instagram's ``tags``): what a #hashtag asks for
TAG_KINDS = frozenset(("tag", "hashtag"))
# Words before a kind's value that say it is no one named: "a web3 community", "my favourite"
UNNAMING = frozenset(str.split("a an one my our your some any whose this that which"))


@dataclass(frozen=True)
class FilledPath:
    path: str
    params: dict[str, str]
    sources: dict[str, str]  # parameter -> option | entity kind | keywords | default | example
    fit: int = 0  # how well the question's values suit their parameters (see ``fit_of``)
    kinded: int = 0  # values right after the kind whose id they are (歌单 2829883282)

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
    # read whole already ("handle is @mkbhd": an account), it keeps what it was read as
    read = {e.value.casefold(): e for e in asked.entities}
    return [
        replace(read[key], marked=True)
        if (key := v.casefold().lstrip("@")) in read
        else Entity(v, "number" if v.isdigit() else "marked", marked=True)
        for v in found
    ]


def _asked_of(entity: Entity, slot: Slot) -> bool:
    """An optional parameter takes only what the question asks of it: a value after its own
    name, someone it marks ("submitted by pg", "@name"), a topic ("搜索 X") or hashtag for a
    search, a domain for an instance's host (gitlab.gnome.org), an issue's #number; or one right
    after the kind its description names (``kind_said_before``)."""
    if searched_slot(slot):
        return entity.role in ("topic", "tag")
    shape = slot_shape(slot)
    return (
        entity.role == "account"
        or (entity.kind == "domain" and shape == "domain")
        or (entity.role == "ref" and shape == "number")
        or (entity.kind == "number" and YEAR_RE.fullmatch(entity.value) and of_year(slot))
    )


# Kinds of someone a Chinese question puts before a name ("UP 主 1565155"), as ``kind_before``
# finds them
SUBJECT_KINDS_ZH = frozenset(
    m.replace(" ", "").casefold() for m in AUTHOR_MARKERS if CJK_RE.search(m)
)
# A parameter's name for whose a thing is
OWNER_WORDS = frozenset(str.split("owner user username author account"))


def _subject_value(
    slot: Slot, asked: Asked, used: set[str], excluded: set[str]
) -> tuple[str | None, str, int]:
    """The value of a subject parameter, its source and its fit (see ``fit_of``)."""
    own = _own_markers(slot, asked, excluded)
    # "Team Vitality (page Team_Vitality)": the value given whole beats a part of it
    quoted = [e.value for e in asked.entities if e.kind == "quoted"]
    own = [o for o in own if not any(o.value in q and o.value != q for q in quoted)]
    kinds = [kind_before(e.value, slot, asked.text) for e in asked.entities]
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
    searched = searched_slot(slot)
    if searched:  # a search takes what is marked, else the topic
        candidates = [e for e in candidates if e.marked or e.kind == "quoted"]
    for entity in candidates:
        if entity.value.casefold().lstrip("@") not in used and fits(entity, slot):
            # keyed by the kind its description names ("分区id 86" for a 分区 ID), it is given
            # for this parameter as a key's value is; after a kind of someone its description
            # names, it suits it the better ("UP 主 1565155": a user's id, no list's)
            suits = 2 if kind_keyed(entity.value, slot, asked.text) else fit_of(entity, slot)
            suits += kind_before(entity.value, slot, asked.text) in SUBJECT_KINDS_ZH
            return formed_as(entity, slot, asked), entity.kind, suits
    shape = shape_of(slot.example)
    if shape == "ticker":  # capitals, where a ticker is asked for: NVDA
        for match in TICKER_RE.finditer(asked.text):  # RSS, said of the feed, is none
            if match.group(1).casefold() not in used and usable(match.group(1), excluded):
                return match.group(1), "ticker", 1
    if shape == "number":  # a slug for a numbered id, when no number fits
        for entity in candidates:
            if entity.value.casefold() not in used and slug_for_id(entity, slot, asked.text):
                return entity.value, entity.kind, -1
    # in the parameter's form: "Apple TV app" names no app id
    for named in () if searched else _names_by_kind(slot, asked, used, excluded):
        if named and fits(Entity(named, "marked", marked=True), slot):
            return named, "marked", 0
    words = " ".join(_past_kinds(asked.topic, asked.text)[:4])
    # a tag is one word: the question's words at large ("想看 mstdn.jp 实例 跨站") are none
    tagged = words_of(slot.name)[-1:] and words_of(slot.name)[-1].endswith("tag")
    searchable = searched and words and not slot.optional and not (tagged and " " in words)
    if searchable and (not slot.regex or re.fullmatch(slot.regex, words)):
        return joined_as_example(words, slot), "keywords", 0
    return None, "", 0


def _tagged_kind(slots: list[Slot], asked: Asked, values: dict, sources: dict) -> None:
    """A #hashtag taken as a value asks for the feed of a tag where a setting lists one
    (Instagram's ``tags`` beside ``user`` for "#streetphotography")."""
    tags = {e.value.casefold() for e in asked.entities if e.role == "tag"}
    if not tags & {v.casefold() for v in values.values()}:
        return
    for slot in slots:
        listed = [v for _label, v in slot.choices if plural_stem(v.casefold()) in TAG_KINDS]
        if slot.name not in values and len(listed) == 1:
            values[slot.name], sources[slot.name] = listed[0], "option"


def _past_kinds(topic: tuple[str, ...], text: str) -> tuple[str, ...]:
    """The topic words after those that lead them saying what kind is asked for ("papers on
    diffusion models"): a search for papers on arXiv is a search for what they are about. A
    kind said of the items asked for is their topic ("the movie articles")."""

    def kind(word: str) -> bool:
        after = re.search(rf"(?<![\w-]){re.escape(word)}\s+([a-z]+)", text, re.I)
        item = after and after.group(1).lower()
        return word.casefold() in KIND_EN and not (item in ITEM_EN and item not in PUT_EN)

    kinds = list(itertools.takewhile(kind, topic))
    return topic[len(kinds) :]


def _named_before_kind(slot: Slot, asked: Asked, used: set[str], excluded: set[str]) -> str | None:
    """A topic word of the question said right before the kind the route is named for and the
    parameter's description names ("Indian Express India section": the route Section, its :id
    described as "Section ID"): that kind's value, in lower case where the example writes it
    so. Not after a word saying no one is named ("a web3 community", "my favourite ...")."""
    kinds = {
        w for w in re.findall(r"[a-z]{3,}", slot.description.lower()) if w in excluded
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
        pattern = rf"(?<![\w-]){re.escape(word)}\s+(?:([a-z]+)\s+)?([a-z]+)"
        after = re.search(pattern, asked.text, re.I)
        # within two words after one ("my favourite woodworking channel")
        before = re.findall(r"\w+", asked.text[: after.start()])[-2:] if after else []
        if not after or any(b.lower() in UNNAMING for b in before):
            continue
        between, last = (after.group(1) or "").lower(), after.group(2).lower()
        # the kind right after the word, or after one word that is no topic and no stop word
        # (the platform's name: "the mysql docker image")
        if (between or last) in kinds or (
            last in kinds and after.group(1) not in topics and between not in EN_STOP
        ):
            lower = (slot.example or "").islower()
            return word.lower() if lower else word
    return None


def _names_by_kind(
    slot: Slot, asked: Asked, used: set[str], excluded: set[str]
) -> Iterator[str | None]:
    """The names the route's kind says, the first found first: one said right before it ("the
    v2ex tech tab"), then one written as a name right after the route's name."""
    yield _named_before_kind(slot, asked, used, excluded)
    yield _named_after_kind(asked, used, excluded)


def _named_after_kind(asked: Asked, used: set[str], excluded: set[str]) -> str | None:
    """A name written as one (a capital past its first letter, or a digit) right after the
    words the route is named for: "the telegram sticker pack HotCherry"; or any name said
    "called" or "named" there ("the sticker pack called cats")."""
    kinds = [w for w in excluded if len(w) >= 3 and w.isascii() and w not in EN_STOP]
    if not kinds:
        return None
    lead = "|".join(map(re.escape, sorted(kinds, key=len, reverse=True)))
    after = re.compile(
        rf"\b(?:{lead})(?:\s+(?:{lead}))*\s+(?:(called|named)\s+)?([A-Za-z][\w.-]*)", re.I
    )
    for match in after.finditer(asked.text):
        naming, name = match.groups()
        name_like = naming or re.search(r".[A-Z]|\d", name) is not None  # HotCherry, no word
        if name_like and name in asked.topic and name.casefold() not in used:
            return name
    return None


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
    tags_said = image_tag_fill(slots, asked, values, sources)
    _pair_fill(slots, asked, values, sources)
    place_fill(slots, asked.text, excluded, values, sources, tuple(platform_words))
    date_fill(slots, asked.text, values, sources)
    said_fill(slots, asked.text, excluded, values, sources)
    section_fill(slots, description, asked.text, excluded, values, sources)
    genre_fill(slots, f"{template} {route_name}", asked.text, excluded, values, sources)
    kinded, elsewhere = kind_named(slots, asked)
    by_name = {s.name: s for s in slots}
    for name, value in kinded.items():
        if fits(Entity(value, "marked", marked=True), by_name[name]):  # in its form: no word
            values.setdefault(name, value)  # for BBC's topic ckr7mn6r003t ("the Chinese topic")
            sources.setdefault(name, "marked")
    used = {v.casefold().lstrip("@") for v in values.values()}  # @mkbhd is mkbhd, used once
    used |= elsewhere | tags_said
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
    _tagged_kind(slots, asked, values, sources)
    fielded_fill(slots, asked.text, values, sources)
    keyed_settings(slots, asked, values, sources, used)
    switch_fill(slots, asked.text, values, sources)
    keyed_query_fill(slots, description, question, values, sources, asked.text)
    unsaid_fill(slots, values, sources, asked.text)
    path = path_build(template, defaults_dropped(slots, values))
    kinded = sum(
        kind_id_before(values[s.name], s, asked.text)
        for s in slots
        if s.subject and s.name in values and sources[s.name] not in NOT_NAMED
    )
    return FilledPath(path=path, params=values, sources=sources, fit=fit, kinded=kinded)


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
