"""A route's settings filled from the question (``agent.routes.params`` fills its subjects):
the listed values it names (``agent.routes.enums``), the group a grouped value brings, a country
or region it names, a value said right after the setting's name, a listed value that spans
path segments, and a numbered setting keyed as its id."""

import re
from itertools import pairwise

from agent.question import EN_STOP
from agent.regions import REGION_ALIASES, regions_said
from agent.routes.amounts import amounts_fill
from agent.routes.concepts import SYNONYMS
from agent.routes.entities import Asked
from agent.routes.enums import option_named, option_widened, said_within
from agent.routes.forms import DOMAIN_RE, QUERY_KEY
from agent.routes.marked import marked_after
from agent.routes.platform_names import platform_blank
from agent.routes.queries import takes_query
from agent.routes.slots import ID_SAID_RE, Slot, shape_of, words_of
from agent.routes.words import usable
from agent.vocabulary import NEGATED_RE, RESIDENCE_RE, SEARCHED_RE
from catalog.segment import zh_simplified

# What a parameter's description first names it: 标签 of "标签\uff0c留空为全部", tag of "Tag, ..."
DESCRIPTION_HEAD_RE = re.compile(r"[^\W\d_]{2,12}(?=\s*[\uff0c,\u3002:\uff1a(\uff08])")
# A page address's scheme and host
HOST_RE = re.compile(r"(?:https?://)?((?:[a-z0-9\-]+\.)+[a-z]{2,12})(?=[/:?])", re.I)
# At most this many listed values joined for one parameter ("watches and jewellery")
MAX_JOINED = 4
TWO_LETTERS_RE = re.compile(r"[A-Za-z]{2}")
# A parameter named for a country or region (by its last word) takes the one the question names.
REGION_PARAMS = frozenset(str.split("country region area market store"))
# The words a site uses for a category ("the business section"), and a value of lower-case
# words as a category's example writes it (engineering)
SECTION_WORDS = ("category", "section", "channel", "column", "topic")
SECTION_WORDS_ZH = ("版块", "板块", "栏目", "频道", "分类")
SLUG_WORD_RE = re.compile(r"[a-z]+(?:-[a-z]+)*")
TITLE_RE = re.compile(r"[A-Z][a-z]+(?: [A-Za-z][a-z]+)*")  # "Top stories"
CAMEL_RE = re.compile(r"(?:[A-Z][a-z]+)+")  # HomePage
# The languages a language parameter is filled with, by their names in the concepts' rows
# (``agent.routes.concepts``), and the code each is written with. The codes are kept here, out
# of those rows, where they would be read as words ("id" of an app id, "uk", "th").
LANGUAGE_CODES = dict(
    pair.split(":")
    for pair in str.split(
        "chinese:zh english:en japanese:ja german:de french:fr korean:ko spanish:es russian:ru"
        " portuguese:pt arabic:ar italian:it vietnamese:vi thai:th indonesian:id turkish:tr"
        " dutch:nl polish:pl ukrainian:uk"
    )
)
# A language's three-letter code (ISO 639-2/B) where a site writes one so: swissinfo's ``eng``
THREE_LETTER = dict(
    pair.split(":")
    for pair in str.split(
        "zh:chi en:eng ja:jpn de:ger fr:fre ko:kor es:spa ru:rus pt:por ar:ara it:ita vi:vie"
        " th:tha id:ind tr:tur nl:dut pl:pol uk:ukr"
    )
)


def settings_fill(
    slots: list[Slot],
    question: str,
    asked: Asked,
    platform_words: tuple[str, ...] | list[str],
    excluded: set[str],
    values: dict[str, str],
    sources: dict[str, str],
    hosts: tuple[str, ...] = (),
) -> None:
    """Fill the settings the question names into ``values`` (``sources``: "option"). The
    platform's ``hosts`` name none (vom.mn says no ``mn``), nor another host of its name's
    (taptap.cn says no ``cn``). A parameter the question turns down ("不挑标签", no tag in
    particular) takes none."""
    own = {word.casefold() for word in platform_words}  # Reuters' author "reuters" is no ask
    domains = [d for d in DOMAIN_RE.findall(question) if own & set(d.casefold().split("."))]
    question = platform_blank(question, [*hosts, *domains])
    # nor the host of a page's address (www.taptap.cn/app/168332 says no zh_CN)
    question = HOST_RE.sub(
        lambda m: " " * len(m.group(0)) if own & set(m.group(1).casefold().split(".")) else m[0],
        question,
    )
    apart = platform_blank(question, platform_words)
    only_as_name = said_within(question, apart)
    refused = " ".join(m.group(0) for m in NEGATED_RE.finditer(question)).casefold()
    told = SEARCHED_RE.sub("搜索", RESIDENCE_RE.sub(" ", question))  # 搜一下 names 搜索文章
    apart = platform_blank(apart, sorted(excluded, key=len, reverse=True))  # and its route's
    # (a query written out whole is read already: Google News's hl, gl and ceid are its keys)
    for slot in (s for s in slots if s.choices and not (s.name in values and takes_query(s))):
        if _kind_refused(slot, refused):
            continue
        # nor a label said only inside the platform's name: 中国作家网's journal 《中国作家》,
        # 理想生活实验室's 实验室 TV ("Qiushi Journal (求是) on qstheory.cn" says 求是 apart)
        # and a label says what it does besides the platform's name ("AtCoder Typical
        # Contest" is a typical contest)
        choices = [
            (_apart(label, platform_words), v)
            for label, v in slot.choices
            if v.casefold() not in own and not only_as_name(label)
        ]
        # the value standing for the route itself (McKinsey's 洞见, insights, under its route
        # named 洞见) names no setting while another is named ("automotive insights")
        others = [(lab, v) for lab, v in choices if excluded.isdisjoint((lab.casefold(), v))]
        loose = not slot.optional
        # where the asker lives ("I live in Singapore and read 8world") asks for no section,
        # though it may say their store's region
        said = question if names_region(slot) else told
        value = option_named(said, others, loose=loose, apart=apart) if others != choices else None
        if value := value or option_named(said, choices, loose=loose, apart=apart):
            # a value the question names that narrows this one: 最多觀看 (hot) of 本週 (hot/week)
            narrower = [(lab, v) for lab, v in choices if v.startswith(f"{value}/")]
            value = (narrower and option_named(question, narrower, loose=loose)) or value
            value = option_widened(question, choices, value)
            values[slot.name] = _joined(slot, said, choices, value, loose)
            sources[slot.name] = "option"
    _parent_fill(slots, values, sources)
    _region_fill(slots, question, values, sources)
    _language_fill(slots, question, values, sources)
    _script_fill(slots, question, values, sources)
    _settings_said(slots, asked, values, sources, excluded)
    amounts_fill(slots, question, values, sources)
    _spread(slots, asked, values, sources)
    _quoted_fill(slots, asked, values, sources)


def _kind_refused(slot: Slot, refused: str) -> bool:
    """The question turns down what the parameter is, as its description first names it (标签
    and "不挑标签")."""
    head = DESCRIPTION_HEAD_RE.match(slot.description)
    if not head or not head[0].isascii():
        return bool(head) and head[0] in refused
    return re.search(rf"\b{re.escape(head[0].casefold())}s?\b", refused) is not None


# A parameter taking several values joined: "comma separated", 逗号分隔, 以英文逗号分隔
COMMA_JOINED_RE = re.compile(r"\bcomma[\s-]separated\b|逗号分隔|以.{0,2}逗号", re.I)


def _joined(slot: Slot, said: str, choices: list, value: str, loose: bool) -> str:
    """Every value the question names, joined, for a parameter whose example joins listed
    values with commas (FashionNetwork's ``5,6``: "watches and jewellery" is ``18,19``)."""
    parts = (slot.example or "").split(",")
    order = list(dict.fromkeys(v for _label, v in choices))  # the values, as listed
    # (or whose description says so: GitHub's event types, "comma separated")
    joins = (len(parts) > 1 and set(parts) <= set(order)) or COMMA_JOINED_RE.search(
        slot.description
    )
    if not joins:
        return value
    found = [value]
    while len(found) < MAX_JOINED:
        labels = [label for label, v in choices if v in found]
        rest = NEGATED_RE.sub(" ", platform_blank(said, sorted(labels, key=len, reverse=True)))
        left = [(label, v) for label, v in choices if v not in found]
        more = option_named(rest, left, loose=loose)
        if not more or more in found:
            break
        found.append(more)
    return ",".join(sorted(found, key=order.index))


def _apart(label: str, platform_words: tuple[str, ...] | list[str]) -> str:
    return " ".join(platform_blank(label, platform_words).split()) or label


def _quoted_fill(slots: list[Slot], asked: Asked, values: dict, sources: dict) -> None:
    """A setting that lists no values takes one the question quotes in its example's form
    ('langPythonBooks' where the example is compscAlgorithmBooks: words run together, each
    after the first capitalised): given whole, it is meant for it."""
    quoted = [e.value for e in asked.entities if e.kind == "quoted" and " " not in e.value]
    for slot in slots:
        if slot.subject or slot.choices or slot.name in values or not slot.example:
            continue
        taken = set(values.values())
        form = _form(slot.example)
        if len(form) < 2:  # a plain word ('python') may be a topic: only a formed value is meant
            continue
        value = next((q for q in quoted if q not in taken and _form(q) == form), None)
        if value:
            values[slot.name], sources[slot.name] = value, "option"


def _form(value: str) -> str:
    """A value's form: each run of small letters, capitals or digits as one mark
    (compscAlgorithmBooks: aAaAa; stock-analysis: a-a)."""
    marks = re.sub(r"[a-z]+", "a", re.sub(r"[A-Z]", "A", re.sub(r"[0-9]+", "9", value)))
    return re.sub(r"(Aa)+", "Aa", re.sub(r"A+", "A", marks))


def keyed_settings(
    slots: list[Slot], asked: Asked, values: dict, sources: dict, used: set[str]
) -> None:
    """A numbered setting (a category's id, no values listed) takes the number the question
    keys as its id ("分类 ID 29" for ``:caty``, described as 分类 ID), never its example."""
    for slot in slots:
        if slot.subject or slot.choices or slot.name in values:
            continue
        if shape_of(slot.example) != "number":
            continue
        for entity in asked.entities:
            keyed = entity.label and (
                labelled(entity.label, slot)
                or (entity.label == "id" and ID_SAID_RE.search(slot.description))
            )
            if entity.kind == "number" and keyed and entity.value not in used:
                values[slot.name], sources[slot.name] = entity.value, "option"
                used.add(entity.value)
                break


def _settings_said(
    slots: list[Slot], asked: Asked, values: dict, sources: dict, excluded: set[str]
) -> None:
    """A setting the question names with its value right after ("locale de-DE", "country DE")
    takes that value: a listed one when it lists values, else the value as given; or right
    before, in its example's form ("the engineering category" for cockroachlabs' category,
    example ``engineering``)."""
    for slot in slots:
        if slot.subject or slot.name in values or (len(slot.name) < 4 and not _of_section(slot)):
            continue
        said = marked_after(asked.text, [slot.name], excluded) or _said_before(slot, asked.text)
        value = said[0] if said and " " not in said[0] else None
        if value and slot.choices:
            value = {v.casefold(): v for _label, v in slot.choices}.get(value.casefold())
        if value and re.fullmatch(r"[\w.\-]+", value, re.ASCII):
            values[slot.name], sources[slot.name] = value, "option"


def _said_before(slot: Slot, text: str) -> list[str]:
    """A word said before the setting's name, in its example's form: a slug in lower case, or a
    title capitalized ("technology section" of Google News's category, example "Top stories")."""
    example = slot.example or ""
    titled = TITLE_RE.fullmatch(example) is not None or CAMEL_RE.fullmatch(example) is not None
    if not SLUG_WORD_RE.fullmatch(example) and not titled:
        return []
    # its name, or for a category the word a site uses for one ("the business section")
    kinds = [slot.name, *(SECTION_WORDS if _of_section(slot) else ())]
    names = "|".join(map(re.escape, kinds))
    zh = "|".join(SECTION_WORDS_ZH) if _of_section(slot) else "(?!)"  # 纽约时报 Technology 版块
    said = re.findall(
        rf"(?<![\w.\-/@])([A-Za-z][a-z\-]+)(?:\s+(?:{names})\b|\s*(?:{zh}))", text, re.I
    )
    said = [w for w in said if usable(w, set()) and w.casefold() not in EN_STOP]
    return [w[:1].upper() + w[1:] if titled else w.casefold() for w in said]


def _of_section(slot: Slot) -> bool:
    """The setting is a site's category by its name, whole or cut short (``cat``, ``col``)."""
    name = slot.name.casefold()
    return len(name) >= 3 and any(word.startswith(name) for word in SECTION_WORDS)


def _parent_fill(slots: list[Slot], values: dict, sources: dict) -> None:
    """A listed value grouped under a value of the parameter before it (baseball under
    sports) gives that one its group's value, when the question named none; under another
    value than the one named, it is no value of that one's (经观's 汽车 column is qiche, not
    its 房产・汽车・消费 group's qiche too)."""
    for upper, lower in pairwise(slots):
        parent = dict(lower.parents).get(values.get(lower.name, ""))
        if parent and upper.name not in values:
            values[upper.name], sources[upper.name] = parent, "option"
        elif parent and values[upper.name] != parent:
            del values[lower.name], sources[lower.name]


def names_region(slot: Slot) -> bool:
    """The parameter is named for a country or region (by its last word: ``:country``)."""
    return region_named(slot.name)


def region_named(name: str) -> bool:
    """A parameter's name names a country or region (by its last word: ``country``)."""
    return bool(set(words_of(name)[-1:]) & REGION_PARAMS)


def _region_fill(slots: list[Slot], question: str, values: dict, sources: dict) -> None:
    """A country or region the question names ("the US store", 国区, 日服) fills a parameter
    named for one: a listed value that is its code, else its code in the example's case."""
    said = sorted(regions_said(question))
    codes = [c for code in said for c in (code, *REGION_ALIASES.get(code, ()))]
    for slot in slots:
        if not codes or slot.name in values or not names_region(slot):
            continue
        example = slot.example or slot.default or ""
        if slot.choices:
            listed = {v.casefold(): v for _label, v in slot.choices}
            value = next((listed[c] for c in codes if c in listed), None)
            # a code of those a description shows a few of as examples ("`us`", "China `cn`")
            if value is None and len(listed) < 4 and all(map(TWO_LETTERS_RE.fullmatch, listed)):
                upper = all(v.isupper() for v in listed.values())
                value = codes[0].upper() if upper else codes[0]
        elif TWO_LETTERS_RE.fullmatch(example):
            value = codes[0].upper() if example.isupper() else codes[0]
        else:
            value = None
        # a code the description writes among others ("`hk/tw/au/ca/...`")
        described = re.split(r"[^a-z]+", slot.description.casefold())
        value = value or next((c for c in codes if len(c) == 2 and c in described), None)
        if value:
            values[slot.name], sources[slot.name] = value, "option"


# Chinese said in one of its scripts: 简体中文, 繁體, "simplified Chinese"
SCRIPT_RE = re.compile(r"简体|簡體|繁体|繁體|simplified|traditional")
SIMPLIFIED = frozenset(("简体", "簡體", "simplified"))
# A locale written as one: en-US, zh_CN, zh-Hans
LOCALE_RE = re.compile(r"(?<![\w-])([a-z]{2}[-_](?:[A-Z]{2}|[A-Z][a-z]{3}))(?![\w-])")


def _language_fill(slots: list[Slot], question: str, values: dict, sources: dict) -> None:
    """A language the question names ("the japanese version", 日文版) fills a parameter named
    for one that lists no values, as its two-letter code ("Locale ..., e.g. `ja`"), where the
    example writes one so or none; a locale written out ("in en-US") fills one whose example
    is a locale."""
    written = set(LOCALE_RE.findall(question))
    for slot in slots:
        locale = LOCALE_RE.fullmatch(slot.example or slot.default or "")
        if locale and len(written) == 1 and slot.chooses_language and slot.name not in values:
            values[slot.name], sources[slot.name] = written.pop(), "option"
    wanting = [slot for slot in slots if slot.name not in values and slot.chooses_language]
    if not wanting:
        return  # read the question's languages only for a parameter that takes one
    said = NEGATED_RE.sub(" ", question).casefold()  # "I can't read Japanese" asks for none
    codes = [
        LANGUAGE_CODES[name]
        for row in SYNONYMS
        if (name := next((w for w in row if w in LANGUAGE_CODES), None))
        and any(
            re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", said)
            for w in row
            if len(w) > 2 or not w.isascii()
        )
    ]
    for slot in wanting if len(codes) == 1 else ():
        if code := _written_as(slot, codes[0]):
            values[slot.name], sources[slot.name] = _scripted(slot, code, said), "option"


def _script_fill(slots: list[Slot], question: str, values: dict, sources: dict) -> None:
    """The script asked for (简体版, traditional) where a parameter lists the scripts by their
    first character (BBC 中文's 简 and 繁)."""
    simplified = _simplified_said(question.casefold())
    if simplified is None:
        return
    first = "简" if simplified else "繁"
    for slot in slots:
        listed = [v for label, v in slot.choices if zh_simplified(label.strip()) == first]
        if slot.name not in values and len(listed) == 1:
            values[slot.name], sources[slot.name] = listed[0], "option"


def _scripted(slot: Slot, code: str, said: str) -> str:
    """Chinese in the script asked for, where the parameter writes locales (Epic's ``en-US``):
    简体中文 is ``zh-CN``, 繁體中文 ``zh-TW``, as sites write them."""
    if code != "zh" or not LOCALE_RE.fullmatch(slot.example or slot.default or ""):
        return code
    simplified = _simplified_said(said)
    return code if simplified is None else "zh-CN" if simplified else "zh-TW"


def _simplified_said(text: str) -> bool | None:
    """Whether ``text`` asks for Chinese in simplified characters, or in traditional ones
    (False); None when it names neither."""
    script = SCRIPT_RE.search(text)
    return None if script is None else script.group(0) in SIMPLIFIED


def _written_as(slot: Slot, code: str) -> str | None:
    """A language's code as the parameter writes it: the one listed value that is it (``vi``
    labelled Tiếng Việt, ``en_US``; not one of ``zh-Hans`` and ``zh-Hant``), else in two
    letters or three as its example or default does."""
    if slot.choices:
        codes = (code, THREE_LETTER.get(code, code))
        listed = {v for _label, v in slot.choices if re.split("[-_]", v.casefold())[0] in codes}
        return listed.pop() if len(listed) == 1 else None
    written = slot.example or slot.default or ""
    form = _code_form(written)
    if form == "two" and written.partition("-")[0] == code:
        return written  # the default's own locale (Epic's en-US for "english is fine")
    return THREE_LETTER.get(code) if form == "three" else code if form == "two" else None


def _code_form(written: str) -> str | None:
    """How a language parameter's example or default writes a language: by two letters (or
    none written, or a locale, whose region the question does not say: Google Doodles'
    ``zh-CN`` takes ``ja``), by three (``eng``), or as neither."""
    if re.fullmatch(r"(?:[a-z]{2}(?:-[A-Z]{2})?)?", written):
        return "two"
    return "three" if written in THREE_LETTER.values() else None


def _spread(slots: list[Slot], asked: Asked, values: dict, sources: dict) -> None:
    """A listed value that spans path segments (36氪's 搜索文章 is ``search/articles/ 关键词``)
    fills its parameter and those after it in order; a last segment that is no value but words
    for one (关键词) takes the topic the question marks, or is left off."""
    for i, slot in enumerate(slots):
        value = values.get(slot.name, "")
        if sources.get(slot.name) != "option" or "/" not in value:
            continue
        parts = [part.strip() for part in value.split("/") if part.strip()]
        targets = slots[i : i + len(parts)]
        if len(targets) < len(parts) or any(t.name in values for t in targets[1:]):
            continue
        topics = [e.value for e in asked.entities if e.role == "topic"]
        for target, part in zip(targets, parts, strict=True):
            if not re.fullmatch(r"[\w.\-]+", part, re.ASCII):  # words for a value
                if not topics:
                    break
                part = topics[0]
            values[target.name], sources[target.name] = part, "option"


def labelled(label: str, slot: Slot) -> bool:
    """The key a value was given names this parameter ("(fid -7)" for ``:fid``, "(app id 570)"
    for ``:appid``, "uid" for ``:userid``: a thing's initial and its id)."""
    label = label.removeprefix(QUERY_KEY)
    name = slot.name.casefold()
    words = {w.casefold() for w in words_of(slot.name)}
    initialled = len(name) > 3 and name.endswith("id") and label == f"{name[0]}id"
    return name.startswith(label) or name.endswith(label) or label in words or initialled
