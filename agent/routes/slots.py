"""A route's parameters as a question is read for them (``route_slots``): each one's name,
pattern, whether optional, its listed values (upstream ``options``, a description table, an inline
list), its example's value (a format hint), its documented default, and whether it names a
subject or chooses a setting; with the forms a value takes (``shape_of``) and how to ask for one
(``value_format``). What a description documents for each parameter is read by
``agent.routes.documented``; filling them from a question is ``agent.routes.params``."""

import re
from dataclasses import dataclass, replace
from itertools import pairwise
from urllib.parse import unquote

from django.utils.translation import gettext_noop as noop

from agent.routes.documented import (
    SETTING_WORDS,
    default_of,
    described_values,
    example_listed,
    linked_pages,
    spec_text,
    tables_owned,
    values_listed,
    words_of,
)
from agent.routes.forms import (
    CJK_RE,
    DOMAIN_RE,
    FILE_RE,
    ID_RE,
    STOCK_RE,
    TICKER_RE,
    VIDEO_RE,
    opaque_id,
)
from agent.routes.tables import grouped_tables, query_table_values
from fetching.paths import template_parameters, template_values

# Parameters choosing the language a feed is read in
LANGUAGE_PARAMS = frozenset(str.split("lang language locale"))
# Subject parameters that may take the question's topic words when no entity names a value.
TOPIC_PARAMS = frozenset(
    str.split("keyword keywords query q kw word words search searchword term qw wd tag tags topic")
)
# A description saying the parameter is what to search for, and nothing else: 搜索关键词
KEYWORD_SAID_RE = re.compile(r"(?:搜索)?关键[词字]|搜索词|(?:search\s+)?(?:keywords?|query)", re.I)


def searched_described(description: str) -> bool:
    return KEYWORD_SAID_RE.fullmatch(description.strip()) is not None


# A description saying "ID" (not an address's id1148546720 or /id/): one thing's
ID_SAID_RE = re.compile(r"(?<![A-Za-z0-9_/])id(?![A-Za-z0-9_/])|编号", re.I)
# A parameter documented on the route above it, on the same page: "语言, 见上表", "Same as above"
ABOVE_RE = re.compile(r"above|[见見同]?上表|同上", re.I)
# A label under another's: "价格指数 - 焦炭指数"
PARENT_LABEL_RE = re.compile(r"(.+?)\s+[-\u2013\u2014>\uff1e]\s+")
PARAM_TOKEN_RE = re.compile(r":\w+(\{[^}]*\})?\??")
# A default and its label: "默认为 xijiayi, 即 [喜加一](https://...)", "默认为 `hot`, 即热门"
DEFAULT_LABEL_RE = re.compile(
    r"\u9ed8\u8ba4(?:\u4e3a|\u662f)?\s*`?([\w.\-]+)`?\s*[,\uff0c]\s*\u5373\s*"
    r"\[?([^\]\s,\uff0c(\uff08`]{1,12})"
)
# The keys a query-shaped parameter lists: "Supported keys: `category`, `gender`"
QUERY_KEY_RE = re.compile(r"`([A-Za-z][\w\[\]-]*)`")


@dataclass(frozen=True)
class Slot:
    """One parameter of a route, read from the route's upstream data."""

    name: str
    regex: str
    optional: bool
    description: str
    choices: list[tuple[str, str]]
    example: str | None  # the example path's value: a format hint
    default: str | None  # the documented default, if any
    subject: bool
    # each listed value's value of the parameter before it, when the description groups them
    # under headings of those ("スポーツ sports" over baseball): baseball is sports'
    parents: tuple[tuple[str, str], ...] = ()

    @property
    def chooses_language(self) -> bool:
        """It is named for the language a feed is read in (lang, language, locale)."""
        return bool(LANGUAGE_PARAMS & set(words_of(self.name)[-1:]))

    @property
    def takes_place(self) -> bool:
        return _takes_place(self.name, self.optional, self.choices)


def _unled(template: str, name: str, choices: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Values listed with the route's own segments before the parameter (papers.cool's table
    lists ``query/Detection`` for ``/papers/query/:keyword``): the parameter's part alone."""
    segments = template.split(f"/:{name}", 1)[0].split("/")[1:]  # papers, query
    lead = segments[-1] if len(segments) >= 2 else ""  # the namespace alone leads nothing
    if not lead or ":" in lead:
        return choices
    return list(dict.fromkeys((label, v.removeprefix(f"{lead}/") or v) for label, v in choices))


def _as_example(choices: list[tuple[str, str]], example: str | None) -> list[tuple[str, str]]:
    """Values written by their labels where the example writes them so (穆迪's
    ``report/企业&金融机构``, its options 0 企业, 1 金融机构): each label is the value."""
    parts = re.split(r"[&,]", example or "")
    labels = {label for label, _v in choices}
    values = {v for _label, v in choices}
    if not example or not all(p in labels and p not in values for p in parts):
        return choices
    return [(label, label) for label, _v in choices]


def _default_valued(default: str | None, choices: list[tuple[str, str]], text: str) -> str | None:
    """The listed value a default documented by its label stands for ("默认为24小时热榜": 24),
    or by a name before its code ("default to China `cn`": cn); else the default as written."""
    values = {value for _label, value in choices}
    if not default or default in values:
        return default
    bare = re.sub(r"\s+", "", default).casefold()
    for label, value in choices:
        if re.sub(r"\s+", "", label).casefold() == bare:
            return value
    coded = re.search(rf"{re.escape(default)}\s*`([\w.\-]+)`", text)
    return coded.group(1) if coded and coded.group(1) in values else default


def _default_labelled(text: str, default: str | None) -> list[tuple[str, str]]:
    if not default or not (found := DEFAULT_LABEL_RE.search(text)) or found.group(1) != default:
        return []
    return [(default, default), (found.group(2), default)]


def query_keys(description: str) -> list[str]:
    """The keys of a parameter written as a query, where its description lists them:
    "Filter parameters in `key=value&key2=value2` format. Supported keys: `category`, `gender`"."""
    if "key=value" not in description.replace(" ", "").casefold():
        return []
    return QUERY_KEY_RE.findall(description.split("keys", 1)[-1])


def _names_itself(name: str, text: str) -> bool:
    """The description calls the parameter by its name in backquotes: "即为`column` 参数"."""
    return re.search(rf"`{re.escape(name)}`\s*(?:\u53c2\u6570|parameter)", text, re.I) is not None


def _takes_place(name: str, optional: bool, choices: list) -> bool:
    """A required area, none listed ("/air/:area", xian): the place the asker names."""
    return not optional and not choices and words_of(name)[-1:] == ["area"]


# A parameter's description that says it is switched on or off by true, false, yes or no,
# or by any value at all ("use any values for yes", 任意值为关闭).
SWITCH_SAID_RE = re.compile(
    r"(?<![\w-])(?:true|false)(?![\w-])|\bany values? for\b|任意值(?:为|则|开启|关闭)", re.I
)


def route_slots(template: str, parameters: object, description: str, example: str) -> list[Slot]:
    """The parameters of ``template``, each with its kind, values and format hint."""
    parameters = parameters if isinstance(parameters, dict) else {}
    description = description or ""
    from_example = {
        k: unquote(v)
        for k, v in template_values(template, example or "").items()
        if not v.startswith(":")  # an example writing its template (Plurk's /news/:lang?)
    }
    names = [name for name, _regex, _optional in template_parameters(template)]
    if len(names) == 1 and len(parameters) == 1 and names[0] not in parameters:
        # the one parameter documented under another name (stcn's :id as "category")
        parameters = {names[0]: next(iter(parameters.values()))}
    tables = tables_owned(template, names, parameters, description, from_example)
    listed = values_listed(names, parameters, tables, from_example)
    linked = linked_pages(template, description)
    parents: dict[str, tuple[tuple[str, str], ...]] = {}
    if len(names) >= 2 and (groups := grouped_tables(description)):
        upper, lower = names[0], names[1]
        listed[upper] = [(label, value) for label, value, _pairs in groups]
        listed[lower] = [pair for _label, _value, pairs in groups for pair in pairs]
        parents[lower] = tuple((v, value) for _l, value, pairs in groups for _lab, v in pairs)
    for upper, lower in pairwise(names):
        parents[lower] = parents.get(lower) or _labelled_parents(listed[upper], listed[lower])
    slots = []
    for name, regex, optional in template_parameters(template):
        spec = parameters.get(name)
        example_value = from_example.get(name)
        pages = linked.get(name, [])
        keyed = bool(query_keys(spec_text(spec)))  # its backquoted words are keys, no values
        # a query's keys (serpType=recent) when a table lists each key's values; else none when
        # its backquoted words are keys
        choices = query_table_values(spec_text(spec)) or (
            []
            if keyed
            else (
                (listed[name] and list(dict.fromkeys(listed[name] + pages)))
                or example_listed(example_value)
                or described_values(description, example_value)
                # the pages a description shows, for a parameter taking the rest of the path (two
                # or more) or an optional one (medsci's t_id for "肿瘤 - NSCLC")
                or (pages if len(pages) >= 2 or optional else [])
            )
        )
        # "最后的 `column=0` 即为`column` 参数": the parameter's own name, said to be one, is
        # none of its values (填入 `pre` 以包含预发布版本 lists one)
        if _names_itself(name, spec_text(spec)):
            choices = [(label, v) for label, v in choices if v.casefold() != name.casefold()]
        words = words_of(name)
        # A setting's name (status) with an example naming one thing (a tweet's id) is a subject.
        # (not one described as what to search for: 1lou's ``:params``, 搜索关键词)
        named_setting = (
            bool(words) and words[-1] in SETTING_WORDS and not searched_described(spec_text(spec))
        )
        # "填写 true/yes 表示需要": a switch, whatever its name, takes no one's name
        switch = SWITCH_SAID_RE.search(spec_text(spec)) is not None
        # a required setting with no value listed, documented as an id ("最后的数字就是id"): one
        # thing's, a subject (its example's value would stand for what was not said)
        an_id = not optional and not choices and ID_SAID_RE.search(spec_text(spec)) is not None
        a_place = _takes_place(name, optional, choices)  # the place the asker names
        default = _default_valued(default_of(name, spec, description), choices, spec_text(spec))
        setting = (
            bool(choices)
            or keyed
            or switch
            or (named_setting and not an_id and not a_place and not _id_like(example_value))
        )
        slots.append(
            Slot(
                name=name,
                regex=regex,
                optional=optional,
                description=spec_text(spec),
                # a default documented with its label ("默认为 xijiayi, 即 [喜加一](...)") is a
                # value the question may name by it, whatever else the parameter takes
                choices=_as_example(_unled(template, name, list(choices)), example_value)
                or _default_labelled(spec_text(spec), default),
                example=from_example.get(name),
                default=default,
                subject=not setting,
                parents=parents.get(name, ()),
            )
        )
    return slots


def _labelled_parents(
    upper: list[tuple[str, str]], lower: list[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    """Values whose label begins with a label of the parameter before ("价格指数 - 焦炭指数"
    under 价格指数, ``date``): each with that one's value."""
    by_label = dict(upper)
    found = []
    for label, value in lower:
        head = PARENT_LABEL_RE.match(label)
        if head and head.group(1) in by_label:
            found.append((value, by_label[head.group(1)]))
    return tuple(found)


def shape_of(value: str | None) -> str | None:
    """The form a value takes: pair, file, number, stock, video, domain, id, switch (true or
    false) or word (None: unknown)."""
    if not value:
        return None
    if value.lower() in ("true", "false"):
        return "switch"
    if FILE_RE.fullmatch(value):
        return "file"
    if TICKER_RE.fullmatch(value):
        return "ticker"
    if "/" in value:
        return "pair"
    if value.isdigit():
        return "number"
    for pattern, shape in (
        (STOCK_RE, "stock"),
        (VIDEO_RE, "video"),
        (DOMAIN_RE, "domain"),
        (ID_RE, "id"),
    ):
        if pattern.fullmatch(value):
            return shape
    return "id" if value.isascii() and value.isalpha() and opaque_id(value) else "word"


def _id_like(value: str | None) -> bool:
    """An example value that names one thing (a long number, an id), never a setting."""
    shape = shape_of(value)
    return shape in ("id", "video", "stock") or (shape == "number" and len(value or "") >= 5)


def value_format(slot: Slot) -> str:
    """How a value of ``slot`` is written, for a person asked for it: the example's shape,
    never its value. Stored in English whatever language is active (``briefs.reasons.need_format``
    reads it in the reader's)."""
    shape = shape_of(slot.example)
    if shape == "pair" and (slot.example or "").count("/") >= 2:  # www/zwgk/zcjd/jd
        return noop("a path as it appears in the site's address")
    if shape == "pair":
        return noop("owner/name")
    if shape == "number":
        return noop("digits")
    if shape in ("stock", "video"):
        return re.sub(r"\d", "#", re.sub(r"(?<=BV)\w+", "#" * 10, slot.example))
    if shape == "domain":
        return noop("a domain name, like example.org")
    if slot.example and CJK_RE.search(slot.example):
        return noop("a word or phrase")
    return noop("a name as it appears in the site's address")


def route_words(template: str, route_name: str) -> frozenset[str]:
    """Words that describe the route itself: never its subject."""
    literals = PARAM_TOKEN_RE.sub(" ", template)
    text = f"{route_name} {literals}".lower()
    return frozenset(re.findall(r"[a-z0-9]+|[^\sa-z0-9\W]+", text)) | set(
        route_name.lower().split()
    )


def pointed_above(parameters: object) -> list[str]:
    """The parameters whose description sends the reader to the route above ("见上表")."""
    if not isinstance(parameters, dict):
        return []
    return [name for name, spec in parameters.items() if ABOVE_RE.search(spec_text(spec))]


def slots_lent(slots: list[Slot], lent: dict[str, list[tuple[str, str]]]) -> list[Slot]:
    """``slots`` with the values another route lists for a parameter of the same name, where
    one lists none of its own: a setting then, no one's name."""
    return [
        replace(slot, choices=list(lent[slot.name]), subject=False)
        if slot.name in lent and not slot.choices
        else slot
        for slot in slots
    ]
