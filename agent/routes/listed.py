"""The values a route's documentation lists for a parameter.

Upstream lists them three ways: the parameter's ``options``, markdown tables in the route
description (read by ``agent.routes.tables``), and a list in the parameter's own description:
backticked values ("can be `all`, `owner`"), values listed bare with their labels, a range by
its ends (n1~n6), the one value it supports. Which of them a question names is
``agent.routes.enums``'s to say.
"""

import re
from typing import Any

# A backticked value, and the label in parentheses (full-width or not) that may follow it
INLINE_VALUE_RE = re.compile(
    r"`([A-Za-z0-9_.\-]{1,40}|[\u4e00-\u9fff]{1,12})`(?:\s*[(\uff08]([^()\uff08\uff09`]{1,20})[)\uff09]"
    # or one said to be it: "`answer` 即 `回复`", "`0` 即 最新回复", "`2` 指全站热贴",
    # "`qs` 为求是", "`tchina` = 繁體中文"
    r"|\s*(?:[即指为為=]|代表|表示)\s*`?([^`\s\uff0c,\u3002;\uff1b()\uff08\uff09]{1,20})`?"
    # or a Chinese label right after it: "默认`1`全部快讯 ... 可设置为`2`只看重要的", "`tags` 标签"
    # (up to an "or": "`categories` 分类或 `tags` 标签")
    r"|\s?([\u4e00-\u9fff][^\s\uff0c,\u3002;\uff1b`()\uff08\uff09\u6216\u3001]{0,11})"
    # or a label it is "for" or "as": "`en-hk` for Hong Kong English", "`jp` as Japanese"
    r"|\s+(?:for|as)\s+([A-Z][A-Za-z ]{1,30}?)(?=\s*(?:[,;.]|$|\s+(?:and|or)\b))"
    # or an English label after a colon: "`0`: Recommended, `1`: Not Recommended"
    r"|\s*:\s*([A-Z][A-Za-z ]{1,30}?)(?=\s*(?:[,;.|]|$)))?"
)
# or a quoted label said to be it, before it: "“跟贴榜”对应`follow`"
LABEL_BEFORE_RE = re.compile(
    r"[\u201c\"\u300c]([^\u201d\"\u300d`]{1,12})[\u201d\"\u300d]\s*"
    r"(?:\u5bf9\u5e94|\u5c0d\u61c9)(?:\u4e3a|\u70ba)?\s*`([A-Za-z0-9_.\-]{1,40})`"
)
# Numbers glued to their labels, in a list: "0所有时间(默认), 1最近一周"
NUMBER_LABEL_RE = re.compile(r"(?:^|(?<=[\s,\uff0c\u3001;\uff1b]))(\d{1,3})([\u4e00-\u9fff]{2,12})")
# Labels listed with slashes, then their values in the same order: "剧集/电影, tv或movie"
PARALLEL_RE = re.compile(
    r"([\u4e00-\u9fff]{1,8}(?:[/\uff0f\u3001][\u4e00-\u9fff]{1,8})+)[\s,\uff0c:\uff1a]*"
    r"([a-z0-9_\-]{1,20}(?:\s*(?:[/\u3001\u6216]|\bor\b)\s*[a-z0-9_\-]{1,20})+)"
)
# One value to fill in for a feature, its label after it: "填入 `pre` 以包含预发布版本".
FLAG_VALUE_RE = re.compile(
    r"(?:填入|填写|设为|设置为|\bset(?:\s+(?:it\s+)?to)?|\bfill\s+in|\buse|\bpass)\s*"
    r"`([A-Za-z0-9_.\-]{1,40})`\s*(?:以|to\s+)?([^\uff0c,\u3002;\uff1b`]{1,20})",
    re.I,
)
# or bare, said to be its label: "填 mm 为起点女生网"
FLAG_BARE_RE = re.compile(
    r"\u586b(?:\u5165|\u5199)?\s*([A-Za-z0-9_\-]{1,20})\s*(?:\u4e3a|\u70ba|\u5373)\s*"
    r"([\u4e00-\u9fff][^\s\uff0c,\u3002;\uff1b`]{1,11})"
)
# A feature asked "whether" first, its value to pass after: "是否获取全文, 需要获取则传入参数`y`"
FLAG_ASKED_RE = re.compile(
    r"\u662f\u5426([^\uff0c,\u3002;\uff1b`]{1,12})[\uff0c,][^`\u3002]{0,16}?"
    r"(?:\u4f20\u5165|\u586b\u5165|\u586b\u5199|\u8bbe\u4e3a|\u8bbe\u7f6e\u4e3a)(?:\u53c2\u6570)?\s*"
    r"`([A-Za-z0-9_.\-]{1,40})`"
)
# The verb a feature's label starts with: 获取全文 is 全文 got, 显示图片 图片 shown
LABEL_VERB_RE = re.compile(r"^(?:\u83b7\u53d6|\u663e\u793a|\u5305\u542b|\u8f93\u51fa|\u5e26)")
# What a feature's value is said to do, no label of it: "set `free` to enable"
SWITCHED_ON = frozenset({"enable", "enable it", "turn it on", "启用", "开启", "打开"})
# "(week, month, year, infinity)": slugs only, no spaces inside one ("e.g. foo" is no list)
PAREN_LIST_RE = re.compile(r"\(\s*([a-z0-9_\-]{1,40}(?:\s*[,/|]\s*[a-z0-9_\-]{1,40})+)\s*\)")
# Values listed bare, each with its label in parentheses, full-width or not: "supported
# values: base (常设展览) or temp (临时展览)", "可选值: tzgg(通知公告), xwzx(新闻资讯)". Read after
# the words that list them and before a default is said ("Default: Current Exhibitions
# (正在展出)" lists nothing).
BARE_PAIR_RE = re.compile(
    r"(?<![\w`])([A-Za-z0-9_\-]{1,40})\s*[(\uff08]([^()\uff08\uff09`]{1,30})[)\uff09]"
)
# A value and its label joined by a colon, in a list: "1:电影, 2:电视剧", "0\uff1a全部"
COLON_PAIR_RE = re.compile(
    r"(?<![\w`/])([A-Za-z0-9_\-]{1,20})\s*[:\uff1a]\s*"
    r"([^\s,\uff0c\u3001;\uff1b:\uff1a/`()\uff08\uff09]{1,20})"
)
# or a label before its value: "所有:all;最新:topicList;热门:jhcpb"
LABEL_COLON_RE = re.compile(
    r"([\u4e00-\u9fff]{1,12})\s*[:\uff1a]\s*([A-Za-z0-9_\-]{1,40})(?![\w-])"
)
# or a value said to be its label, bare: "1 为按推荐排序, 0 为按最新排序"
SAID_PAIR_RE = re.compile(
    r"(?<![\w`])([A-Za-z0-9_\-]{1,20})\s*(?:[\u4e3a\u70ba]|\u4ee3\u8868|\u8868\u793a)\s*"
    r"([\u4e00-\u9fff][^\s,\uff0c\u3001;\uff1b\u3002`()\uff08\uff09]{1,11})"
)
# or a value, a dash and its label: "anime - 动画, book - 图书"
DASH_PAIR_RE = re.compile(r"(?<![\w`-])([A-Za-z0-9_]{1,20})\s+-\s+([\u4e00-\u9fff]{1,12})")
LABEL_PAIR_RE = re.compile(r"([\u4e00-\u9fff]{2,12})\s*[(\uff08]([A-Za-z0-9_\-]{1,40})[)\uff09]")
BARE_LIST_START_RE = re.compile(r"supported values|values?\s*:|可选值?|支持|如", re.I)
SUPPORTED_RE = re.compile(r"supported values?\s*[:\uff1a]", re.I)
# Words saying what follows them in a description, before a colon: no value
SAYS = frozenset(str.split("value values default defaults example examples option options note"))
BARE_LIST_END_RE = re.compile(r"default|默认", re.I)
# The one value a parameter takes: "仅支持 `xsdt`", "only `global` is supported"
ONLY_VALUE_RE = re.compile(
    r"(?:\u4ec5\u652f\u6301|\u53ea\u652f\u6301|\u4ec5\u9650|\bonly(?:\s+supports?)?)\s*`([A-Za-z0-9_.\-]{1,40})`",
    re.I,
)
# A description that is a list and nothing else: "top 或 newest", "hot, new"
WHOLE_LIST_RE = re.compile(
    r"\s*(?:([A-Za-z][A-Za-z ]{0,20}):\s*)?"  # led by what they are: "Topic: all | product"
    r"([a-z0-9_\-]{1,40}(?:\s*(?:,|/|\||\u3001|\u6216|\bor\b)\s*[a-z0-9_\-]{1,40})+)"
    r"(?:\s+[a-z]{3,20})?\s*\.?\s*",  # or followed by what they are: "latest or all episodes."
    re.I,
)
# A range of values said by its ends, a letter before each number or none: "n1~n6", "n1 - n5"
RANGE_RE = re.compile(
    r"(?<![\w-])([a-z]{0,3})(\d{1,2})\s*[~\uff5e\u2013\u81f3\u5230-]\s*\1(\d{1,2})(?!\w)", re.I
)
MAX_RANGE = 20
# "Choose from: date, week, month", "one of hot, new", "可选值 hot、new": a list said in words
SAID_LIST_RE = re.compile(
    r"(?:choose from|one of|either|fill in|c(?:an|ould) be|(?:following|supported) values"
    r"|可选值?|取值)\s*[:\uff1a]?\s*"
    r"([a-z0-9_\-]{1,40}(?:\s*(?:,|/|\||\u3001|\u548c|\u6216|\bor\b|\band\b)\s*[a-z0-9_\-]{1,40})+)",
    re.I,
)


# or a clause of the description that is a list alone: "排序方式, hot或new, 默认为new"
CLAUSE_LIST_RE = re.compile(
    r"(?:^|(?<=[\uff0c,;\uff1b\u3002:\uff1a]))\s*"
    r"([a-z0-9_\-]{1,40}(?:\s*(?:\u6216|\u3001|/|\bor\b|\band\b)\s*[a-z0-9_\-]{1,40})+)"
    r"\s*(?=$|[\uff0c,;\uff1b\u3002]|\s*[(\uff08])"  # (or what it says of them follows)
)
# or values each with its label after a space, listed: "live_time 开播时间, online 人气"
SPACED_PAIR_RE = re.compile(
    r"(?:^|(?<=[\uff0c,;\uff1b\u3001]))\s*([a-z][a-z0-9_\-]{1,30})\s+"
    r"(?![\u4e3a\u70ba\u5373])([\u4e00-\u9fff]{2,12})"  # ("yes 为是" is said to be, above)
    r"(?=\s*(?:$|[\uff0c,;\uff1b\u3001\u3002]))"
)


def options_of(spec: Any) -> list[tuple[str, str]]:
    """(label, value) of a parameter's upstream ``options``."""
    if not isinstance(spec, dict) or not isinstance(spec.get("options"), list):
        return []
    found = []
    for option in spec["options"]:
        if isinstance(option, dict) and isinstance(option.get("value"), str):
            found.append((str(option.get("label") or option["value"]), option["value"]))
    return found


def inline_values(text: str, example: str | None = None) -> list[tuple[str, str]]:
    """Values listed in a parameter's description, when it lists two or more: backticked
    ("can be `all`, `owner`", each with the label in parentheses after it: "`hot` (热门)"),
    else a bare list in parentheses ("Period (week, month, year)") or said as one ("Choose
    from: date, week, month") or with their labels by colons ("1:电影, 2:电视剧", "最新:new") or
    said to be them ("1 为按推荐排序, 0 为按最新排序") or dashed ("anime - 动画"), or a
    description that is a list or a range alone ("top 或 newest", "n1~n6") when ``example``
    (the route example's value) is one of it. A lone value to fill in for a feature comes with
    its label ("填入 `pre` 以包含预发布版本")."""
    found = [(v, "".join(labels)) for v, *labels in INLINE_VALUE_RE.findall(text or "")]
    found += [(v, label) for label, v in LABEL_BEFORE_RE.findall(text or "")]
    values = list(dict.fromkeys(value for value, _label in found))
    if len(values) == 1 and (only := ONLY_VALUE_RE.search(text or "")):
        return [(only.group(1), only.group(1))]  # "频道, 仅支持 `xsdt`": the one value there is
    if len(values) == 1 and (asked := FLAG_ASKED_RE.search(text or "")):
        # "是否获取全文, 需要获取则传入参数`y`": the value does what was asked, 获取全文 (全文)
        label = asked.group(1).strip()
        bare = LABEL_VERB_RE.sub("", label)
        labels = [label] + ([bare] if bare != label and len(bare) >= 2 else [])
        return [(asked.group(2), asked.group(2))] + [(lab, asked.group(2)) for lab in labels]
    if len(values) == 1 and (flag := FLAG_VALUE_RE.search(text or "")):
        label = flag.group(2).strip()  # "set `free` to enable": the value is its own label
        return [(flag.group(1), flag.group(1))] + (
            [(label, flag.group(1))] if label.lower() not in SWITCHED_ON else []
        )
    if not values and (bare := FLAG_BARE_RE.search(text or "")):
        return [(bare.group(1), bare.group(1)), (bare.group(2), bare.group(1))]
    # a description that is a list alone, or a range, lists values only when the route's
    # example takes one of them ("top 或 newest": newest; "userpath or teampath" names kinds)
    whole = WHOLE_LIST_RE.fullmatch(text or "")
    parts = re.split(r"\s*(?:[,/|\u3001\u6216]|\bor\b)\s*", whole.group(2)) if whole else []
    # (or led by what they are, three or more: "Topic: all | product | research")
    if whole and example not in parts and not (whole.group(1) and len(parts) >= 3):
        whole = None
    said = (
        PAREN_LIST_RE.search(text or "")
        or SAID_LIST_RE.search(text or "")
        or _clause_list(text or "")
    )
    listed = said.group(1) if said else whole.group(2) if whole else None
    ranged = _ranged(text or "")
    # "values: special (特展详情). Default: All.": words that say what follows are no values
    colon = [(v, label) for v, label in COLON_PAIR_RE.findall(text or "") if v.lower() not in SAYS]
    # "supported values: special (特展详情)": a list of one, said to be the list
    one_said = int(SUPPORTED_RE.search(text or "") is not None)
    if len(values) < 2 and ranged and example in ranged:  # "(1-5), 1:电影": each with its label
        found, values = [(v, label) for v, label in colon if v in ranged], ranged
    elif len(values) < 2 and len(bare := _bare_pairs(text or "")) >= 2 - one_said:
        found, values = bare, list(dict.fromkeys(value for value, _label in bare))
    elif len(values) < 2 and listed:
        parts = re.split(r"\s*(?:[,/|\u3001\u548c\u6216]|\bor\b|\band\b)\s*", listed)
        values = list(dict.fromkeys(p for p in parts if p))
        found = []
    elif len(values) < 2 and len(colon) >= 2:
        found, values = colon, list(dict.fromkeys(value for value, _label in colon))
    elif len(values) < 2 and len(led := LABEL_COLON_RE.findall(text or "")) >= 2:
        found, values = [(v, label) for label, v in led], list(dict.fromkeys(v for _l, v in led))
    elif len(values) < 2 and len(said := _said_pairs(text or "")) >= 2:
        found, values = said, list(dict.fromkeys(value for value, _label in said))
    elif len(values) < 2 and len(parallel := _parallel(text or "")) >= 2:
        found, values = parallel, list(dict.fromkeys(value for value, _label in parallel))
    elif len(values) < 2 and len(glued := NUMBER_LABEL_RE.findall(text or "")) >= 2:
        found, values = glued, list(dict.fromkeys(value for value, _label in glued))
    if len(values) < 2 - (one_said and bool(found)):
        return []
    labelled = [(label.strip(), value) for value, label in found if label.strip()]
    return list(dict.fromkeys([(v, v) for v in values] + labelled))


def _parallel(text: str) -> list[tuple[str, str]]:
    """(value, label) of labels listed, then as many values in the same order: "片单类型剧集/电影,
    tv或movie" (the first label as long as the others: 剧集)."""
    found = PARALLEL_RE.search(text)
    if not found:
        return []
    labels = re.split(r"[/\uff0f\u3001]", found.group(1))
    values = re.split(r"\s*(?:[/\u3001\u6216,]|\bor\b)\s*", found.group(2))
    if len(labels) != len(values):
        return []
    labels[0] = labels[0][-max(len(label) for label in labels[1:]) :]
    return list(zip(values, labels, strict=True))


def _clause_list(text: str) -> re.Match | None:
    """A clause that lists values, in a description saying more ("排序方式, hot或new"); a
    description that is the list alone is read above, by its example."""
    found = CLAUSE_LIST_RE.search(text)
    if not found or found.group(0).strip() == text.strip() or len(_parallel(text)) >= 2:
        return None  # (labels listed before it pair up with its values: "剧集/电影, tv或movie")
    return found


def _said_pairs(text: str) -> list[tuple[str, str]]:
    """(value, label) of values said to be their labels, or dashed or spaced before them."""
    said = SAID_PAIR_RE.findall(text)
    dashed = DASH_PAIR_RE.findall(text) if len(said) < 2 else said
    return dashed if len(dashed) >= 2 else SPACED_PAIR_RE.findall(text)


def _ranged(text: str) -> list[str]:
    """The values a range in the description spans: "等级, n1~n6" is n1, n2 ... n6 (at most
    twenty, counting up)."""
    found = RANGE_RE.search(text)
    if not found:
        return []
    prefix, first, last = found.group(1), int(found.group(2)), int(found.group(3))
    if not 0 < last - first <= MAX_RANGE:
        return []
    return [f"{prefix}{n}" for n in range(first, last + 1)]


def _bare_pairs(text: str) -> list[tuple[str, str]]:
    """(value, label) of values listed bare, each with its label: "base (常设展览) or temp"."""
    if start := BARE_LIST_START_RE.search(text):
        text = text[start.end() :]
    if end := BARE_LIST_END_RE.search(text):
        text = text[: end.start()]
    # or each label before its value: "学院动态 (news)、学术活动 (xshd)"
    return BARE_PAIR_RE.findall(text) or [(v, lab) for lab, v in LABEL_PAIR_RE.findall(text)]
