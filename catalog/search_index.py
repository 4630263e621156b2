"""The route-search index: one in-memory inverted index of the catalog per process.

Text to terms. Every text is NFKC-normalised and case-folded, then cut into runs: a run of CJK
characters (Han, kana, hangul) or a run of other letters and digits. A letter run becomes one term,
lightly stemmed (``papers`` -> ``paper``, ``launched`` -> ``launch``); a CJK run becomes its
character bigrams, or the single character when the run is one character long, since Chinese has
no spaces to split words on. Particles (的, 了, 吗 ...) split CJK runs; a question additionally
loses stopwords (最近, 什么, latest, today ...), which never become terms. A small bilingual
glossary adds the other language's word for common feed vocabulary (新闻 <-> news, 热榜 <-> hot) at
a lower weight, because upstream names a route in one language only.

What is indexed. Every platform and route, whatever its curation. Per route, each term keeps its
best field: name (route name and its translations), path (literal segments of the route key and
of the example), meta (categories), text (description and parameter docs, first ``TEXT_CHARS``
characters). Per platform: name (namespace, name, translated names, aliases, domain), meta,
text. Term weight is an inverse document frequency over platforms (a platform's document is its
own text plus all its routes'), so a word that hundreds of platforms use (news, 最新) weighs
little wherever it appears. Each name of a platform is also a *phrase* to find whole in a
question: that is the strongest signal there is.

Curation (who is searchable, priorities) sits beside the text in a ``Curation`` that is swapped
whole, so a staff edit costs a reload of four columns, not a rebuild.

Invalidation. ``search_index_current()`` reads ``catalog_search_version()`` (two aggregate
queries; 6 to 10 ms on SQLite for the real catalog, too dear for every search) at most every
``CATALOG_SEARCH_RECHECK_SECONDS`` (default 2 s). A changed text signature (an import wrote, an
alias changed) rebuilds the index; a changed curation signature reloads only the curation. Every
process (web, worker) so converges within the interval, without signals or a shared cache.
Search itself re-reads curation and health of its few top candidates on every call
(``catalog.search``), so a disabled route or platform disappears at once and a health change
counts at once; only additions (a newly enabled route, a new alias) wait for the next check.
Health stays out of the index entirely: it changes on every fetch.
"""

import functools
import math
import re
import threading
import time
import unicodedata
from array import array
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from catalog import selectors

# --- Text to terms ------------------------------------------------------------------------------

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
RUN_RE = re.compile(rf"([{CJK}]+)|([^\W_{CJK}]+)")
CJK_RE = re.compile(rf"[{CJK}]")
URL_RE = re.compile(r"(?:https?://|www\.)\S+")
# Invisible format characters that pasted text carries; they would split words.
INVISIBLE_RE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
PARTICLES_RE = re.compile("[的了吗呢吧啊呀么]")
MANY_DIGITS_RE = re.compile(r"(?:\D*\d){4}")
TEXT_CHARS = 1500  # of a description: enough for its first tables, bounds the index's size

# Question words and time words: they say what is asked, not where to look.
ZH_STOPWORDS = (
    "值得注意", "有什么", "有哪些", "是什么", "为什么", "有没有", "什么", "哪些", "哪个", "最近",
    "最新", "近期", "现在", "目前", "当前", "如今", "今天", "今日", "本周", "这周", "这个", "那个",
    "一下", "请问", "帮我", "给我", "告诉", "看看", "大家", "我们", "你们", "他们", "怎么", "如何",
    "是否", "一些", "值得", "注意", "发生", "关于", "情况", "相关",
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
    return INVISIBLE_RE.sub("", unicodedata.normalize("NFKC", text)).casefold()


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


def question_terms(question: str) -> dict[str, float]:
    """Distinct terms of a question with their weights: 1.0, GLOSSARY_WEIGHT via the glossary,
    or ENTITY_WEIGHT for a term found only inside a subject value (see ``entities_split``)."""
    plain, entities = entities_split(question)
    terms = dict.fromkeys(text_terms(plain, question=True), 1.0)
    for term in list(terms):
        for other in GLOSSARY_PAIRS.get(term, ()):
            terms.setdefault(other, GLOSSARY_WEIGHT)
    for entity in entities:
        for term in text_terms(entity, question=True):
            terms.setdefault(term, ENTITY_WEIGHT)
    return terms


def entities_split(question: str) -> tuple[str, list[str]]:
    """``question`` with its subject values blanked, and those values.

    A subject value names what the question is about, not where to read about it: the
    ``rust-lang`` of rust-lang/rust is no platform called Lang. Values are the forms that say
    what they are: ``owner/name`` pairs (not two short acronyms, as in AI/ML), ``@handles``, and
    ids that mix letters and digits (UCaXkIU1QidjPwiAYu6GcHjg, BV1i7411M7N9, SH600519).
    """
    found: list[str] = []

    def keep(match: re.Match[str]) -> str:
        value = match.group(0)
        if "/" in value and all(len(part) <= 3 for part in value.split("/")):
            return value
        found.append(value)
        return " " * len(value)

    return ENTITY_RE.sub(keep, question), found


# --- The index ----------------------------------------------------------------------------------

# Field codes, best first; a posting stores ``position << 2 | code``.
NAME, PATH, META, TEXT = 0, 1, 2, 3
FIELD_WEIGHTS = (1.0, 0.6, 0.4, 0.25)
SECOND_LEVEL_DOMAINS = frozenset(("com", "net", "org", "gov", "edu", "ac", "co", "or", "ne", "go"))
HOST_PREFIXES = frozenset(("www", "m", "mobile"))
# " - ", " | ", " / ", and list separators: ASCII and full-width commas, 、, / | and semicolons.
NAME_SEPARATORS_RE = re.compile("\\s[-\u2013\u2014|/]\\s|[,\uff0c\u3001/|;\uff1b]")


@dataclass(frozen=True, slots=True)
class IndexedPlatform:
    id: int
    namespace: str
    name: str
    routes: tuple[int, ...]  # positions in SearchIndex.routes
    name_terms: frozenset[str]  # terms of its name and namespace


@dataclass(frozen=True, slots=True)
class IndexedRoute:
    id: int
    platform: int  # position in SearchIndex.platforms
    path: str
    name: str
    example: str
    required_params: int
    own_name_terms: frozenset[str]  # terms of its name that are not its platform's name terms
    # Per alternative of a name that lists several feeds ("资讯, 快讯, 用户文章"): its own terms
    # and the sum of their idf, so covering one alternative counts as covering the name.
    alternatives: tuple[tuple[frozenset[str], float], ...]


@dataclass(frozen=True, slots=True)
class NamePhrase:
    """A name of a platform, to be found whole in a question's canonical text."""

    text: str  # canonical; without spaces when it holds no CJK (then matched against word runs)
    label: str  # as staff or upstream wrote it
    platform: int
    terms: tuple[str, ...]  # its terms as a question's (stopwords dropped)
    strength: float  # the sum over its terms of the lesser of name idf and idf


@dataclass(frozen=True, slots=True)
class Curation:
    """Who may be found, and how much staff prefer it, by position in the index."""

    version: tuple
    route_ok: bytes  # 1: enabled and present, its platform too
    route_priority: tuple[int, ...]
    platform_ok: bytes  # 1: enabled, present, and holding a route that is ok
    platform_priority: tuple[int, ...]


@dataclass(slots=True)
class SearchIndex:
    version: tuple  # of the text (see catalog_search_version)
    curation: Curation
    platforms: list[IndexedPlatform]
    routes: list[IndexedRoute]
    route_postings: dict[str, array]
    platform_postings: dict[str, array]
    idf: dict[str, float]
    name_idf: dict[str, float]  # idf over platforms' names only: "arxiv" names one platform
    word_phrases: dict[str, list[NamePhrase]]  # squashed text -> phrases
    cjk_phrases: dict[str, list[NamePhrase]]  # first CJK character or two -> phrases
    platform_by_namespace: dict[str, int]
    route_by_path: dict[str, int]
    route_by_id: dict[int, int]
    common_cutoff: int  # a term in more route postings than this only rescores candidates
    built_seconds: float = 0.0
    longest_phrase_words: int = 1


@dataclass
class _Builder:
    route_terms: dict[str, list[int]] = field(default_factory=dict)
    platform_terms: dict[str, list[int]] = field(default_factory=dict)
    platform_vocab: list[set[str]] = field(default_factory=list)
    name_vocab: list[set[str]] = field(default_factory=list)


def _add_field(best: dict[str, int], code: int, texts: Iterable[str], *, numbers=True) -> None:
    for text in texts:
        for term in text_terms(text, numbers=numbers):
            if best.get(term, 9) > code:
                best[term] = code


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _translated(translations: Any, key: str) -> list[str]:
    if not isinstance(translations, dict):
        return []
    values = [t.get(key) for t in translations.values() if isinstance(t, dict)]
    return [v for v in values if isinstance(v, str)]


def _parameter_texts(parameters: Any) -> Iterator[str]:
    if not isinstance(parameters, dict):
        return
    for value in parameters.values():
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            yield str(value.get("description") or "")
            for option in value.get("options") or ():
                if isinstance(option, dict):
                    yield f"{option.get('label', '')} {option.get('value', '')}"


def _literal_path(key: str) -> str:
    return " ".join(s for s in key.split("/") if s and not s.startswith(":"))


def _required_params(key: str) -> int:
    segments = key.split("/")
    return sum(s.startswith(":") and not s.endswith("?") for s in segments)


def domain_label(url: str) -> str:
    """The registrable name of a site's host: www.zhihu.com -> zhihu, bbc.co.uk -> bbc."""
    host = url.split("://")[-1].split("/")[0].split(":")[0].lower()
    labels = [x for x in host.split(".") if x]
    labels = labels[:-1]  # the top-level domain
    if len(labels) > 1 and labels[-1] in SECOND_LEVEL_DOMAINS:
        labels = labels[:-1]
    label = labels[-1] if labels else ""
    return label if len(label) >= 3 and label not in HOST_PREFIXES else ""


def platform_names(row: selectors.PlatformRow, shared_domains: Collection[str] = ()) -> list[str]:
    """Every name a question may use for the platform, curated aliases included.

    The domain's name counts unless other platforms share it (blogs on github.io are not GitHub).
    """
    names = [row.namespace, row.name, *_translated(row.translations, "name")]
    names += _strings(row.aliases)
    label = domain_label(row.url)
    if label not in shared_domains:
        names.append(label)
    return [n for n in names if n and n.strip()]


def _shared_domains(rows: list[selectors.PlatformRow]) -> set[str]:
    seen: dict[str, int] = {}
    for row in rows:
        label = domain_label(row.url)
        seen[label] = seen.get(label, 0) + 1
    return {label for label, count in seen.items() if count > 1}


def _name_alternatives(name: str, platform_terms: frozenset[str], idf: dict[str, float]):
    alternatives = []
    for part in NAME_SEPARATORS_RE.split(name):
        own = frozenset(text_terms(part)) - platform_terms
        if own:
            alternatives.append((own, sum(idf.get(t, 0.0) for t in own)))
    return tuple(alternatives)


def _route_fields(row: selectors.RouteRow, namespace: str) -> dict[str, int]:
    best: dict[str, int] = {}
    _add_field(best, NAME, [row.name, *_translated(row.translations, "name")])
    example = row.example.removeprefix(f"/{namespace}")
    _add_field(best, PATH, [_literal_path(row.key), example], numbers=False)
    _add_field(best, META, _strings(row.categories))
    texts = [row.description[:TEXT_CHARS], *_translated(row.translations, "description")]
    _add_field(best, TEXT, [*texts, *_parameter_texts(row.parameters)], numbers=False)
    return best


def _platform_fields(row: selectors.PlatformRow, shared_domains: set[str]) -> dict[str, int]:
    best: dict[str, int] = {}
    _add_field(best, NAME, platform_names(row, shared_domains))
    _add_field(best, META, _strings(row.categories))
    texts = [row.description[:TEXT_CHARS], *_translated(row.translations, "description")]
    _add_field(best, TEXT, texts, numbers=False)
    return best


def _post(postings: dict[str, list[int]], position: int, best: dict[str, int]) -> None:
    for term, code in best.items():
        postings.setdefault(term, []).append(position << 2 | code)


def _idf(vocabularies: list[set[str]]) -> dict[str, float]:
    """BM25's idf over platform documents: always positive, ln(N) for a term of one platform."""
    counts: dict[str, int] = {}
    for vocabulary in vocabularies:
        for term in vocabulary:
            counts[term] = counts.get(term, 0) + 1
    n = len(vocabularies)
    return {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in counts.items()}


def _load_rows() -> tuple[list[selectors.PlatformRow], dict[int, list[selectors.RouteRow]]]:
    routes: dict[int, list[selectors.RouteRow]] = {}
    for route in selectors.route_text_rows():
        routes.setdefault(route.platform_id, []).append(route)
    platforms = [p for p in selectors.platform_text_rows() if p.id in routes]
    return platforms, routes


def _phrases(index: SearchIndex, position: int, names: list[str]) -> None:
    for label in dict.fromkeys(names):
        canonical = text_canonical(label)
        # A name made of question words only ("right", "now", "today") names nothing.
        terms = tuple(dict.fromkeys(text_terms(label, question=True)))
        if not terms:
            continue
        # A name that is also a common word ("papers", "news") is weak evidence of the platform.
        strength = sum(min(index.name_idf.get(t, 0.0), index.idf.get(t, 0.0)) for t in terms)
        if cjk := CJK_RE.search(canonical):
            key = canonical[cjk.start() : cjk.start() + 2]
            key = key if CJK_RE.fullmatch(key[-1]) else key[0]
            phrase = NamePhrase(canonical, label, position, terms, strength)
            index.cjk_phrases.setdefault(key, []).append(phrase)
        else:
            words = canonical.count(" ") + 1
            index.longest_phrase_words = max(index.longest_phrase_words, words)
            phrase = NamePhrase(canonical.replace(" ", ""), label, position, terms, strength)
            index.word_phrases.setdefault(phrase.text, []).append(phrase)


def search_index_build(version: tuple[tuple, tuple]) -> SearchIndex:
    """Read the catalog and build the index for ``version`` (``catalog_search_version()``)."""
    started = time.perf_counter()
    platform_rows, routes_of = _load_rows()
    shared_domains = _shared_domains(platform_rows)
    builder = _Builder()
    routes: list[tuple[selectors.RouteRow, int, dict[str, int]]] = []
    for position, platform in enumerate(platform_rows):
        fields = _platform_fields(platform, shared_domains)
        _post(builder.platform_terms, position, fields)
        builder.name_vocab.append({t for t, code in fields.items() if code == NAME})
        vocabulary = set(fields)
        for route in routes_of[platform.id]:
            route_fields = _route_fields(route, platform.namespace)
            _post(builder.route_terms, len(routes), route_fields)
            routes.append((route, position, route_fields))
            vocabulary.update(route_fields)
        builder.platform_vocab.append(vocabulary)
    index = _assemble(version[0], platform_rows, routes, builder)
    for position, row in enumerate(platform_rows):
        _phrases(index, position, platform_names(row, shared_domains))
    index.curation = curation_load(index, version[1])
    index.built_seconds = time.perf_counter() - started
    return index


def _assemble(
    version: tuple,
    platform_rows: list[selectors.PlatformRow],
    routes: list[tuple[selectors.RouteRow, int, dict[str, int]]],
    builder: _Builder,
) -> SearchIndex:
    idf = _idf(builder.platform_vocab)
    platforms = _indexed_platforms(platform_rows, routes)
    indexed_routes = [_indexed_route(r, p, fields, platforms, idf) for r, p, fields in routes]
    index = SearchIndex(
        version=version,
        curation=Curation((), b"", (), b"", ()),
        platforms=platforms,
        routes=indexed_routes,
        route_postings={t: array("I", v) for t, v in builder.route_terms.items()},
        platform_postings={t: array("I", v) for t, v in builder.platform_terms.items()},
        idf=idf,
        name_idf=_idf(builder.name_vocab),
        word_phrases={},
        cjk_phrases={},
        platform_by_namespace={p.namespace: i for i, p in enumerate(platforms)},
        route_by_path={r.path: i for i, r in enumerate(indexed_routes)},
        route_by_id={r.id: i for i, r in enumerate(indexed_routes)},
        common_cutoff=max(200, len(indexed_routes) // 20),
    )
    return index


def _indexed_platforms(
    rows: list[selectors.PlatformRow], routes: list[tuple[selectors.RouteRow, int, Any]]
) -> list[IndexedPlatform]:
    route_positions: list[list[int]] = [[] for _ in rows]
    for route_position, (_, platform_position, _) in enumerate(routes):
        route_positions[platform_position].append(route_position)
    return [
        IndexedPlatform(
            id=row.id,
            namespace=row.namespace,
            name=row.name,
            routes=tuple(route_positions[i]),
            name_terms=frozenset(text_terms(f"{row.name} {row.namespace.replace('-', ' ')}")),
        )
        for i, row in enumerate(rows)
    ]


def _indexed_route(
    row: selectors.RouteRow,
    platform_position: int,
    fields: dict[str, int],
    platforms: list[IndexedPlatform],
    idf: dict[str, float],
) -> IndexedRoute:
    platform_terms = platforms[platform_position].name_terms
    name_terms = {t for t, code in fields.items() if code == NAME}
    return IndexedRoute(
        id=row.id,
        platform=platform_position,
        path=row.path,
        name=row.name,
        example=row.example,
        required_params=_required_params(row.key),
        own_name_terms=frozenset(name_terms - platform_terms),
        alternatives=_name_alternatives(row.name, platform_terms, idf),
    )


def curation_load(index: SearchIndex, version: tuple) -> Curation:
    """Read every row's curation (two narrow queries) into position order for ``index``."""
    platforms = {row.id: row for row in selectors.platform_curation_rows()}
    routes = {row.id: row for row in selectors.route_curation_rows()}
    route_ok = bytearray(len(index.routes))
    route_priority = [0] * len(index.routes)
    for position, route in enumerate(index.routes):
        row = routes.get(route.id)
        platform = platforms.get(index.platforms[route.platform].id)
        if row is not None and platform is not None:
            route_ok[position] = row.eligible and platform.eligible
            route_priority[position] = row.priority
    platform_ok = bytearray(len(index.platforms))
    platform_priority = [0] * len(index.platforms)
    for position, platform in enumerate(index.platforms):
        row = platforms.get(platform.id)
        if row is not None:
            platform_ok[position] = any(route_ok[r] for r in platform.routes)
            platform_priority[position] = row.priority
    ok = (bytes(route_ok), tuple(route_priority), bytes(platform_ok), tuple(platform_priority))
    return Curation(version, *ok)


# --- One index per process ----------------------------------------------------------------------


def recheck_seconds() -> float:
    return float(getattr(settings, "CATALOG_SEARCH_RECHECK_SECONDS", 2.0))


class _IndexHolder:
    """Holds the process's index; checks the catalog version at most every recheck interval.

    While one thread rebuilds, others keep searching the previous index (safe: search re-reads
    eligibility of what it returns); only the very first build makes them wait.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._index: SearchIndex | None = None
        self._checked_at = -math.inf

    def current(self) -> SearchIndex:
        index = self._index
        if index is not None and time.monotonic() - self._checked_at < recheck_seconds():
            return index
        if not self._lock.acquire(blocking=index is None):
            return index  # another thread is checking or rebuilding
        try:
            return self._refresh()
        finally:
            self._lock.release()

    def _refresh(self) -> SearchIndex:
        index = self._index
        if index is not None and time.monotonic() - self._checked_at < recheck_seconds():
            return index  # checked by another thread while this one waited
        # The version is read before the rows: an index never claims a newer version than its
        # data, so a change racing the build causes one extra rebuild, never a stale index.
        text, curation = version = selectors.catalog_search_version()
        if index is None or index.version != text:
            index = self._index = search_index_build(version)
        elif index.curation.version != curation:
            index.curation = curation_load(index, curation)  # readers hold the old one meanwhile
        self._checked_at = time.monotonic()
        return index

    def invalidate(self) -> None:
        with self._lock:
            self._index, self._checked_at = None, -math.inf


_holder = _IndexHolder()


def search_index_current() -> SearchIndex:
    """This process's index, rebuilt first when the catalog changed (see the module docstring)."""
    return _holder.current()


def search_index_invalidate() -> None:
    """Drop this process's index; the next search rebuilds it. For writers in this process."""
    _holder.invalidate()
