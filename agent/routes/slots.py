"""A route's parameters as a question is read for them (``route_slots``): each one's name,
pattern, whether optional, its listed values (upstream ``options``, a description table, an inline
list), its example's value (a format hint), its documented default, and whether it names a
subject or chooses a setting; with the forms a value takes (``shape_of``) and how to ask for one
(``value_format``). Filling them from a question is ``agent.routes.params``."""

import re
from dataclasses import dataclass, replace
from urllib.parse import unquote

from django.utils.translation import gettext_noop as noop

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
from agent.routes.listed import inline_values, options_of
from agent.routes.tables import MD_LINK_RE, captioned_tables, grouped_tables, value_columns
from catalog.search_terms import word_stem
from fetching.paths import template_parameters, template_values

# Parameters whose name says they choose a setting, not a subject (by their last word).
SETTING_WORDS = frozenset(
    str.split(
        """type types category categories caty cate cat catalog class classify kind sort sorting
    order orderby by lang language locale period time range timeframe since region area country
    section tab mode filter status state format limit limits count embed rank ranking params
    routeparams options view level sub subcategory important score only"""
    )
)
# Subject parameters that may take the question's topic words when no entity names a value.
TOPIC_PARAMS = frozenset(
    str.split("keyword keywords query q kw word words search searchword term qw wd tag tags topic")
)
# Backticked values one after another, commas between: "`apache`, `apache.ooo`, `kernel`"
_TICKED = r"`[A-Za-z0-9_.\-]{1,40}`"
BACKTICKED_RE = re.compile(r"`([A-Za-z0-9_.\-]{1,40})`")
BACKTICK_LIST_RE = re.compile(rf"{_TICKED}(?:\s*[,\uff0c\u3001]\s*{_TICKED}){{2,}}")
# A value and its Chinese label joined by a hyphen, in a list: "wuxia-武侠, kehuan-科幻"
VALUE_LABEL_RE = re.compile(r"(?<![\w-])([a-z0-9]+)-([\u4e00-\u9fff]{1,10})(?=[,\uff0c\u3001\s]|$)")
SLUG_VALUE_RE = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
# A description saying "ID" (not an address's id1148546720 or /id/): one thing's
ID_SAID_RE = re.compile(r"(?<![A-Za-z0-9_/])id(?![A-Za-z0-9_/])|编号", re.I)
TABLE_POINTER_RE = re.compile(r"下表|表格|如下|以下|table|below", re.I)
# A parameter documented on the route above it, on the same page: "语言, 见上表", "Same as above"
ABOVE_RE = re.compile(r"above|[见見同]?上表|同上", re.I)
# A description's page to subscribe to, linked, and the route path it shows for it
PARAGRAPH_RE = re.compile(r"\n\s*\n|\n(?=\s*[-*] )")
PAGE_LINK_RE = re.compile(r"\[([^\]`]+)\]\(https?://[^)\s]+\)")
SHOWN_PATH_RE = re.compile(r"`(/[^`\s]+)`")
LABEL_JOIN_RE = re.compile(r"\s+[-\u2013\u2014/]\s+")
# A parameter taking the rest of the path: ``{.+}``, ``{.*}``
REST_REGEX_RE = re.compile(r"\.[+*]")
MAX_CAPTION = 20  # characters a table's caption has at most to label its values
# and to name its parameter: a paragraph before a table ("... `t_id` 对应 `tid` 的值为 277 ...")
# is no caption of it
MAX_CAPTION_NAMING = 80
PARAM_TOKEN_RE = re.compile(r":\w+(\{[^}]*\})?\??")
NAME_WORD_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
DEFAULT_RES = [
    re.compile(r"默认(?:为|是|值为|值是|[:\uff1a])?\s*`?([\w.\-]+)`?"),
    re.compile(r"defaults?(?: value)?(?: is| to|:)\s*`?([\w.\-]+)`?", re.I),
    re.compile(r"\bfills? in (?:the )?`?([\w.\-]+)`?", re.I),
    re.compile(r"`([\w.\-]+)`\s*(?:by default|as (?:the )?default)", re.I),  # "`0` by default"
]


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


# A parameter's description that says it is switched on or off by true, false, yes or no.
SWITCH_SAID_RE = re.compile(r"(?<![\w-])(?:true|false)(?![\w-])", re.I)


def words_of(name: str) -> list[str]:
    return [w.lower() for w in NAME_WORD_RE.findall(name.replace("_", " "))]


def _spec_text(spec: object) -> str:
    text = spec.get("description", "") if isinstance(spec, dict) else spec
    return text if isinstance(text, str) else ""


def _default(name: str, spec: object, description: str) -> str | None:
    if isinstance(spec, dict) and isinstance(spec.get("default"), str) and spec["default"]:
        return spec["default"]
    for pattern in DEFAULT_RES:
        if match := pattern.search(_spec_text(spec)):
            return match.group(1)
    use = re.search(rf"[Uu]se `([\w.\-]+)` as (?:the )?`?{re.escape(name)}\b", description)
    return use.group(1) if use else None


def _tables(names: list[str], parameters: dict, description: str, example: dict) -> dict:
    """Each description table goes to the parameter whose example value it lists, else to the
    one its caption names ("Language codes", "| 分类 |" for 帖子分类), else to the one whose
    default it lists, else to the first parameter whose description points at a table, else to
    the first setting parameter."""
    settings = [n for n in names if words_of(n)[-1:] and words_of(n)[-1] in SETTING_WORDS]
    pointing = [n for n in names if TABLE_POINTER_RE.search(_spec_text(parameters.get(n)))]
    tables: dict[str, list[tuple[str, str]]] = {}
    captions: dict[str, list[tuple[str, tuple[str, str]]]] = {}
    for caption, block in captioned_tables(description):
        # example paths are no values, nor a row header naming the parameter (`:lang`)
        pairs = [(label, v) for label, v in block if not v.startswith(("/", ":"))]
        values = {v for _label, v in pairs}
        owner = next((n for n in names if example.get(n) in values), None)
        captioned = [
            (score, -i, n)
            for i, n in enumerate(names)
            if len(caption) <= MAX_CAPTION_NAMING and (score := _captioned(n, parameters, caption))
        ]
        owner = owner or (max(captioned)[2] if captioned else None)
        # or the one whose documented default it lists (热搜榜 realtime: 榜单, 默认为 realtime)
        owner = owner or next(
            (n for n in names if _default(n, parameters.get(n), description) in values), None
        )
        owner = owner or next(iter(pointing + settings), None)
        owner = owner or (names[0] if len(names) == 1 else None)  # the one it can list
        if owner and pairs:
            tables.setdefault(owner, []).extend(pairs)
            captions.setdefault(owner, []).extend((caption, pair) for pair in pairs)
    for owner, captioned_pairs in captions.items():
        tables[owner].extend(_caption_labelled(captioned_pairs))
    for header, pairs in value_columns(description):  # a row's value of another parameter
        values = {v for _label, v in pairs}
        owner = next((n for n in names if example.get(n) in values), None)
        scored = [(_captioned(n, parameters, header), -i, n) for i, n in enumerate(names)]
        owner = owner or next((n for score, _i, n in sorted(scored, reverse=True) if score), None)
        if owner:
            tables.setdefault(owner, []).extend(pairs)
    return tables


def _caption_labelled(pairs: list[tuple[str, tuple[str, str]]]) -> list[tuple[str, str]]:
    """A label two tables give different values, labelled with each table's caption too: 管理
    科学部's 通知公告 (``glkxb-tzgg``) is "管理科学部 通知公告", 基金要闻's (``tzgg``) "基金要闻
    通知公告"."""
    values: dict[str, set[str]] = {}
    for _caption, (label, value) in pairs:
        values.setdefault(label, set()).add(value)
    return [
        (f"{caption} {label}", value)
        for caption, (label, value) in pairs
        if len(values[label]) > 1 and 0 < len(caption) <= MAX_CAPTION
    ]


def _captioned(name: str, parameters: dict, caption: str) -> int:
    """How much the caption names the parameter (0: not at all): a word of its name
    ("Categories" for :category), or the caption's Chinese words in its description (分类 in
    "帖子分类, 见下表"; "分类`hot`下的子类" is more :subcate's, "hot 分类下的子类", than
    :category's, 文章专题分类), counted in characters."""
    said = {word_stem(w) for w in re.findall(r"[a-z]{3,}", caption.lower())}
    named = sum(len(w) for w in words_of(name) if len(w) >= 3 and word_stem(w) in said)
    spec = _spec_text(parameters.get(name))
    return named + sum(
        len(run) for run in re.findall(r"[\u4e00-\u9fff]{2,}", caption) if run in spec
    )


def _listed(
    names: list[str], parameters: dict, tables: dict, example: dict
) -> dict[str, list[tuple[str, str]]]:
    """Each parameter's values: its upstream options, else those its own description lists
    with a table's; values listed where another parameter is named are that one's ("For
    `threads` sections, set user ID" lists values of :section, not of :value)."""
    choices = {}
    for name in names:
        spec = parameters.get(name)
        inline = inline_values(_spec_text(spec), example.get(name))
        choices[name] = options_of(spec) or list(dict.fromkeys(inline + tables.get(name, [])))
    for name in names:
        text = _spec_text(parameters.get(name)).lower()
        for other in (n for n in names if n != name and _named_in(n, text)):
            theirs = {value for _label, value in choices[other]}
            if not options_of(parameters.get(name)):
                choices[name] = [c for c in choices[name] if c[1] not in theirs]
    return choices


def _named_in(name: str, text: str) -> bool:
    words = words_of(name)
    return len(words) == 1 and len(words[0]) > 3 and re.search(rf"\b{words[0]}", text) is not None


def route_slots(template: str, parameters: object, description: str, example: str) -> list[Slot]:
    """The parameters of ``template``, each with its kind, values and format hint."""
    parameters = parameters if isinstance(parameters, dict) else {}
    description = description or ""
    from_example = {k: unquote(v) for k, v in template_values(template, example or "").items()}
    names = [name for name, _regex, _optional in template_parameters(template)]
    if len(names) == 1 and len(parameters) == 1 and names[0] not in parameters:
        # the one parameter documented under another name (stcn's :id as "category")
        parameters = {names[0]: next(iter(parameters.values()))}
    tables = _tables(names, parameters, description, from_example)
    listed = _listed(names, parameters, tables, from_example)
    linked = _linked(template, description)
    parents: dict[str, tuple[tuple[str, str], ...]] = {}
    if len(names) >= 2 and (groups := grouped_tables(description)):
        upper, lower = names[0], names[1]
        listed[upper] = [(label, value) for label, value, _pairs in groups]
        listed[lower] = [pair for _label, _value, pairs in groups for pair in pairs]
        parents[lower] = tuple((v, value) for _l, value, pairs in groups for _lab, v in pairs)
    slots = []
    for name, regex, optional in template_parameters(template):
        spec = parameters.get(name)
        example_value = from_example.get(name)
        pages = linked.get(name, [])
        rest = REST_REGEX_RE.search(regex or "") is not None
        choices = (
            (listed[name] and list(dict.fromkeys(listed[name] + pages)))
            or _example_listed(example_value)
            or _described(description, example_value)
            # the pages a description shows, for a parameter taking the rest of the path (two
            # or more) or an optional one (medsci's t_id for "肿瘤 - NSCLC")
            or (pages if len(pages) >= 2 or (optional and not rest) else [])
        )
        words = words_of(name)
        # A setting's name (status) with an example naming one thing (a tweet's id) is a subject.
        named_setting = bool(words) and words[-1] in SETTING_WORDS
        # "填写 true/yes 表示需要": a switch, whatever its name, takes no one's name
        switch = SWITCH_SAID_RE.search(_spec_text(spec)) is not None
        # a required setting with no value listed, documented as an id ("最后的数字就是id"): one
        # thing's, a subject (its example's value would stand for what was not said)
        an_id = not optional and not choices and ID_SAID_RE.search(_spec_text(spec)) is not None
        setting = (
            bool(choices)
            or switch
            or (named_setting and not an_id and not _id_like(from_example.get(name)))
        )
        slots.append(
            Slot(
                name=name,
                regex=regex,
                optional=optional,
                description=_spec_text(spec),
                choices=list(choices),
                example=from_example.get(name),
                default=_default(name, spec, description),
                subject=not setting,
                parents=parents.get(name, ()),
            )
        )
    return slots


def _described(description: str, example: str | None) -> list[tuple[str, str]]:
    """Values the route's description lists outside a table, when the parameter's example is
    one of three or more of them: backticked, one after another ("Supported site identifiers:
    [`apache`](...), [`kernel`](...)"), or each with its label after a hyphen
    ("jinqigengxin-近期更新,wuxia-武侠")."""
    if not example:
        return []
    text = MD_LINK_RE.sub(r"\1", description)  # [`kernel`](https://...) is `kernel`
    runs = [run.group(0) for run in BACKTICK_LIST_RE.finditer(text)]
    for found in (
        *([(value, value) for value in BACKTICKED_RE.findall(run)] for run in runs),
        [(label, value) for value, label in VALUE_LABEL_RE.findall(description)],
    ):
        values = {value for _label, value in found}
        if len(values) >= 3 and example in values:
            return found
    return []


def _linked(template: str, description: str) -> dict[str, list[tuple[str, str]]]:
    """The pages a description shows how to subscribe to, by parameter: each paragraph's first
    linked page, labelled, and the values of the route path it shows ("若订阅子分类 [大陆资讯 -
    热门](https://bad.news/tag/...)... 路由为 [`/bad/tag/大陆资讯/sort-hot`]": 大陆资讯 热门 is
    ``tag/大陆资讯/sort-hot``). A label shown for two paths labels neither; a parameter shown
    one page only takes it by a label of its parts ("肿瘤 - NSCLC", not "Potplayer Update
    History": the route's own name labels no value)."""
    found: list[tuple[str, bool, dict[str, str]]] = []
    for paragraph in PARAGRAPH_RE.split(description):
        link = PAGE_LINK_RE.search(paragraph)
        shown = [template_values(template, unquote(p)) for p in SHOWN_PATH_RE.findall(paragraph)]
        if link and (shown := [values for values in shown if values]):
            label, parts = LABEL_JOIN_RE.subn(" ", link.group(1))
            found.append((label.strip(), parts > 0, shown[-1]))
    labels = [label for label, _parts, _values in found]
    pages: dict[str, list[tuple[bool, str, str]]] = {}
    for label, parts, values in found:
        for name, value in values.items():
            if labels.count(label) == 1 and value.strip("/"):
                pages.setdefault(name, []).append((parts, label, value.strip("/")))
    return {
        name: [(label, value) for parts, label, value in shown if parts or len(shown) >= 2]
        for name, shown in pages.items()
    }


def _example_listed(example: str | None) -> list[tuple[str, str]]:
    """The values an example lists, joined by commas ("developer-apps,system-tools"), each
    labelled by its words (system tools): examples of the values the parameter takes."""
    parts = [p for p in (example or "").split(",") if SLUG_VALUE_RE.fullmatch(p)]
    if len(parts) < 2 or len(parts) != len((example or "").split(",")):
        return []
    return [(re.sub(r"[-_]+", " ", part), part) for part in parts]


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
    return [name for name, spec in parameters.items() if ABOVE_RE.search(_spec_text(spec))]


def slots_lent(slots: list[Slot], lent: dict[str, list[tuple[str, str]]]) -> list[Slot]:
    """``slots`` with the values another route lists for a parameter of the same name, where
    one lists none of its own: a setting then, no one's name."""
    return [
        replace(slot, choices=list(lent[slot.name]), subject=False)
        if slot.name in lent and not slot.choices
        else slot
        for slot in slots
    ]
