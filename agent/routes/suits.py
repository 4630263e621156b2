"""How a value the question names suits a route's parameter: whether it fits at all (its form
against the parameter's example, shape and description: ``fits``), how well beyond fitting
(``fit_of``: an id with the example's prefix, a value keyed by the parameter's name or kind),
and the form it is written in (``formed_as``: an @handle, lower case, a search's whole phrase,
words joined as the example joins them). ``agent.routes.params`` fills parameters with them."""

import itertools
import re

from agent.question import EN_STOP
from agent.routes.entities import Asked, Entity
from agent.routes.forms import CJK_RE, DOMAIN_RE, QUERY_KEY
from agent.routes.said import YEAR_RE, of_year
from agent.routes.settings import labelled
from agent.routes.slots import (
    ID_SAID_RE,
    TOPIC_PARAMS,
    Slot,
    searched_described,
    shape_of,
    words_of,
)

# A parameter whose description asks for its value in lower case.
LOWER_CASE_RE = re.compile(r"全小写|小写|lower[- ]?case", re.I)
SLUG_ID_RE = re.compile(r"[a-z][a-z0-9_\-]{3,}")
# An id numbered (a run of five digits or more: id408709785), and a digit anywhere
NUMBERED_RE = re.compile(r"\d{5}")
WORD_NUMBERED_RE = re.compile(r"[A-Za-z]+(?:[-_]\d+)+")
DIGIT_RE = re.compile(r"\d")
PLUS_JOINED_RE = re.compile(r"\w+(?:\+\w+)+")
# A parameter described as a kind's name: 吧名, a forum's
CJK_KIND_HEAD_RE = re.compile(r"([\u4e00-\u9fff])\u540d")
# An id of eight characters or more mixing two digits or more among letters: ckr7mn6r003t
DIGITS_AMID_RE = re.compile(r"(?=(?:[a-z]*\d){2})(?=(?:\d*[a-z]){2})[a-z0-9]{8,}", re.I)
# An opaque id of letters in both cases and digits: mlmE4JMAAAAJ
MIXED_ID_RE = re.compile(r"(?=.*[a-z])(?=.*[A-Z])(?=.*\d)[A-Za-z0-9_-]{8,}")
# An id of letters then digits: W4983108759592548559, id1148546720
LETTERED_ID_RE = re.compile(r"([A-Za-z]+)\d+")
# a hexadecimal id: Zhihu's 246e6cf44e94cefbf4b959cb5042bc91
HEX_RE = re.compile(r"[0-9a-f]+", re.I)


# "支持带有`mc`前缀", "with or without the `av` prefix": a number may be written after it
PREFIX_ALLOWED_RE = re.compile(
    r"(?:\u5e26\u6709|\u5e26|\bwith(?:\s+or\s+without)?(?:\s+the)?)\s*`?([A-Za-z]{1,4})`?\s*"
    r"(?:\u524d\u7f00|prefix)",
    re.I,
)


def slot_shape(slot: Slot) -> str | None:
    """The form a parameter's values take, by its example, else by a default that is a host
    ("Gitlab instance hostname, default to gitlab.com": gitlab.gnome.org is one)."""
    shape = shape_of(slot.example)
    return shape or ("domain" if shape_of(slot.default) == "domain" else None)


def searched_slot(slot: Slot) -> bool:
    """The parameter takes something to search for: a keyword, a query, a tag (hashtag)."""
    words = words_of(slot.name)
    tagged = bool(words) and words[-1].endswith("tag")
    # a topic known by its id ("The topic ID to fetch news for": ckr7mn6r003t) is not searched
    topic = slot.name.lower() in TOPIC_PARAMS and not (
        shape_of(slot.example) == "id" and ID_SAID_RE.search(slot.description)
    )
    return topic or tagged or searched_described(slot.description)


def fits(entity: Entity, slot: Slot) -> bool:
    shape = slot_shape(slot)
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
    if shape == "id" and MIXED_ID_RE.fullmatch(slot.example or "") and not _opaque(entity.value):
        return False  # nor a mixed one (Scholar's mlmE4JMAAAAJ) a word ("retrieval", "Chrome")
    if (
        shape == "id"
        and DIGITS_AMID_RE.fullmatch(slot.example or "")
        and not DIGIT_RE.search(entity.value)
    ):
        return False  # nor one of letters and digits mixed (BBC's ckr7mn6r003t) "Chinese"
    if WORD_NUMBERED_RE.fullmatch(slot.example or ""):  # a board as forum-6-1, an issue as
        return WORD_NUMBERED_RE.fullmatch(entity.value) is not None  # IJPL-174543: never "S1"
    if entity.kind == "topic":  # "about X", "搜索 X": something to search for, not a name
        # (a #hashtag fits a parameter described as taking one: "Username / Hashtag name")
        tagged = entity.role == "tag" and re.search(r"tag\b", slot.description, re.I)
        return searched_slot(slot) or bool(tagged)
    if entity.kind in ("pair", "domain", "file"):
        return False
    if entity.kind == "number" and not entity.marked:  # keyed for it: "&id=1985"; a year's
        labelled_for = bool(entity.label) and labelled(entity.label, slot)
        return labelled_for or (YEAR_RE.fullmatch(entity.value) is not None and of_year(slot))
    return " " not in entity.value or entity.kind == "quoted" or searched_slot(slot)


def _opaque(value: str) -> bool:
    """A value written as no word is: with a digit, or capitals past its first letter."""
    return DIGIT_RE.search(value) is not None or re.search(r".[A-Z]", value) is not None


def _number_prefixed(value: str, description: str) -> bool:
    """``value`` is a number with the prefix the parameter's description allows."""
    prefix = PREFIX_ALLOWED_RE.search(description or "")
    return bool(prefix) and re.fullmatch(rf"{prefix.group(1)}\d+", value, re.I) is not None


def fit_of(entity: Entity, slot: Slot) -> int:
    """How well a value suits its parameter, beyond fitting: 1 when its form or role is the
    one the parameter asks for (an id with the example's prefix, UC... for a channel; an account
    for an @handle; a topic for a keyword), -1 when it is another (an account searched as a
    keyword, a PL... playlist id for a channel), else 0."""
    example = slot.example or ""
    if entity.label:  # given for this parameter, or for another one
        # (a page's query key, detail?cid=, says only what the site calls it)
        return 2 if labelled(entity.label, slot) else -int(entity.label[0] != QUERY_KEY)
    if searched_slot(slot):
        tagged = words_of(slot.name)[-1:] and words_of(slot.name)[-1].endswith("tag")
        return {"topic": 1, "account": -1, "tag": 2 if tagged else 0}.get(entity.role, 0)
    if example.startswith("@"):
        return 1 if entity.role == "account" else 0
    shape = slot_shape(slot)  # a host by its example, or by its default (gitlab.com)
    if shape == "id" and entity.kind == "id":
        if entity.value[:2] == example[:2] or _hex_alike(entity.value, example):
            return 1
        # letters then digits (网易号 W4983108759592548559, id1148546720): the letters say
        # what kind of id it is
        if lettered := LETTERED_ID_RE.fullmatch(example):
            return 1 if re.fullmatch(rf"{lettered[1]}\d+", entity.value, re.I) else -1
        # another prefix is another kind of id (a PL... playlist for a UC... channel); an id
        # with none (BBC's ckr7mn6r003t) only differs
        return -1 if example[:2].isupper() and example[:2].isalpha() else 0
    if _domain_handle(entity, shape):
        return 1
    return int(shape in ("number", "stock", "video", "domain", "file") and entity.kind == shape)


def _hex_alike(value: str, example: str) -> bool:
    """Both are long hexadecimal ids: Zhihu's users, GitHub's gists, whatever they begin with."""
    return all(
        len(v) >= 16 and HEX_RE.fullmatch(v) and DIGIT_RE.search(v) for v in (value, example)
    )


def slug_for_id(entity: Entity, slot: Slot, text: str) -> bool:
    """A name given as a slug where the example's id is a number, right after the kind the
    parameter says it is (豆瓣小组 shanghaizufang: "豆瓣小组的 id"): some sites take either."""
    if SLUG_ID_RE.fullmatch(entity.value) is None or entity.kind not in ("marked", "quoted"):
        return False
    return kind_said_before(entity.value, slot, text)


# A Chinese kind keying a value as its id: "分区id 86", "标签 ID: 1044"
KIND_ID_RE = re.compile(r"([\u4e00-\u9fff]{2,})\s*id\s*[:=\uff1a]?\s*$", re.I)
# What stands between a kind and its value: "社群 ID 是 3", "作品 id: 6921873"
KIND_TAIL_RE = re.compile(r"(?:[\s\W_]|(?<![A-Za-z])id|[\u662f\u4e3a\u70ba])+$", re.I)


MIXED_KIND_RE = re.compile(r"[A-Za-z]+\s?[\u4e00-\u9fff]+$")


def kind_said_before(value: str, slot: Slot, text: str) -> bool:
    """Right before ``value`` the question says the kind its parameter's description names
    (晋江作品 6921873: "作品 id"; 豆瓣小组 shanghaizufang: "豆瓣小组的 id"; "社群 ID 是 3")."""
    return bool(kind_before(value, slot, text))


def kind_id_before(value: str, slot: Slot, text: str) -> bool:
    """Right before ``value`` the question says, in Chinese, the kind whose id its parameter's
    description says it is (网易云歌单 2829883282: "歌单 id"; not a user's "用户 uid")."""
    kind = kind_before(value, slot, text)
    return CJK_RE.search(kind) is not None and any(
        re.search(rf"{re.escape(kind[i : i + 2])}\s*(?:id|号|编号)", slot.description, re.I)
        for i in range(len(kind) - 1)
    )


def kind_keyed(value: str, slot: Slot, text: str) -> bool:
    """``value`` follows a Chinese kind and "id" ("分区id 86"), the kind its parameter's
    description names."""
    at = text.find(value)
    keyed = KIND_ID_RE.search(text[max(0, at - 12) : max(0, at)])
    return bool(keyed) and keyed.group(1)[-2:] in slot.description


def kind_before(value: str, slot: Slot, text: str) -> str:
    """The kind ``kind_said_before`` finds, or ""."""
    at = text.find(value)
    before = KIND_TAIL_RE.sub("", text[max(0, at - 12) : max(0, at)])
    said = slot.description.casefold()
    # a kind of Latin letters and Chinese, spaced or not, is said whole: UP 主 of "UP 主主页"
    if at > 0 and (mixed := MIXED_KIND_RE.search(before)):
        kind = re.sub(r"\s+", "", mixed.group(0)).casefold()
        return kind if kind in said.replace(" ", "") else ""
    if at > 0 and (latin := re.search(r"[A-Za-z]{3,}$", before)):
        # a Latin kind is a word of the description ("group"), not two letters of one: the
        # "th" of "the" is in "earth", and "for the global trends" keys no WOEID
        word = latin.group(0).casefold()
        return latin.group(0) if word not in EN_STOP and word in re.findall(r"\w+", said) else ""
    kind = re.findall(r"[\u4e00-\u9fff]{2,}$", before)
    if at > 0 and kind and any(kind[0][i : i + 2] in said for i in range(len(kind[0]) - 1)):
        return kind[0]
    return ""


def _domain_handle(entity: Entity, shape: str | None) -> bool:
    """An @handle that is a domain ("@pfrazee.com", as Bluesky's are) for a parameter whose
    example is a domain (a profile's ``bsky.app``)."""
    return shape == "domain" and entity.kind == "handle" and bool(DOMAIN_RE.fullmatch(entity.value))


# A handle's name, and an id's shape (letters and digits mixed, long): UCBJycsmduvYEL83R_U4JriQ
NAME_RE = re.compile(r"[A-Za-z0-9_][\w.\-]*")
ID_SHAPED_RE = re.compile(r"(?=[\w\-]*\d)(?=[\w\-]*[A-Za-z])[\w\-]{16,}")
PAGE_FILE_RE = re.compile(r"\.s?html?$", re.I)


def formed_as(entity: Entity, slot: Slot, asked: Asked) -> str:
    """The value in the parameter's form (``_formed``), its words joined as the example joins
    them (Google Scholar's data+visualization)."""
    return joined_as_example(_formed(entity, slot, asked), slot)


def joined_as_example(value: str, slot: Slot) -> str:
    """Words joined as the example joins them: Google Scholar's data+visualization."""
    return value.replace(" ", "+") if PLUS_JOINED_RE.fullmatch(slot.example or "") else value


def _formed(entity: Entity, slot: Slot, asked: Asked) -> str:
    """The value in the parameter's form: a handle keeps the @ its example writes (@mkbhd); a
    word a search marks takes the topic words that follow it ("results for retrieval augmented
    generation": the whole phrase)."""
    value = entity.value
    if LOWER_CASE_RE.search(slot.description) and value.isascii():
        value = value.lower()  # "全小写的英文队名": Lakers is lakers
    if slot.takes_place and (slot.example or "").islower() and value.isascii():
        value = value.lower()  # a place written as its example writes one: Chengdu is chengdu
    example = slot.example or ""
    # a handle keeps the @ its example writes, and so does a name where the example writes a
    # handle, unless it is an id (MKBHD is @MKBHD; UCBJycsmduvYEL83R_U4JriQ is no handle)
    handle = entity.kind == "handle" or not ID_SHAPED_RE.fullmatch(value)
    if example.startswith("@") and "@" not in value and handle and NAME_RE.fullmatch(value):
        return f"@{value}"
    # the file a page's address ends with is named without its extension, as its example is
    # (163.com/dy/media/T1603594732083.html: T1603594732083)
    if PAGE_FILE_RE.search(value) and not PAGE_FILE_RE.search(example):
        value = PAGE_FILE_RE.sub("", value)
    # a name written with the kind its parameter names it by: 「考研吧」 for 吧名 is 考研
    kind = CJK_KIND_HEAD_RE.match(slot.description)
    if kind and CJK_RE.search(value) and value.endswith(kind[1]) and len(value) > len(kind[1]):
        value = value.removesuffix(kind[1])
    if searched_slot(slot) and entity.kind == "marked" and value.isascii() and value in asked.topic:
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
