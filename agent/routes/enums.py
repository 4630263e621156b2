"""Which of a parameter's listed values (``agent.routes.listed``) a question names.

A question names a value by its label or the value itself, in either language (最热 names
``hot``), or by a span of time ("7 天" names ``7days``, "24 hours" names ``24h``). A label may
follow its backticked value in parentheses ("`new` (最新), `hot` (热门)", full-width or not).

Words said in passing ("latest", "new", 全部) name an optional setting's value only when the
question says the value itself as what it asks for ("*newest* stories" names ``newest``; "what's
*new*" does not), and below any other value it names. "Front page" and "home page" name the
site's home as a whole: a value that says only "front" is not asked for.
"""

import functools
import re
from collections import Counter
from collections.abc import Callable

from agent.question import ZH_NUMBERS
from agent.routes.concepts import SORT_WORDS, SYNONYMS
from agent.routes.words import GENERIC
from agent.vocabulary import FILLER_ZH_SET, NEGATED_RE, ORDERED_BY_RE, intent_word
from catalog.search_terms import word_stem
from catalog.segment import zh_simplified, zh_words

SPAN_RE = re.compile(
    r"(\d+|[一两二三四五六七八九十])\s*(?:个)?\s*"
    r"(小时|hours?|hrs?|h|天|日|days?|d|周|星期|weeks?|w|月|months?|年|years?|y)(?![a-z])",
    re.I,
)
SPAN_UNITS = {"小": "h", "h": "h", "天": "d", "日": "d", "d": "d", "周": "w", "星": "w", "w": "w"}
SPAN_UNITS |= {"月": "m", "m": "m", "年": "y", "y": "y"}
LAST_SPAN_RE = re.compile(r"\b(?:past|last|previous)\s+(hour|day|week|month|year)\b", re.I)
# Values a question says in passing ("the latest news"): they name an optional parameter's
# value only when nothing else in the question does.
TIME_ADVERBS = {"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month"}
TIME_ADVERBS |= {"yearly": "year", "annually": "year", "annual": "year"}
PASSING = frozenset({"all", "latest", "new", "newest", "news", "default", "全部", "最新", "新闻"})
# Values that are words of the asker's own ("in my language": Malay's `my` is not asked for)
PRONOUNS_EN = frozenset(str.split("i me my our us your his her its it their"))
# What the asker does with a feed ("can I follow", "want to track"): no value of one (NetEase's
# ranking by ``follow``)
ASKER_VERB_RE = re.compile(r"\b(i|to|we|you|u)\s+(?:follow|subscribe|track)\b", re.I)
# A passing word after these is said in passing, never asked for ("what's new", "anything new").
PASSING_AFTER_RE = re.compile(r"\b(?:what'?s|what\s+is|anything|something|all\s+the)\s+$", re.I)
# Words that take something as well as what else was asked for.
INCLUDING_RE = re.compile(
    r"\b(?:too|as\s+well|also|included|including|both)\b|也|一起|一并|连同|包括", re.I
)
# What the question looks for in a feed's items, not a feed: "跟黄金有关的", "关于比亚迪", "about
# gold". A value's label said there chooses no feed (``label_said``).
TOPIC_FRAME_RE = re.compile(
    r"(?:\u8ddf|\u548c|\u4e0e)[^\s,.?!\uff0c\u3002\uff1f\uff01]{1,12}?(?:\u6709\u5173|\u76f8\u5173)"
    r"|\u5173\u4e8e[^\s,.?!\u7684\uff0c\u3002\uff1f\uff01]{1,12}"
    r"|\b(?:about|regarding|related\s+to|mentioning)\s+[^,.;:!?]{1,40}",
    re.I,
)
NOT_ONLY_RE = re.compile(r"\bnot\s+(?:only|just)\s+(?:the\s+|a\s+|an\s+)?[\w\-]+", re.I)
# A label quoted: 「最新」, "latest"
QUOTED_LABEL_RE = re.compile(
    r"[\u300c\u201c\"'\u300e]([^\u300d\u201d\"'\u300f]{1,20})[\u300d\u201d\"'\u300f]"
)
# The site's home said as one thing: "front page" is no "front".
CJK_CHAR_RE = re.compile(r"[\u4e00-\u9fff]")
HOME_PAGE_RE = re.compile(r"\b(front|home)[\s-]+page\b", re.I)
# What comes first said around what it sorts ("the newest reviews first"): "newest first"
FIRST_ORDER_RE = re.compile(
    r"\b(newest|latest|oldest|most\s+recent)(?:\s+\w+){1,2}?\s+first\b", re.I
)
# An order said around what it sorts ("sort their works by rating"): read as "sorted by rating"
ORDERED_APART_RE = re.compile(
    r"\b(?:sort|rank|order)(?:ed|ing)?(?:\s+(?!by\b)\w+){1,4}?\s+by\s+(\w+)", re.I
)


LETTER_CHAR_RE = re.compile(r"(?<![a-z0-9])([a-z])\s?([\u4e00-\u9fff])")


def spans(text: str) -> set[str]:
    """The spans of time a text names, canonical: "7 天" and "7days" are both ``7d``."""
    found = set()
    for amount, unit in SPAN_RE.findall(text):
        count = int(amount) if amount.isdigit() else ZH_NUMBERS[amount]
        found.add(f"{count}{SPAN_UNITS[unit[0].lower()]}")
    # "over the past month" is one: 一月
    found |= {f"1{SPAN_UNITS[unit[0].lower()]}" for unit in LAST_SPAN_RE.findall(text)}
    return found


def _grams(text: str) -> set[str]:
    """Latin words (stemmed: ranking names "rank"), CJK character pairs (single characters for
    a one-character run), and a lone letter with the character after it ("A 股", A股快讯)."""
    low = zh_simplified(text.lower())
    grams = {a + b for a, b in LETTER_CHAR_RE.findall(low)}
    for run in re.findall(r"[a-z0-9]+|[^\sa-z0-9\W]+", low):
        if run.isascii():
            stem = word_stem(run)
            if stem != run and stem.endswith(("ing", "ed")):
                stem = word_stem(stem)  # listings and listing are both list
            grams.add(stem)
            grams.add(TIME_ADVERBS.get(run, stem))  # "weekly" names week
        else:
            grams.update({run[i : i + 2] for i in range(max(1, len(run) - 1))})
    return grams


def said_translated(question: str, name: str) -> bool:
    """Every word of ``name`` (a route's name) is said by the question in either language:
    临时展览 says "Temporary Exhibitions"; 即时新闻, written as one word, "breaking news"."""
    grams = _grams(name)
    if not grams:
        return False
    if grams <= _translated(question):
        return True
    # a Chinese run said concept by concept, each one covering its characters
    words = _concept_words(question)
    runs = re.findall(r"[^\sa-z0-9\W]+", zh_simplified(name.lower()))
    latin = {g for g in grams if g.isascii()}
    return bool(runs) and latin <= _translated(question) and all(_covered(r, words) for r in runs)


def _covered(run: str, words: frozenset[str]) -> bool:
    """Every character of ``run`` is part of one of ``words`` found in it."""
    covered = [False] * len(run)
    for word in words:
        for match in re.finditer(re.escape(word), run):
            covered[match.start() : match.end()] = [True] * len(word)
    return all(covered)


def _named_rows(question: str) -> list[tuple[str, ...]]:
    """The concepts the question names, by a word of either language."""
    said = _grams(question)
    low = zh_simplified(question.lower())
    # a word compared stemmed, as the question's are: "automotive" is automotiv; said by the
    # question, not by another concept's words (中文's zh and cn are no zh-cn)
    return [
        words
        for words in SYNONYMS
        if any(w in low if not w.isascii() or " " in w else _grams(w) <= said for w in words)
    ]


@functools.lru_cache(maxsize=256)
def _concept_words(question: str) -> frozenset[str]:
    """The Chinese words of the concepts the question names, and its own Chinese runs."""
    low = zh_simplified(question.lower())
    own = re.findall(r"[^\sa-z0-9\W]+", low)
    return frozenset(
        [*own, *(w for words in _named_rows(question) for w in words if not w.isascii())]
    )


@functools.lru_cache(maxsize=256)
def _translated(question: str) -> frozenset[str]:
    """The question's grams, plus the other-language words of each concept it names."""
    grams = set(_grams(question))
    for words in _named_rows(question):
        for word in words:
            grams |= _grams(word)
    return frozenset(grams)


def said_within(question: str, apart: str) -> Callable[[str], bool]:
    """Whether a label is said in ``question`` only where ``apart`` (the question without the
    platform's names) blanks it: 中国作家网 says 《中国作家》 and 理想生活实验室 实验室 TV only as
    the site's name. Both are read once, for every label asked about."""
    said, said_apart = _translated(question), _translated(apart)

    def within(label: str) -> bool:
        grams = _grams(label)
        return bool(grams & said) and not grams & said_apart

    return within


def asked_for(word: str, question: str) -> bool:
    """``word`` (a Latin word said in passing, such as "newest") is a whole word of the question
    that is not said in passing ("what's new", "anything new")."""
    for match in re.finditer(rf"(?<![\w'-]){re.escape(word)}(?![\w'-])", question, re.I):
        if not PASSING_AFTER_RE.search(question[: match.start()]):
            return True
    return False


def label_said(question: str, choices: list[tuple[str, str]], value: str) -> int:
    """How long a label of ``value`` the question says whole, as such ("F.I.X 字幕侠": 8; 0 for
    "最近上映" against 正在上映, whose words it shares only in part), spaces aside."""
    asked = TOPIC_FRAME_RE.sub(" ", NEGATED_RE.sub(" ", question))
    said = _grams(asked)
    labels = [
        label
        for label, v in choices
        if v == value and label.lower() not in PASSING and len(label.strip()) >= 2
    ]
    # or said in the other language, as its concept words it ("hong kong stocks": 港股), by no
    # word for any kind of feed or thing ("announcements" of 通知公告)
    words = [w for lab in labels for w in _latin_of(lab) if not (intent_word(w) or w in GENERIC)]
    return max(
        (
            *(len(label.replace(" ", "")) for label in labels if set() < _grams(label) <= said),
            *(len(w.replace(" ", "")) for w in words if asked_for(w, asked)),
        ),
        default=0,
    )


def option_widened(question: str, choices: list[tuple[str, str]], value: str) -> str:
    """``value``, or the list's "all" when the question takes the one it names as well ("已经关掉的
    也一起推给我", "closed ones too"): both are asked for."""
    every = next((v for label, v in choices if v.casefold() == "all" or label == "全部"), None)
    if every is None or value == every or not INCLUDING_RE.search(question):
        return value
    return every


# What a Chinese label says around the thing it keeps: "只看…的", "仅显示…" (only ...), and the
# kind of list it is: 科普系列 is 科普's, 投融界频道 投融界's.
LABEL_ONLY_RE = re.compile(
    r"^(?:只看|只显示|仅看|仅显示|只|仅)|的$|(?<=..)(?:系列|栏目|专栏|频道|专题|板块|版块|分类)$"
)
LABEL_ASIDE_RE = re.compile(r"\s*[(\uff08][^()\uff08\uff09]*[)\uff09]\s*")
# What parts a Chinese label's names for one value: a fullwidth slash, 、
LABEL_PARTS_RE = re.compile(r"\s*[\uff0f\u3001]\s*")


MISSPELT_MIN = 6  # letters a word has at least to be read misspelt


# Two Latin words hyphened that a value writes as one: back-end, e-sports
HYPHENED_RE = re.compile(r"(?<![\w-])[a-z]+-[a-z]+(?![\w-])")


def option_named(
    question: str, choices: list[tuple[str, str]], *, loose: bool, apart: str | None = None
) -> str | None:
    """The value of the option the question names best, or None.

    A span of time matches first. Otherwise a label (or value) counts when at least 60% of its
    words / character pairs appear in the question, so "最热的主题" names "最热主题" but not
    "最新主题". ``loose`` (a required parameter) also counts the other language's words of a
    concept; otherwise a value said in passing (latest, 全部) names something only when the
    question asks for that very word (``asked_for``), and then below any other value. Of two
    labels said alike, the one said more often in ``apart`` (the question without the names of
    its platform and route: 太平洋科技's 科技新闻 says no 科技) is read."""
    counted = (apart if apart is not None else question).lower()
    # a word said in passing is asked for as such when another value is turned down ("the
    # newest stuff, not the hot tab": 最新)
    refused = _translated(" ".join(m.group(0) for m in NEGATED_RE.finditer(question)))
    contrasted = any(set() < _grams(t) <= refused for choice in choices for t in choice)
    question = NEGATED_RE.sub(" ", question)  # "not the 3D portraits" asks for none of them
    asked_spans = spans(question)
    for label, value in choices:
        if asked_spans & (spans(label) | spans(value)):
            return value
    # "all of it, not only the latest" asks for more than the latest: another value said
    # is the one ("not just the readouts" alone still names readouts)
    if (rest := NOT_ONLY_RE.sub(" ", question)) != question and (
        value := option_named(rest, choices, loose=loose, apart=apart)
    ):
        return value
    question = HOME_PAGE_RE.sub(r"\1page", ASKER_VERB_RE.sub(r"\1 ", question))
    # "back-end" says backend too
    question = HYPHENED_RE.sub(lambda m: f"{m.group(0)} {m.group(0).replace('-', '')}", question)
    asked = _translated(question)  # 评论 names `comments`, "hot" names 热门
    # the order asked for ("sorted by newest", 按最新排) asks for its word as such
    orders = [m.group(0) for m in ORDERED_BY_RE.finditer(question)]
    orders += [f"sorted by {m.group(1)}" for m in ORDERED_APART_RE.finditer(question)]
    orders += [f"{m.group(1)} first" for m in FIRST_ORDER_RE.finditer(question)]
    order = zh_simplified(" ".join(orders))
    ordered = _translated(order) | {
        g for row in SORT_WORDS if row[0] in order for word in row[1:] for g in _grams(word)
    }
    asked |= ordered
    # and a label holding what it sorts by is that order's list (按人气排: 资讯人气榜; "sorted
    # by rating": 评价排序)
    said_order = _grams(order)
    sorted_by = [
        row[0]
        for row in SORT_WORDS
        if row[0] in order or any(_grams(word) <= said_order for word in row[1:])
    ]
    said = _grams(question)
    best: tuple | None = None
    shared = _shared_grams(choices)
    # and what most labels say names none either: 招聘 of 社会招聘, 实习生招聘..., 资讯 of
    # 资讯人气榜, 资讯综合榜, 资讯收藏榜 (and 24 小时热榜)
    shared_labels = _common_grams([label for label, _value in choices])
    for label, value in choices:
        # a label of two names for one value ("回复\uff0f查看") names it by either
        parts = LABEL_PARTS_RE.split(label)
        core = LABEL_ONLY_RE.sub("", label)  # 只看重要的 names 重要 things, however put
        # and "ARC Class (Rated for ~2799)" names ARC Class: what is in parentheses explains
        core = LABEL_ASIDE_RE.sub("", core).strip() or core
        cores = (core,) if core != label and len(core) >= 2 else ()
        for text in (label, *(parts if len(parts) > 1 else ()), *cores, value):
            if text.startswith("/"):
                continue  # a table's example path, no label: /nature/research/nature
            if text in PRONOUNS_EN and not _quoted(text, question):
                continue
            grams = _grams(text)
            # what every value says names none of them: minato-city is minato's
            grams = grams - shared if text == value and grams - shared else grams
            own_label = text == label and CJK_CHAR_RE.search(text)
            unshared = grams - shared_labels if own_label else set()
            passing = text.lower() in PASSING
            if not grams or len(text.strip()) < 2:
                continue
            # 「最新」那个分类: quoted, a word said in passing is the label asked for
            asked_as_such = (
                (text.isascii() and asked_for(text, question))
                or _quoted(text, question)
                or bool(grams & ordered)
                or (contrasted and _asked_translated(text, question))
            )
            if passing and not loose and not asked_as_such:
                continue
            overlap = len(grams & asked) / len(grams)
            if unshared:  # its own words said, what all labels say aside (招实习生)
                overlap = max(overlap, len(unshared & asked) / len(unshared))
            if own_label and any(word in text for word in sorted_by):
                overlap = max(overlap, 0.6)
            direct = len(grams & said) / len(grams) >= 0.6  # said as such, not translated
            # A kind of thing ("threads") is a weaker choice than a value that is no common noun
            # ("Ask HN threads" asks for ask).
            # as is a label that is filler (新聞 beside 資安)
            generic = text.lower() in GENERIC or zh_simplified(text) in FILLER_ZH_SET
            # of two labels said alike, the one said more often (体育 twice, 四川 once)
            times = counted.count(text.lower()) if direct else 0
            # a Chinese character says as much as a word's letters: 招生通知 beats "notice"
            size = len(text) + len(CJK_CHAR_RE.findall(text))
            # the one said as the only one wanted ("only the crime news", 只看人物)
            wanted = direct and _said_only(text, question)
            # (a word said in passing, "anything new", below any other value said)
            candidate = (
                not passing or asked_as_such,
                *(overlap, direct, not passing, not generic, wanted, size, times, value),
            )
            if overlap >= 0.6 and (best is None or candidate[:8] > best[:8]):
                best = candidate
    if best:
        return best[8]
    return (
        _spread_label(question, choices) or _misspelt(question, choices) or _lone(question, choices)
    )


def _asked_translated(label: str, question: str) -> bool:
    """A Latin word of ``label``'s concept is asked for as such (最新: "the newest stuff")."""
    return any(asked_for(w, question) for w in _latin_of(label))


def _latin_of(label: str) -> list[str]:
    """The Latin words of each concept ``label`` is a word of (港股: "hong kong stocks")."""
    return [w for row in SYNONYMS if label in row for w in row if w.isascii()]


def _shared_grams(choices: list[tuple[str, str]]) -> set[str]:
    """The words every one of three values or more says (``-city`` of shinjuku-city,
    minato-city...): no value is named by them."""
    values = {value for _label, value in choices}
    if len(values) < 3:
        return set()
    return set.intersection(*(_grams(value) for value in values))


def _common_grams(labels: list[str]) -> set[str]:
    """The words more than half of three labels or more say."""
    labels = list(dict.fromkeys(labels))
    if len(labels) < 3:
        return set()
    counts = Counter(g for label in labels for g in _grams(label))
    return {g for g, n in counts.items() if n * 2 > len(labels)}


def _lone(question: str, choices: list[tuple[str, str]]) -> str | None:
    """The value of the one Chinese label of a single character that the question says as a
    word of its own (长江有色网镍的调价动态: 镍, ni); None when none is, or several."""
    words = set(zh_words(zh_simplified(question)))
    said = {v for label, v in choices if CJK_CHAR_RE.fullmatch(label) and label in words}
    return said.pop() if len(said) == 1 else None


def _quoted(label: str, question: str) -> bool:
    """``label`` is quoted whole in the question: 「最新」, “最新”, "latest"."""
    return any(m.group(1).strip() == label for m in QUOTED_LABEL_RE.finditer(question))


def _said_only(label: str, question: str) -> bool:
    """``label`` is said as the only thing wanted: "only the crime news", "just Cinderella
    Girls", 只看人物, 仅要快讯."""
    said = re.escape(label)
    pattern = (
        rf"(?<!\bnot\s)\b(?:only|just)\s+(?:the\s+|a\s+|an\s+)?{said}"
        rf"|(?:\u53ea|\u4ec5)[\u770b\u8981\u8ba2]?{said}"
    )
    return re.search(pattern, question, re.I) is not None


def _misspelt(question: str, choices: list[tuple[str, str]]) -> str | None:
    """The value of the one label or value whose every Latin word the question says, a long
    word (six letters or more) misspelt by one letter at most ("product managment" says
    product-management); None when none is, or several."""
    said = set(re.findall(r"[a-z]+", question.lower()))
    found = set()
    for label, value in choices:
        for text in (label, value):
            words = re.findall(r"[a-z]+", text.lower())
            if not words or not any(len(w) >= MISSPELT_MIN for w in words):
                continue
            if all(w in said or _one_off(w, said) for w in words):
                found.add(value)
    return found.pop() if len(found) == 1 else None


def _one_off(word: str, said: set[str]) -> bool:
    """A word of six letters or more the question says with one letter left out, added,
    changed or two swapped."""
    if len(word) < MISSPELT_MIN:
        return False
    return any(abs(len(w) - len(word)) <= 1 and _edits(w, word) <= 1 for w in said if len(w) > 3)


def _edits(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (adjacent swaps count one), for short words."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            cost = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, rows[-2][j - 2] + 1)
            row.append(cost)
        rows.append(row)
    return rows[-1][-1]


def _spread_label(question: str, choices: list[tuple[str, str]]) -> str | None:
    """The value of the one Chinese label of four characters or more whose characters the
    question says in order, close together ("每周推荐一本书" says 每周一书: each character, within
    twice the label's length); None when no label or several are said so."""
    text = zh_simplified(question)
    said = []
    for label, value in choices:
        core = zh_simplified("".join(CJK_CHAR_RE.findall(label)))
        if len(core) < 4 or len(core) != len(label.replace(" ", "")):
            continue
        pattern = ".{0,3}?".join(map(re.escape, core))
        if (found := re.search(pattern, text)) and len(found.group(0)) <= 2 * len(core):
            said.append(value)
    return said[0] if len(set(said)) == 1 else None
