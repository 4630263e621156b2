"""Route search's text to terms, the same for the catalog and for a question.

Every text is NFKC-normalised and case-folded, then cut into runs: a run of CJK characters (Han,
kana, hangul) or a run of other letters and digits. A letter run becomes one term,
lightly stemmed (``papers`` -> ``paper``, ``launched`` -> ``launch``); a CJK run becomes its
character bigrams, or the single character when the run is one character long, since Chinese has
no spaces to split words on. Particles (的, 了, 吗 ...) split CJK runs; a question additionally
loses stopwords (最近, 什么, latest, today ...), which never become terms. A small bilingual
glossary adds the other language's word for common feed vocabulary (新闻 <-> news, 热榜 <-> hot) at
a lower weight, because upstream names a route in one language only.

A question's subject values (``entities_split``) name no platform: their terms weigh
``ENTITY_WEIGHT``.
"""

import functools
import re
import unicodedata
from collections.abc import Container, Iterator

from catalog.segment import zh_simplified

# The longest question read (catalog.search refuses longer ones). Here, beside the text rules, so
# models and forms can import it without the search and NumPy.
MAX_QUESTION_CHARS = 2000


CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
RUN_RE = re.compile(rf"([{CJK}]+)|([^\W_{CJK}]+)")
CJK_RE = re.compile(rf"[{CJK}]")
URL_RE = re.compile(r"(?:https?://|www\.)\S+")
# Invisible format characters that pasted text carries; they would split words.
INVISIBLE_RE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
PARTICLES_RE = re.compile("[的了吗呢吧啊呀么]")
MANY_DIGITS_RE = re.compile(r"(?:\D*\d){4}")
# A request's wording, "I'd like the...", "we would love": no feed's "likes"
REQUEST_RE = re.compile(r"\b(?:i|we)(?:'d|\u2019d| would) (?:like|love)\b", re.I)

# Question words and time words: they say what is asked, not where to look.
ZH_STOPWORDS = (
    "值得注意", "有什么", "有哪些", "是什么", "为什么", "有没有", "什么", "哪些", "哪个", "最近",
    "最新", "近期", "现在", "目前", "当前", "如今", "今天", "今日", "本周", "这周", "这个", "那个",
    "一下", "请问", "帮我", "给我", "告诉", "看看", "大家", "我们", "你们", "他们", "怎么", "如何",
    "是否", "一些", "值得", "注意", "发生", "关于", "情况", "相关", "一个", "一位", "有个", "某个",
    "某位", "这位", "那位",
)  # fmt: skip
ZH_STOPWORDS_RE = re.compile("|".join(sorted(ZH_STOPWORDS, key=len, reverse=True)))
EN_STOPWORDS = frozenset((
    "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
    "be", "been", "before", "being", "but", "by", "can", "could", "did", "do", "does", "doing",
    "for", "from", "get", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "latest", "let", "me", "more",
    "most", "my", "new", "newest", "now", "of", "on", "or", "our", "out", "over", "please",
    "recent", "recently", "right", "she", "should", "show", "so", "some", "tell", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "today",
    "tonight", "up", "us", "very", "was", "we", "week", "were", "what", "whats", "when", "where",
    "which", "who", "whom", "whose", "why", "will", "with", "would", "you", "your", "yesterday",
    "current", "currently", "going", "happening",
))  # fmt: skip
STEM_KEEP = frozenset({"news", "series", "species", "status", "analysis", "bus", "gas", "this"})

# Common feed vocabulary, Chinese <-> English stems; a match through it weighs GLOSSARY_WEIGHT.
GLOSSARY: dict[str, tuple[str, ...]] = {
    "新闻": ("news",), "资讯": ("news",), "快讯": ("newsflash", "flash", "live"),
    "文章": ("article", "post"), "首页": ("index", "home", "homepage", "frontpage"),
    "头条": ("headline", "top"), "热榜": ("hot", "trending", "popular"),
    "热门": ("hot", "popular", "trending"), "热搜": ("hot", "trending"), "最热": ("hot",),
    "排行": ("rank", "ranking", "top"), "趋势": ("trending", "trend"), "视频": ("video",),
    "论文": ("paper",), "博客": ("blog",), "更新": ("update",), "发布": ("release",),
    "每日": ("daily",), "日报": ("daily",), "周刊": ("weekly",), "评论": ("comment",),
    "话题": ("topic",), "专栏": ("column",), "用户": ("user",), "动态": ("activity",),
    "公告": ("announcement", "notice"), "通知": ("notice",), "问题": ("question",),
    "回答": ("answer",), "搜索": ("search",), "直播": ("live",), "下载": ("download",),
    "音乐": ("music",), "电影": ("movie", "film"), "游戏": ("game",), "图书": ("book",),
    "新书": ("book",), "招聘": ("job",), "价格": ("price",), "天气": ("weather",),
    "股票": ("stock",), "财经": ("finance",), "科技": ("tech", "technology"),
    "体育": ("sport",), "播客": ("podcast",), "漫画": ("comic", "manga"), "小说": ("novel",),
    "仓库": ("repository",), "产品": ("product",), "社区": ("community",),
    "论坛": ("forum",), "帖子": ("post", "thread"), "活动": ("event",), "研究": ("research",),
    "期刊": ("journal",), "政策": ("policy",), "安全": ("security",), "漏洞": ("vulnerability",),
    "弹幕": ("danmaku", "danmu"), "开发者": ("developer",),
    "上映": ("theater", "theatre", "cinema"), "票房": ("box",), "北美": ("america",),
    "捷径": ("shortcut",), "快捷指令": ("shortcut",), "维修": ("repair",), "换新": ("exchange",),
    "即时": ("realtime", "breaking", "instant"), "学术": ("scholar", "academic"),
    "创意工坊": ("workshop",), "调仓": ("rebalance", "rebalancing"), "本站": ("local",),
    "跨站": ("federated",), "时间线": ("timeline",),
}  # fmt: skip
GLOSSARY_WEIGHT = 0.6
ENTITY_WEIGHT = 0.1
_ENTITY_EDGE = r"(?<![\w.\-/@])"
ENTITY_RE = re.compile(
    rf"{_ENTITY_EDGE}[A-Za-z0-9][\w.\-]*/[\w.\-]*[A-Za-z0-9](?![\w/])"  # owner/name
    rf"|{_ENTITY_EDGE}@[A-Za-z0-9_][\w.\-]*[A-Za-z0-9_]"  # @handle
    # an id mixing letters and digits: 3 digits or more, or 12 characters or more (iPhone15 is
    # a product, UCaXkIU1QidjPwiAYu6GcHjg a channel)
    rf"|{_ENTITY_EDGE}(?=[A-Za-z0-9_\-]*\d)(?=[\d_\-]*[A-Za-z])"
    rf"(?:(?=(?:[A-Za-z_\-]*\d){{3}})[A-Za-z0-9_\-]{{8,}}|[A-Za-z0-9_\-]{{12,}})(?![\w.\-])",
    re.ASCII,
)


_DOUBLED_RE = re.compile(r"([bgmnprt])\1$")  # stopped, starred, running; not added, missed


@functools.lru_cache(maxsize=100_000)
def word_stem(word: str) -> str:
    """A deliberately small English stemmer: plurals, -ing, -ed, a final -e. Same on both sides."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha() or word in STEM_KEEP:
        return word
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"),
                         ("xes", "x"), ("ing", ""), ("ed", ""), ("s", "")):  # fmt: skip
        if word.endswith(suffix) and len(word) - len(suffix) + len(keep) >= 3:
            if (suffix == "s" and word.endswith(("ss", "us", "is"))) or word.endswith("eed"):
                break
            word = word[: len(word) - len(suffix)] + keep
            if suffix in ("ing", "ed") and _DOUBLED_RE.search(word):
                word = word[:-1]  # starred -> star, stopped -> stop (not: installed, missed)
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def text_normalise(text: str) -> str:
    """Case and width folded, and traditional Chinese as simplified: 關鍵評論 is 关键评论."""
    return zh_simplified(INVISIBLE_RE.sub("", unicodedata.normalize("NFKC", text)).casefold())


def text_runs(text: str) -> Iterator[tuple[str, bool, int]]:
    """(run, is_cjk, start) over an already normalised text."""
    for match in RUN_RE.finditer(text):
        yield match.group(0), match.group(1) is not None, match.start()


def text_canonical(text: str) -> str:
    """The normalised runs joined by single spaces: what phrase matching compares."""
    return " ".join(run for run, _, _ in text_runs(text_normalise(text)))


def _cjk_grams(run: str, *, question: bool) -> Iterator[str]:
    pieces = PARTICLES_RE.split(ZH_STOPWORDS_RE.sub(" ", run) if question else run)
    for piece in pieces:
        for segment in piece.split():
            if len(segment) == 1:
                yield segment
            for i in range(len(segment) - 1):
                yield segment[i : i + 2]


def text_terms(text: str, *, question: bool = False, numbers: bool = True) -> Iterator[str]:
    """The terms of ``text`` (see the module docstring), repeats included.

    ``question`` drops stopwords; ``numbers=False`` drops letter runs holding 4 or more digits
    (ids in examples and descriptions, which only add noise).
    """
    text = REQUEST_RE.sub(" ", text) if question else text
    for run, is_cjk, _ in text_runs(text_normalise(URL_RE.sub(" ", text))):
        if is_cjk:
            yield from _cjk_grams(run, question=question)
        elif len(run) < 2 or (question and run in EN_STOPWORDS):
            continue
        elif numbers or not MANY_DIGITS_RE.match(run):
            yield word_stem(run)


def _glossary_pairs() -> dict[str, tuple[str, ...]]:
    pairs: dict[str, set[str]] = {}
    for zh, english in GLOSSARY.items():
        for word in english:
            pairs.setdefault(zh, set()).add(word_stem(word))
            pairs.setdefault(word_stem(word), set()).add(zh)
    return {term: tuple(sorted(others)) for term, others in pairs.items()}


GLOSSARY_PAIRS = _glossary_pairs()
# Chinese glossary words longer than a two-character term: a question's text is searched for them
LONG_GLOSSARY = tuple(zh for zh in GLOSSARY if len(zh) > 2)


def question_terms(question: str) -> dict[str, float]:
    """Distinct terms of a question with their weights: 1.0, GLOSSARY_WEIGHT via the glossary,
    or ENTITY_WEIGHT for a term found only inside a subject value (see ``entities_split``)."""
    plain, entities = entities_split(question)
    terms = dict.fromkeys(text_terms(plain, question=True), 1.0)
    # Chinese glossary words longer than a term's two characters are looked for whole (开发者)
    longer = [zh for zh in LONG_GLOSSARY if zh in plain]
    for term in [*terms, *longer]:
        for other in GLOSSARY_PAIRS.get(term, ()):
            terms.setdefault(other, GLOSSARY_WEIGHT)
    for entity in entities:
        for term in text_terms(entity, question=True):
            terms.setdefault(term, ENTITY_WEIGHT)
    return terms


def entities_split(question: str, namespaces: Container[str] = ()) -> tuple[str, list[str]]:
    """``question`` with its subject values blanked, and those values.

    A subject value names what the question is about, not where to read about it: the
    ``rust-lang`` of rust-lang/rust is no platform called Lang. Values are the forms that say
    what they are: ``owner/name`` pairs (not two short acronyms, as in AI/ML), ``@handles``, and
    ids that mix letters and digits (UCaXkIU1QidjPwiAYu6GcHjg, BV1i7411M7N9, SH600519), but not
    a platform's namespace said whole (1point3acres), nor one said with its one-letter other
    name (Twitter/X).
    """
    found: list[str] = []

    def keep(match: re.Match[str]) -> str:
        value = match.group(0)
        if "/" in value and all(len(part) <= 3 for part in value.split("/")):
            return value
        if value.casefold() in namespaces or _renamed(value, namespaces):
            return value
        found.append(value)
        return " " * len(value)

    return ENTITY_RE.sub(keep, question), found


def _renamed(value: str, namespaces: Container[str]) -> bool:
    """``value`` is a platform's namespace and one letter, slashed: Twitter/X, X/Twitter."""
    parts = value.casefold().split("/")
    return len(parts) == 2 and any(
        p in namespaces and len(other) == 1 for p, other in (parts, parts[::-1])
    )
