"""The values a route's description documents for each of its parameters, and what it says of
them: which parameter each table lists (by the example's value it holds, its caption, its
header, the default it lists, the table it follows), the pages it shows how to subscribe to,
the values its prose lists, a parameter's documented default. ``agent.routes.slots`` reads a
route's parameters with them."""

import re
from urllib.parse import unquote

from agent.routes.listed import inline_values, options_of
from agent.routes.tables import MD_LINK_RE, captioned_tables, value_columns, value_header
from catalog.search_terms import word_stem
from catalog.segment import zh_simplified
from fetching.paths import rest_parameters, template_values

# Parameters whose name says they choose a setting, not a subject (by their last word).
SETTING_WORDS = frozenset(
    str.split(
        """type types category categories caty cate cat catalog class classify kind sort sorting
    order orderby by lang language locale period time range timeframe since region area country
    section tab mode filter status state format limit limits count embed rank ranking params
    routeparams options view level sub subcategory important score only"""
    )
)
# Backticked values one after another, commas between: "`apache`, `apache.ooo`, `kernel`"
_TICKED = r"`[A-Za-z0-9_.\-]{1,40}`"
BACKTICKED_RE = re.compile(r"`([A-Za-z0-9_.\-]{1,40})`")
BACKTICK_LIST_RE = re.compile(rf"{_TICKED}(?:\s*[,\uff0c\u3001]\s*{_TICKED}){{2,}}")
# A value and its Chinese label joined by a hyphen, in a list: "wuxia-武侠, kehuan-科幻"
VALUE_LABEL_RE = re.compile(r"(?<![\w-])([a-z0-9]+)-([\u4e00-\u9fff]{1,10})(?=[,\uff0c\u3001\s]|$)")
# Values one after another, a bar between, said after a colon: "Categories: all | desinfo | ..."
PIPE_LIST_RE = re.compile(
    r"^[^\n:|`]{2,40}:[ \t]*([\w.\-]+(?:[ \t]*\|[ \t]*[\w.\-]+){2,})[ \t]*$", re.M
)
PART_RE = re.compile(r"[A-Za-z0-9_.\-]+")  # one parameter's part of a path value
SLUG_VALUE_RE = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
TABLE_POINTER_RE = re.compile(r"下表|表格|如下|以下|table|below", re.I)
# A caption naming a query key in parentheses at its end: "游戏集合 (collection)"
QUERY_KEY_CAPTION_RE = re.compile(r"[(\uff08]([A-Za-z_][\w\[\]]{0,30})[)\uff09]\s*$")
# A description's page to subscribe to, linked, and the route path it shows for it
PARAGRAPH_RE = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.) )")
# or, with no link, the page an item of a list names first ("1. 新闻快讯页面的链接中 ...")
LEAD_LABEL_RE = re.compile(
    r"\s*\d+\.\s+([^`\n,:\uff0c\uff1a\u3002]{2,20}?)(?:\u9875\u9762|\u9875|\u7684\u94fe\u63a5)"
)
PAGE_LINK_RE = re.compile(r"\[([^\]`]+)\]\(https?://[^)\s]+\)")
SHOWN_PATH_RE = re.compile(r"`(/[^`\s]+)`")
LABEL_JOIN_RE = re.compile(r"\s+[-\u2013\u2014/]\s+")
MAX_CAPTION = 20  # characters a table's caption has at most to label its values
# and to name its parameter: a paragraph before a table ("... `t_id` 对应 `tid` 的值为 277 ...")
# is no caption of it
MAX_CAPTION_NAMING = 80
# A cell of markup, no value: "<u>*No parameter*</u>", "abbr`parameter"
MARKUP_VALUE_RE = re.compile(r"[`<>*]")
NAME_WORD_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
DEFAULT_RES = [
    re.compile(
        r"(?:默认|缺省)(?:为|是|值为|值是|使用|采用|[:\uff1a])?\s*[`\u201c\u300c]?([\w.\-]+)[`\u201d\u300d]?"
    ),
    re.compile(r"defaults?(?: value)?(?: is| to|:|\s*=)\s*`?([\w.\-]+)`?", re.I),
    re.compile(r"\bfills? in (?:the )?`?([\w.\-]+)`?", re.I),
    re.compile(r"`([\w.\-]+)`\s*(?:by default|as (?:the )?default)", re.I),  # "`0` by default"
    re.compile(r"\b([A-Za-z][\w.\-]*) by default", re.I),  # "English by default": a label
]
# A default that is no value: "Filter, empty by default", "默认为空"
NO_VALUE = frozenset(("empty", "blank", "空"))


def words_of(name: str) -> list[str]:
    return [w.lower() for w in NAME_WORD_RE.findall(name.replace("_", " "))]


def spec_text(spec: object) -> str:
    text = spec.get("description", "") if isinstance(spec, dict) else spec
    return text if isinstance(text, str) else ""


def default_of(name: str, spec: object, description: str) -> str | None:
    if isinstance(spec, dict) and isinstance(spec.get("default"), str) and spec["default"]:
        return spec["default"]
    for pattern in DEFAULT_RES:
        if match := pattern.search(spec_text(spec)):
            return None if match.group(1).casefold() in NO_VALUE else match.group(1)
    use = re.search(rf"[Uu]se `([\w.\-]+)` as (?:the )?`?{re.escape(name)}\b", description)
    return use.group(1) if use else None


# A value written after its key in a route's path: "/workshopsearch/730/l=schinese"
WRITTEN_PAIR_RE = re.compile(r"/([A-Za-z_]\w{0,15})=([\w-]+)")


def tables_owned(
    template: str, names: list[str], parameters: dict, description: str, example: dict
) -> dict:
    """Each description table goes to the parameter whose example value it lists (of several,
    one listing no values of its own and given no table yet), else to the one its header row
    names, else to the one its caption names ("Language codes", "| 分类 |" for 帖子分类), else
    on listing the table right above it, else to the one after a parameter one of whose values
    the caption labels, else to the one whose default it lists, else to the
    first parameter whose description points at a table, else to the first setting
    parameter. Route paths a table shows give their own parameters their values."""
    settings = [n for n in names if words_of(n)[-1:] and words_of(n)[-1] in SETTING_WORDS]
    pointing = [n for n in names if TABLE_POINTER_RE.search(spec_text(parameters.get(n)))]
    unlisted = [n for n in names if not inline_values(spec_text(parameters.get(n)), example.get(n))]
    tables: dict[str, list[tuple[str, str]]] = {}
    captions: dict[str, list[tuple[str, tuple[str, str]]]] = {}
    previous = None
    for caption, block in captioned_tables(description):
        # example paths are no values, nor a row header naming the parameter (`:lang`), but
        # the values of the route they show are ("| NL Hafta | [/podcast/nl-hafta](...) |")
        shown = _shown_values(template, block)
        for label, (name, value) in shown:
            tables.setdefault(name, []).append((label, value))
        read = {label for label, _item in shown}  # their values are read above
        pairs = [
            (label, v)
            for label, v in block
            if not v.startswith(("/", ":")) and not MARKUP_VALUE_RE.search(v) and label not in read
        ]
        values = {v for _label, v in pairs}
        # of parameters whose example it lists, one whose description lists none of its own
        # and no table gave values yet (hoyolab's gids, then its type: both example 2)
        owners = [n for n in names if example.get(n) in values]
        fresh = [n for n in owners if n in unlisted]
        owner = next((n for n in fresh if n not in tables), None) or next(iter(fresh), None)
        owner = owner or next(iter(owners), None)
        # or the one its header row names ("| Category Name | `category` parameter |")
        owner = owner or next((n for n in names if _header_names(block, n)), None)
        # or the one a row names before its values ("| period | daily | weekly |" under
        # "| 参数名称 | 日榜 | 周榜 |"), that cell no value of it
        if len(names) >= 2 and (row_named := [n for n in names if n in values]):
            owner = owner or row_named[0]
            pairs = [(label, v) for label, v in pairs if v not in row_named]
        captioned = [
            (score, -i, n)
            for i, n in enumerate(names)
            if len(caption) <= MAX_CAPTION_NAMING and (score := _captioned(n, parameters, caption))
        ]
        owner = owner or (max(captioned)[2] if captioned else None)
        defaulted = [n for n in names if default_of(n, parameters.get(n), description) in values]
        # a table right under another, no caption of its own, goes on listing that one's,
        # unless it lists another's default (TapTap's sorts, 默认为 `created`, under its boards)
        if not caption and previous and defaulted and previous not in defaulted:
            owner = owner or defaulted[0]
        owner = owner or (previous if not caption and previous else None)
        # one captioned by a value's label of a parameter lists the next one's (Kantar's
        # "#### Taiwan" tables list categories of the Taiwan region)
        owner = owner or _next_of_labelled(caption, names, tables)
        # or the one parameter pointing at a table ("分类见下表"), before one whose default
        # it lists (无产者评论's 全部文章)
        owner = owner or (pointing[0] if len(pointing) == 1 else None)
        # or the one whose documented default it lists (热搜榜 realtime: 榜单, 默认为 realtime)
        owner = owner or next(iter(defaulted), None)
        # or the one parameter whose example is written as the table's values are (bilibili's
        # :tid, 33, for tables of numbers; not :embed, a setting taking any value)
        owner = owner or _shaped_as(names, example, values)
        owner = owner or next(iter(pointing + settings), None)
        owner = owner or (names[0] if len(names) == 1 else None)  # the one it can list
        previous = owner
        key = _query_key(caption, example.get(owner)) or _key_written(description, values)
        if owner and pairs and key:
            pairs = [(label, f"{key}={value}") for label, value in pairs]
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


def _shaped_as(names: list[str], example: dict, values: set[str]) -> str | None:
    """The one parameter whose example is a number of about as many digits as ``values``
    have, when all of them are numbers (a user's id of ten is no type's of one or two)."""
    if not values or not all(v.isdigit() for v in values):
        return None
    digits = {len(v) for v in values}
    shaped = [
        n
        for n in names
        if (written := example.get(n) or "").isdigit()
        and min(digits) - 1 <= len(written) <= max(digits) + 1
    ]
    return shaped[0] if len(shaped) == 1 else None


def _query_key(caption: str, example: str | None) -> str | None:
    """The query key a table's caption names for a parameter written as a query ("游戏集合
    (collection)" over 3kns's ``category=all&lang=all``): its values are written ``key=value``."""
    key = QUERY_KEY_CAPTION_RE.search(caption)
    return key.group(1) if key and "=" in (example or "") else None


def _key_written(description: str, values: set[str]) -> str | None:
    """The key the description writes a table's value after, as a route's query (Steam's
    ``/workshopsearch/730/l=schinese``): its values are written ``key=value``."""
    for key, value in WRITTEN_PAIR_RE.findall(description):
        if value in values:
            return key
    return None


def _next_of_labelled(caption: str, names: list[str], tables: dict) -> str | None:
    labelled = [i for i, n in enumerate(names[:-1]) if caption in dict(tables.get(n, []))]
    return names[labelled[0] + 1] if caption and labelled else None


def _header_names(block: list[tuple[str, str]], name: str) -> bool:
    return (
        bool(block)
        and re.fullmatch(rf"`?{re.escape(name)}`?\s*parameter", block[0][1], re.I) is not None
    )


def _shown_values(template: str, block: list[tuple[str, str]]) -> list[tuple[str, tuple[str, str]]]:
    """The labels of a table's route paths ("/podcast/nl-hafta", with or without the
    namespace), each with the one parameter and value the path gives the route; or of values
    that span the route's parameters (cbpanet's ``2/8``: bigId 2, smallId 8), each value."""
    namespace = "/" + template.strip("/").split("/")[0]
    literal = template.split("/:", 1)[0]  # the route's path before its parameters
    found = []
    # a table whose values are one segment and two alike lists one parameter's values, the
    # slashed among them whole (Kantar's ``news``, ``publications/China-Insights``)
    single = any("/" not in path for label, path in block if label != path)
    for label, path in block:
        if label == path or "/" not in path:
            continue
        if path.startswith("/"):
            full = path if path.startswith(namespace + "/") else namespace + path
        else:
            full = f"{literal}/{path}"
        values = {k: unquote(v) for k, v in template_values(template, full).items() if v}
        # values that span parameters are each a value, none a placeholder (关键词)
        spans = len(values) == path.count("/") + 1 and all(map(PART_RE.fullmatch, values.values()))
        if len(values) == 1 or (not path.startswith("/") and spans and not single):
            found += [(label, item) for item in values.items()]
    return found


def _caption_labelled(pairs: list[tuple[str, tuple[str, str]]]) -> list[tuple[str, str]]:
    """A label two tables give different values, labelled with each table's caption too: 管理
    科学部's 通知公告 (``glkxb-tzgg``) is "管理科学部 通知公告", 基金要闻's (``tzgg``) "基金要闻
    通知公告"."""
    values: dict[str, set[str]] = {}
    for _caption, (label, value) in pairs:  # in either script: 市場報告 is 市场报告
        values.setdefault(zh_simplified(label), set()).add(value)
    return [
        (f"{caption} {label}", value)
        for caption, (label, value) in pairs
        if len(values[zh_simplified(label)]) > 1 and 0 < len(caption) <= MAX_CAPTION
    ]


def _captioned(name: str, parameters: dict, caption: str) -> int:
    """How much the caption names the parameter (0: not at all): a word of its name
    ("Categories" for :category), or the caption's Chinese words in its description (分类 in
    "帖子分类, 见下表"; "分类`hot`下的子类" is more :subcate's, "hot 分类下的子类", than
    :category's, 文章专题分类), counted in characters."""
    said = {word_stem(w) for w in re.findall(r"[a-z]{3,}", caption.lower())}
    named = sum(len(w) for w in words_of(name) if len(w) >= 3 and word_stem(w) in said)
    spec = spec_text(parameters.get(name))
    return named + sum(
        len(run) for run in re.findall(r"[\u4e00-\u9fff]{2,}", caption) if run in spec
    )


def values_listed(
    names: list[str], parameters: dict, tables: dict, example: dict
) -> dict[str, list[tuple[str, str]]]:
    """Each parameter's values: its upstream options, else those its own description lists
    with a table's; values listed where another parameter is named are that one's ("For
    `threads` sections, set user ID" lists values of :section, not of :value)."""
    choices = {}
    for name in names:
        spec = parameters.get(name)
        inline = inline_values(spec_text(spec), example.get(name))
        # a table's heading row read as a pair ("| 栏目 | ..." over "| 代码 | ...") lists nothing
        table = [c for c in tables.get(name, []) if c[1].isascii() or not value_header(c[1])]
        choices[name] = options_of(spec) or list(dict.fromkeys(inline + table))
    for name in names:
        text = spec_text(parameters.get(name)).lower()
        for other in (n for n in names if n != name and _named_in(n, text)):
            theirs = {value for _label, value in choices[other]}
            if not options_of(parameters.get(name)):
                choices[name] = [c for c in choices[name] if c[1] not in theirs]
    return choices


def _named_in(name: str, text: str) -> bool:
    words = words_of(name)
    return len(words) == 1 and len(words[0]) > 3 and re.search(rf"\b{words[0]}", text) is not None


def described_values(description: str, example: str | None) -> list[tuple[str, str]]:
    """Values the route's description lists outside a table, when the parameter's example is
    one of three or more of them: backticked, one after another ("Supported site identifiers:
    [`apache`](...), [`kernel`](...)"), or each with its label after a hyphen
    ("jinqigengxin-近期更新,wuxia-武侠")."""
    if not example:
        return []
    text = MD_LINK_RE.sub(r"\1", description)  # [`kernel`](https://...) is `kernel`
    runs = [run.group(0) for run in BACKTICK_LIST_RE.finditer(text)]
    piped = [re.split(r"\s*\|\s*", run) for run in PIPE_LIST_RE.findall(text)]
    for found in (
        *([(value, value) for value in BACKTICKED_RE.findall(run)] for run in runs),
        [(label, value) for value, label in VALUE_LABEL_RE.findall(description)],
        *([(value, value) for value in run] for run in piped),
    ):
        values = {value for _label, value in found}
        if len(values) >= 3 and example in values:
            return found
    return []


def linked_pages(template: str, description: str) -> dict[str, list[tuple[str, str]]]:
    """The pages a description shows how to subscribe to, by parameter: each paragraph's first
    linked page, labelled, and the values of the route path it shows ("若订阅子分类 [大陆资讯 -
    热门](https://bad.news/tag/...)... 路由为 [`/bad/tag/大陆资讯/sort-hot`]": 大陆资讯 热门 is
    ``tag/大陆资讯/sort-hot``). A label shown for two paths labels neither; a parameter shown
    one page only takes it by a label of its parts ("肿瘤 - NSCLC", not "Potplayer Update
    History": the route's own name labels no value)."""
    found: list[tuple[str, bool, dict[str, str], str]] = []
    for paragraph in _paragraphs(description):
        link = PAGE_LINK_RE.search(paragraph) or LEAD_LABEL_RE.match(paragraph)
        shown = [template_values(template, unquote(p)) for p in SHOWN_PATH_RE.findall(paragraph)]
        if link and (shown := [values for values in shown if values]):
            label, parts = LABEL_JOIN_RE.subn(" ", link.group(1))
            found.append((label.strip(), parts > 0, shown[-1], unquote(link.group(0))))
    labels = [label for label, _parts, _values, _address in found]
    # or a parameter taking the rest of a path, by the label of a page whose address holds it
    # (全国社科规划办's "年度项目、青年项目和西部项目" is ``GB/219469/431027``)
    rest = rest_parameters(template)
    pages: dict[str, list[tuple[bool, str, str]]] = {}
    for label, parts, values, address in found:
        for name, value in values.items():
            if labels.count(label) == 1 and value.strip("/"):
                held = name in rest and _held(value.strip("/"), address)
                pages.setdefault(name, []).append((parts or held, label, value.strip("/")))
    return {
        name: [(label, value) for parts, label, value in shown if parts or len(shown) >= 2]
        for name, shown in pages.items()
    }


def _paragraphs(description: str) -> list[str]:
    """The description's paragraphs, a paragraph of lines that each link a page and show its
    path ("若订阅 [热点聚焦](...)... 路由为 `/keylol/f161-1`" a line, then its sub-category's)
    as its lines."""
    found = []
    for paragraph in PARAGRAPH_RE.split(description):
        lines = paragraph.split("\n")
        each = [line for line in lines if PAGE_LINK_RE.search(line) and SHOWN_PATH_RE.search(line)]
        found.extend(each if len(each) >= 2 else [paragraph])
    return found


def _held(value: str, address: str) -> bool:
    """The page's address holds the value, its first segment as the host's first label or not
    (茂名's ``www/xwzx/zcjd`` is ``http://www.mmht.gov.cn/xwzx/zcjd/``)."""
    first, _sep, rest = value.partition("/")
    return value in address or (bool(rest) and rest in address and f"//{first}." in address)


def example_listed(example: str | None) -> list[tuple[str, str]]:
    """The values an example lists, joined by commas ("developer-apps,system-tools"), each
    labelled by its words (system tools): examples of the values the parameter takes."""
    parts = [p for p in (example or "").split(",") if SLUG_VALUE_RE.fullmatch(p)]
    if len(parts) < 2 or len(parts) != len((example or "").split(",")):
        return []
    return [(re.sub(r"[-_]+", " ", part), part) for part in parts]
