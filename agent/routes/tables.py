"""Markdown tables of a route's description, read as the values a parameter takes.

Upstream lays a parameter's values out in tables: labels over values (rows alternating), one
value a row under a header (two lists side by side are one), a header alone (values that are
their own labels), a row of values for two parameters (one column each), or tables grouped under
headings that name the value of the parameter before (``grouped_tables``). ``agent.routes.slots``
gives each table to its parameter; ``agent.routes.enums`` reads which value a question names.
"""

import re
from urllib.parse import unquote

TABLE_ROW_RE = re.compile(r"^\s*\|(.+)\|\s*$")
TABLE_RULE_RE = re.compile(r"^[\s|:\-]+$")
# A path value: govt%27s-words is one, and a value of segments, sdws/sdxwlb (a trailing "/" aside)
SLUG_RE = re.compile(
    r"(?:[A-Za-z0-9_.\-]|%[0-9A-Fa-f]{2})+(?:/(?:[A-Za-z0-9_.\-]|%[0-9A-Fa-f]{2})+)*/?"
)
# Between two ways to give one value in a cell: "1 或 `kydt`", "`hot` or `popular`"
EITHER_RE = re.compile(r"\s+(?:\u6216|or)\s+")
# A cell saying the value is left out: "(empty)", "(none)", 空, 留空, "-"
EMPTY_CELL_RE = re.compile(r"\((?:empty|none|blank)\)|\u7559?\u7a7a|-", re.I)
# A column header naming the values: "Id", "parameter", "value", "slug", 参数, 值
VALUE_HEADER_RE = re.compile(
    r"\s*(?:id|ids|value|values|parameter|param|slug|code|key|参数|参数值|值|代码|取值)\s*", re.I
)
# A header naming a column of values by a parameter's name: colId, feedId
PARAM_HEADER_RE = re.compile(r"\s*[a-z]{2,}(?:[A-Z][a-z]+)+\s*")  # not iOS, iPhone, macOS
CODE_RE = re.compile(r"[_\-\d]")
CJK_WORD_RE = re.compile(r"[\u4e00-\u9fff]{1,6}")
ALIKE_RE = re.compile(r"[\s_\-]")
MD_LINK_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)")
LINK_TARGET_RE = re.compile(r"\[[^\]]*\]\(([^)\s]*)\)")
# Markup around a table's caption line: "::: info Topic", "## Categories", "**分区**"
CAPTION_MARKUP_RE = re.compile(r"^\s*(?::::\s*(?:tip|info|warning|details)?|#+)|[*:]", re.I)
MD_ESCAPE_RE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~])")
# A heading naming a value over its tables: a label (not only Latin: "Language codes" is a
# caption), the value, perhaps its path as a link: "证券・资本・理财 jinrong [`/eeo/jinrong`](...)".
GROUP_HEADING_RE = re.compile(
    r"^\s*(\**(?=[^|`\[\]]*[^\x00-\x7f])[^|`\[\]]+?\**)\s+([a-z][a-z0-9_\\\-]*)"
    r"\s*(?:\[`/[^`\]]+`\]\([^)]*\))?\s*$"
)


def description_table(description: str) -> list[tuple[str, str]]:
    """(label, value) pairs from all the markdown tables of a route description."""
    return [pair for block in table_blocks(description) for pair in block]


def table_blocks(description: str) -> list[list[tuple[str, str]]]:
    """(label, value) pairs of each markdown table of a route description."""
    return [pairs for _caption, pairs in captioned_tables(description)]


STRUCK_ROW_RE = re.compile(r"^[ \t]*\|(?:[ \t]*~~[^|\n]*~~[ \t]*\|)+[ \t]*\n", re.M)


def captioned_tables(description: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each markdown table of a route description as its caption (the line said just above it,
    and a one-value-a-row table's header: "Language codes", "| Category | Slug |") and its
    (label, value) pairs.

    Upstream lays them out two ways. Rows of labels may alternate with rows of values (or
    values over labels, when only the upper row reads as values). Otherwise a table lists one
    value a row under a header: the value is the first column whose cells all read as values,
    each other column a label for it. ``[text](url)`` cells count as their text.
    """
    blocks = []
    # a row struck through (| ~~multiple~~ | ~~Multiple~~ |) lists a value no longer served
    description = STRUCK_ROW_RE.sub("", description or "")
    for caption, table in _table_rows(description):
        rows = _unfolded(table)
        # a header alone lists values that are their own labels (| 论文 | 时评 |), as does a
        # grid of short Chinese words alone ("热门标签": | 小说 | 文学 | ... over | 传记 | ...)
        grid = all(CJK_WORD_RE.fullmatch(cell) for row in rows for cell in row if cell)
        if len(rows) == 1 or (grid and len(table) == len(rows)):
            blocks.append((caption.strip(), [(c, c) for row in rows for c in row if c]))
            continue
        # one column of words under a header: values that are their own labels (not links to
        # pages: "| [日本語](https://jp.yna.co.kr/...) |")
        if len(rows) >= 3 and max(len(row) for row in rows) == 1:
            if not any(f"[{row[0]}](" in description for row in rows):
                pairs = [(row[0], row[0]) for row in rows[1:] if row[0]]
                blocks.append((" ".join([caption, *rows[0]]).strip(), pairs))
            continue
        listed = rows is not table or not _alternating(rows)  # lists side by side: one a row
        pairs = _listed(rows)
        # every cell a word ("| Business | business |"): one a row when that reading pairs
        # each label with its own value more often than rows in turn do
        listed = listed or (pairs is not None and _alike(pairs) > _alike(_alternated(rows)))
        if not listed:
            pairs = _alternated(rows)
        elif pairs is not None:  # its header names its columns ("| Category | Slug |")
            caption = " ".join([caption, *rows[0]])
        else:  # neither rows nor a column of values: links to pages ("| [日本語](...) |")
            continue
        if pairs:
            blocks.append((caption.strip(), pairs))
    return blocks


def grouped_tables(description: str) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """A description that heads each table with the value of the parameter before the one it
    lists ("スポーツ sports" over baseball, soccer...; "证券・资本・理财 jinrong [`/eeo/jinrong`]"
    over 债市 zhaishi...): each heading's label, value and the (label, value) pairs of the
    tables under it (none for a heading alone: "トップ top"). Empty unless two headings or more
    head a table."""
    headings: list[tuple[str, str, list[str]]] = []  # each with the lines under it
    for line in (description or "").splitlines():
        if heading := GROUP_HEADING_RE.match(line):
            value = MD_ESCAPE_RE.sub(r"\1", heading.group(2))
            headings.append((heading.group(1).strip(" *"), value, []))
        elif headings:
            headings[-1][2].append(line)
    groups = [
        (label, value, description_table("\n".join(lines))) for label, value, lines in headings
    ]
    return groups if sum(bool(pairs) for _label, _value, pairs in groups) >= 2 else []


def _unfolded(rows: list[list[str]]) -> list[list[str]]:
    """A table laid out as two lists side by side ("| News type | Value | News type | Value |")
    as one list: each row's second pair under its first."""
    header = rows[0]
    if len(rows) < 2 or len(header) < 4 or len(header) % 2 or header[:2] != header[2:4]:
        return rows
    width = len(header)
    pairs = [row[i : i + 2] for row in rows[1:] for i in range(0, width, 2)]
    return [header[:2], *(pair for pair in pairs if len(pair) == 2 and any(pair))]


def _alternated(rows: list[list[str]]) -> list[tuple[str, str]]:
    """Pairs of rows of labels and rows of values in turn (values over labels, when only the
    upper row reads as values)."""
    pairs = []
    for labels, values in zip(rows[0::2], rows[1::2], strict=False):
        swapped = _slug_count(labels) > _slug_count(values)  # values over labels
        paths = any(cell.startswith("/") for cell in values)  # examples: not labels
        # or codes over words, both slugs alike: | zh_CN | ja_JP | over | Chinese | Japanese |
        coded = _code_count(values) == 0 and _code_count(labels) == len([c for c in labels if c])
        if (swapped and not _all_slugs(values) and not paths) or (coded and any(labels)):
            labels, values = values, labels
        pairs.extend((lab, val) for lab, val in zip(labels, values, strict=False) if val)
    return pairs


def _alike(pairs: list[tuple[str, str]]) -> int:
    """How many pairs label a value by the value itself, case and separators aside."""
    return sum(
        ALIKE_RE.sub("", label.casefold()) == ALIKE_RE.sub("", value.casefold())
        for label, value in pairs
    )


def value_header(cell: str) -> bool:
    """A header naming a column of values: "Id", "value", 参数, or a parameter's name."""
    return bool(VALUE_HEADER_RE.fullmatch(cell) or PARAM_HEADER_RE.fullmatch(cell))


def _alternating(rows: list[list[str]]) -> bool:
    """Rows of labels and rows of values in turn (two rows are read so, unless the upper one
    heads columns: "| 公告类别 | colId |")."""
    if len(rows) == 2 and any(value_header(cell) for cell in rows[0]):
        return False
    if len(rows) <= 2:
        return True
    odd, even = rows[1::2], rows[0::2]
    return all(_all_slugs(r) for r in odd) != all(_all_slugs(r) for r in even)


def value_columns(description: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """A table listing values of two parameters or more a row ("| 类型中文 | 召回类型 ID1 | 召回
    类型 ID2 |"): each column of values past the first, as its header and (label, value) pairs,
    its labels the row's other cells that are not values."""
    found = []
    for _caption, table in _table_rows(description or ""):
        rows = _unfolded(table)
        body, slugs, width = _value_columns(rows)
        labels = [i for i in range(width) if i not in slugs]
        for at in slugs[1:] if labels else ():
            pairs = [
                (row[i], row[at])
                for row in body
                for i in labels
                if row[i] and row[at] and not row[i].startswith(":")  # `:lang` names, not labels
            ]
            if pairs:
                found.append((rows[0][at] if at < len(rows[0]) else "", pairs))
    return found


def _listed(rows: list[list[str]]) -> list[tuple[str, str]] | None:
    """Pairs of a one-value-a-row table, or None when no column reads as values."""
    body, slugs, width = _value_columns(rows)
    # of two columns of words, the one its header calls the value ("| Language | Id |")
    named = [i for i in slugs if i < len(rows[0]) and value_header(rows[0][i])]
    slugs = named[:1] + [i for i in slugs if i not in named[:1]]
    labels = [i for i in range(width) if i not in slugs[:1]]
    if not slugs or not labels:
        return None
    at = slugs[0]
    return [
        (row[i], row[at])
        for row in body
        for i in labels
        if row[i] and row[at] and SLUG_RE.fullmatch(row[at].removeprefix("/"))
    ]


def _value_columns(rows: list[list[str]]) -> tuple[list[list[str]], list[int], int]:
    """A table's rows under its header, the columns whose cells all read as values, and the
    width every row has."""
    body = [row for row in rows[1:] if any(row)]
    width = min((len(row) for row in body), default=0)
    columns = [[row[i] for row in body] for i in range(width)]
    slugs = [i for i, cells in enumerate(columns) if _all_slugs(cells) and any(cells)]
    if not slugs:  # a long column of values but one ("NYC CCS MAGAZINE"): its values
        slugs = [i for i, cells in enumerate(columns) if _all_but_one_slug(cells)]
    return body, slugs, width


def _all_but_one_slug(cells: list[str]) -> bool:
    filled = [cell for cell in cells if cell]
    return len(filled) >= 5 and _slug_count(filled) == len(filled) - 1


def _table_rows(description: str) -> list[tuple[str, list[list[str]]]]:
    """The tables of a description, each with the text line said last before it and its rows
    of cleaned cells (rules left out)."""
    blocks: list[tuple[str, list[list[str]]]] = [("", [])]
    said = ""
    for line in description.splitlines():
        match = TABLE_ROW_RE.match(line)
        if match is None:
            if blocks[-1][1]:
                blocks.append(("", []))
            if text := CAPTION_MARKUP_RE.sub(" ", line).strip():
                said = text
                blocks[-1] = (said, blocks[-1][1])
        elif not TABLE_RULE_RE.match(line):
            cells = (_cell_text(cell) for cell in match.group(1).split("|"))
            blocks[-1][1].append(list(cells))
    return [block for block in blocks if block[1]]


def _cell_text(cell: str) -> str:
    """A cell as text: ``[text](url)`` as its text, markdown escapes undone
    (``movie\\_weekly\\_best`` is ``movie_weekly_best``), a value given two ways ("1 或
    `kydt`") as the first, and one said to be left out ("(empty)") as none."""
    text = MD_ESCAPE_RE.sub(r"\1", MD_LINK_RE.sub(r"\1", cell)).strip(" `")
    # a link to its own path ("[投资通 / 盘前情报](.../投资通/盘前情报)"): as the path writes it
    if (link := LINK_TARGET_RE.fullmatch(cell.strip())) and " / " in text:
        joined = re.sub(r"\s*/\s*", "/", text)
        text = joined if unquote(link.group(1)).endswith("/" + joined) else text
    if EMPTY_CELL_RE.fullmatch(text):
        return ""  # the value left out, "(empty)" or 留空 for the home page: no value to write
    ways = [way.strip(" `") for way in EITHER_RE.split(text)]
    return ways[0] if len(ways) > 1 and all(SLUG_RE.fullmatch(way) for way in ways) else text


def _slug_count(cells: list[str]) -> int:
    """How many cells read as path values: the row of values has more ("| 其他任意值 | mto |")."""
    return sum(SLUG_RE.fullmatch(cell) is not None for cell in cells if cell)


def _code_count(cells: list[str]) -> int:
    """How many cells read as codes rather than words: zh_CN, t-week, 24, rss2."""
    return sum(bool(SLUG_RE.fullmatch(cell) and CODE_RE.search(cell)) for cell in cells if cell)


def _all_slugs(cells: list[str]) -> bool:
    """Cells that read as path values (``it``, ``hot-list``, ``24``) or as the route paths
    that give them (``/podcast/nl-hafta``) rather than labels."""
    return all(SLUG_RE.fullmatch(cell.removeprefix("/")) for cell in cells if cell)


def table_rows(text: str) -> list[list[list[str]]]:
    """Each table in ``text`` as its rows of cells stripped of spaces, rules left out."""
    blocks: list[list[list[str]]] = [[]]
    for line in text.splitlines():
        if not (match := TABLE_ROW_RE.match(line)):
            if blocks[-1]:
                blocks.append([])
        elif not TABLE_RULE_RE.match(line):
            blocks[-1].append([cell.strip() for cell in match.group(1).split("|")])
    return [block for block in blocks if block]


def table_cells(text: str) -> list[list[str]]:
    """The rows of the tables in ``text`` as their cells stripped of spaces, rules left out
    (a table of a query's keys reads its own headers)."""
    return [row for block in table_rows(text) for row in block]


def query_table_values(text: str) -> list[tuple[str, str]]:
    """The pairs a table of a query's keys offers ("| Key | Description | Accepts | ... |",
    "| `serpType` | Search type | `tags`/`default`/`recent` |"): each accepted value labelled
    by itself and by its key's words, as ``key=value``. None when no such table."""
    rows = table_cells(text)
    if not rows:
        return []
    header = [cell.casefold() for cell in rows[0]]
    key_at = next((i for i, cell in enumerate(header) if cell in ("key", "parameter")), None)
    accepts_at = next((i for i, cell in enumerate(header) if cell.startswith("accept")), None)
    if key_at is None or accepts_at is None:
        return []
    found = []
    for row in rows[1:]:
        if len(row) <= max(key_at, accepts_at) or not (
            key := re.fullmatch(r"`(\w+)`", row[key_at])
        ):
            continue
        for value in re.findall(r"`([\w.\-]+)`", row[accepts_at]):
            found.append((value, f"{key.group(1)}={value}"))
    return found
