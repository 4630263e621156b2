"""What a route says of the question, read from its name, path and parameters against the
question's words, for the route node's offline choice (``agent.routes.offline``):

- the words of a route's name and the kinds of subject it takes that the question says
  (``agent.routes.named``);
- the kinds of feed it serves that the question asks for, its region and language;
- its parameters filled from the question (``route_fill``), whose fit comes first of all.
"""

import functools
import itertools
import re

from agent.question import EN_STOP, language_of
from agent.regions import REGIONS, regions_said
from agent.routes.entities import Asked
from agent.routes.enums import label_said, said_translated
from agent.routes.forms import QUOTED_RE, address_host
from agent.routes.named import NAME_WORD_RE, name_said, words_joined
from agent.routes.params import FilledPath, params_fill
from agent.routes.platform_names import platform_blank
from agent.routes.queries import WRITTEN_QUERY_RE
from agent.routes.slots import PARAM_TOKEN_RE as PARAM_RE
from agent.routes.slots import pointed_above, route_slots, route_words
from agent.routes.unsaid import NOT_NAMED
from agent.routes.words import GENERIC
from agent.vocabulary import (
    FILLER_ZH_WORDS,
    LATIN_WORD_RE,
    NEGATED_RE,
    asked_intents,
    intent_word,
    intents_of,
    plural_stem,
)
from catalog.models import Platform, Route
from catalog.search_fields import script_parts
from catalog.segment import zh_words
from fetching.models import Outcome

# Words for any site's content, which name no one feed of it (文章: articles of any kind).
CONTENT_ZH = frozenset(str.split("文章 新闻 资讯 内容 帖子 视频 动态 更新 最新 最热 热门 主题"))
LATIN_LETTER_RE = re.compile(r"[A-Za-z]")
HOST_IN_NAME_RE = re.compile(r"\b(?:[a-z0-9-]+\.)+[a-z]{2,12}\b", re.I)
# The kinds of feed that are a site's feed in one language (英文博客, 中文博客)
LANGUAGE_INTENTS = frozenset({"english", "chinese"})
KEYWORD_PARAM_RE = re.compile(r"/:(?:keyword|keywords|query|q)\b", re.I)
# A host a Radar rule reads as written: space.bilibili.com, not a pattern (:subdomain.x.com).
SECTION_HOST_RE = re.compile(r"[a-z0-9][a-z0-9.\-]*$")


def platform_words(platform: Platform) -> tuple[str, ...]:
    """The platform's names: they name the source, never what is asked about it."""
    return (platform.namespace, platform.name, *script_parts(platform.name), *platform.aliases)


def intent_blanks(platform: Platform) -> tuple[str, ...]:
    """The platform's names a question's kinds of feed are read apart from (关键评论网 asks for
    no 评论), save its aliases that are such a kind, alone ("tweets") or beside another of its
    names ("Github trending", BBC中文): said, they ask for it as much as they name the platform
    (a name of its own, 阿尔法快讯, asks for none)."""
    names = platform_words(platform)
    return tuple(w for w in names if w not in platform.aliases or not _kind_alias(w, names))


def _kind_alias(alias: str, names: tuple[str, ...]) -> bool:
    low = alias.casefold()
    others = (n.casefold() for n in names if n != alias and len(n) > 1)
    return bool(asked_intents(alias)) and (intent_word(alias) or any(n in low for n in others))


def platform_hosts(platform: Platform, radar: list | None = None) -> tuple[str, ...]:
    """The platform's host, under which a name is a blog's or a user's own
    (noahpinion.substack.com, ``entities.question_read``), then the hosts of its own sections
    that its routes' Radar rules read (space.bilibili.com: no user "space"); ``radar``: its
    routes' rules, read here when not given."""
    host = address_host(platform.url).casefold()
    if "." not in host:
        return ()
    if radar is None:
        radar = Route.objects.filter(platform_id=platform.pk).values_list("radar", flat=True)
    sections = {
        source.split("/")[0].casefold()
        for rules in radar
        for rule in rules or ()
        if isinstance(rule, dict)
        for source in rule.get("source") or ()
        if isinstance(source, str)
    }
    return (
        host,
        *sorted(s for s in sections if s.endswith("." + host) and SECTION_HOST_RE.match(s)),
    )


def route_reading(route: Route) -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...]]:
    """What the run's reading reads the query with for ``route``
    (``Reading.route_subjects``): its platform's names, the route's own words and the names of
    the platform's other routes (never a value: 知园's "newsletter" is its Newsletter route,
    no author of its notes) and its platform's host."""
    platform = route.platform
    rows = list(Route.objects.filter(platform_id=platform.pk).values_list("pk", "name", "radar"))
    siblings = {w for pk, name, _r in rows if pk != route.pk for w in route_words("", name)}
    excluded = route_words(route.path, route.name) | siblings
    return platform_words(platform), excluded, platform_hosts(platform, [r for *_x, r in rows])


def route_fill(
    route: Route,
    question: str,
    *,
    asked: Asked | None = None,
    hosts: tuple[str, ...] | None = None,
) -> FilledPath:
    """``route``'s path with its parameters filled from ``question`` (``params_fill``; ``asked``:
    the question's subjects as the run's reading gives them, ``hosts`` its platform's as
    ``route_reading`` read them); raises ``RoutePathRejected``."""
    return params_fill(
        template=route.path,
        parameters=route.parameters,
        description=route.description,
        example=route.example,
        question=question,
        platform_words=platform_words(route.platform),
        platform_hosts=platform_hosts(route.platform) if hosts is None else hosts,
        route_name=route.name,
        asked=asked,
        lent=values_lent(route),
    )


def values_lent(route: Route) -> dict[str, list[tuple[str, str]]]:
    """The values that another route of the platform lists for a parameter ``route`` documents
    "as above" (MyFigureCollection's pictures: "语言, 见上表", listed by its activity route)."""
    wanting = pointed_above(route.parameters)
    if not wanting:
        return {}
    lent: dict[str, list[tuple[str, str]]] = {}
    for other in Route.objects.filter(platform_id=route.platform_id).exclude(pk=route.pk):
        for slot in route_slots(other.path, other.parameters, other.description, other.example):
            if slot.name in wanting and slot.choices and slot.name not in lent:
                lent[slot.name] = slot.choices
    return lent


def route_said(query: str, route: Route) -> tuple[int, int]:
    """``name_said`` of the route's name, and the words of its path the question says whole
    that its name does not ("the itch.io *devlog*": ``/itch/devlog/...``, Developer Logs)."""
    said, unsaid = name_said(route.name, query, platform_words(route.platform), route.path)
    named = set(NAME_WORD_RE.findall(route.name.casefold()))
    return said + len(path_words_joined(query, route) - named), unsaid


def path_words_joined(query: str, route: Route) -> set[str]:
    """The words of the route's path the question says, whole or in two ("839 Studio" says
    ``/thepaper/839studio``)."""
    latin = LATIN_WORD_RE.findall(query.casefold())
    asked = set(latin) | {a + b for a, b in itertools.pairwise(latin)}
    return {w for w in _path_words(route) & asked if w not in EN_STOP}


def names_refused(query: str, path: FilledPath, refused: list[Route]) -> bool:
    """Every subject value of ``path`` is a word of the path of a route refused for want of its
    subject ("my juejin 收藏集 (collections)": the feed ``/juejin/collections/:userId``, no tag
    "collections")."""
    words = {w for route in refused for w in path_words_joined(query, route)}
    values = [v.casefold() for k, v in path.params.items() if path.sources.get(k) not in NOT_NAMED]
    return bool(words) and bool(values) and all(v in words for v in values)


def path_said(query: str, route: Route) -> int:
    """How many words of the route's own path the question says, singular or plural (the
    Farmatters "exclusives": ``/farmatters/exclusive``, not ``/farmatters/:locale?``)."""
    return len(_path_words_said(query, route))


def _language_word(word: str) -> bool:
    return bool(asked_intents(word) & LANGUAGE_INTENTS)


def _path_words_said(query: str, route: Route) -> set[str]:
    asked = set(LATIN_WORD_RE.findall(query.casefold()))
    asked |= {plural_stem(w) for w in asked}
    return _path_words(route) & asked


def _path_words(route: Route) -> set[str]:
    """The Latin words of the route's own path that may name it: longer than three letters,
    no word for any feed."""
    literal = set(LATIN_WORD_RE.findall(template_literals(route.path).casefold()))
    return {w for w in literal if len(w) > 3 and w not in GENERIC}


def template_literals(template: str) -> str:
    """The literal words of a route's path past its namespace (``/gitee/releases/:owner``:
    releases), its parameters left out."""
    return " ".join(PARAM_RE.sub(" ", template).strip("/").split("/", 1)[1:])


def template_intents(name: str, template: str) -> frozenset[str]:
    """The kinds of feed a route serves (``agent.vocabulary.INTENTS``), read from its name and
    its path's literal words past the namespace (``/gitee/releases/...``: releases), and a
    search where a parameter is a keyword (Google Alerts' ``:keyword``)."""
    searched = "search" if KEYWORD_PARAM_RE.search(template) else ""
    return intents_of(f"{name} {template_literals(template)} {searched}")


def route_intents(route: Route) -> frozenset[str]:
    return template_intents(platform_blank(route.name, platform_words(route.platform)), route.path)


def own_language(query: str, route: Route) -> bool:
    """The route is a feed in the question's own language, and the question names none
    ("Hugging Face blog" reads 英文博客, not 中文博客). Read only where the site has a feed
    for each language (``agent.routes.offline``)."""
    kinds = route_intents(route) & LANGUAGE_INTENTS
    if not kinds or asked_intents(query) & LANGUAGE_INTENTS:
        return False
    return ("chinese" if language_of(query) == "zh" else "english") in kinds


def intent_refused(query: str, route: Route) -> bool:
    """The route serves a kind of feed the question says it does not want ("not the chinese
    one": the Chinese daily briefing)."""
    refused = " ".join(m.group(0) for m in NEGATED_RE.finditer(query))
    return bool(refused) and bool(intents_of(refused) & route_intents(route))


def intent_said(query: str, route: Route, *, kinds_twice: bool = False) -> int:
    """How many kinds of feed the question asks for (releases, 发行版, discussions...) the route
    serves: among a platform's routes, the one for what was asked. The platform's own name
    asks for none (``intents_apart``). ``kinds_twice``: a kind that is no language counts
    twice (a changelog, not 英文: what is read weighs over the language it is read in)."""
    served = intents_apart(query, intent_blanks(route.platform)) & route_intents(route)
    return len(served) + (len(served - LANGUAGE_INTENTS) if kinds_twice else 0)


def intent_unasked(query: str, route: Route) -> int:
    """How many kinds of feed the route's name says (no language) that the question does not
    ask for, beside one it asks for: 用户收藏动态 says bookmarks to "新动态"."""
    served = route_intents(route) - LANGUAGE_INTENTS
    asked = intents_apart(query, intent_blanks(route.platform))
    return len(served - asked) if served & asked else 0


def options_intent(query: str, route: Route, path: FilledPath) -> int:
    """How many languages the question asks for the listed values ``path`` takes serve: NYT's
    news in "Traditional Chinese" serves 中文 as its Chinese briefing does, and left at its
    default ("language, default to Chinese") in Chinese. A query written out
    (``hl=en-GB&gl=GB``) asks its own parameter, no language of a feed."""
    unwritten = WRITTEN_QUERY_RE.sub(" ", query)
    asked = intents_apart(unwritten, intent_blanks(route.platform)) & LANGUAGE_INTENTS
    if not asked:  # most questions ask for no language: the route's slots go unread
        return 0
    chosen = {k: v for k, v in path.params.items() if path.sources.get(k) == "option"}
    slots = route_slots(route.path, route.parameters, route.description, route.example)
    languages = [s for s in slots if s.chooses_language]
    labels = " ".join(
        [label for s in languages for label, v in s.choices if v == chosen.get(s.name)]
        + [chosen[s.name] for s in languages if s.name in chosen]
        + [s.default for s in languages if s.name not in path.params and s.default]
    )
    return len(asked & asked_intents(labels))


@functools.lru_cache(maxsize=1024)  # asked again for each route of a platform
def intents_apart(query: str, names: tuple[str, ...]) -> frozenset[str]:
    """The kinds of feed ``query`` asks for beside the platforms' ``names``: 关键评论网 asks for
    no 评论."""
    return asked_intents(platform_blank(query, names))


# A site's international edition, said so: 国际服, "the global version"
INTERNATIONAL_RE = re.compile(
    r"国际(?:服|版|站)|國際(?:服|版|站)|海外(?:服|版)|\b(?:international|global|intl)\s+"
    r"(?:version|edition|server|site|app)\b|\bintl\b",
    re.I,
)
INTERNATIONAL_SEGMENTS = frozenset(("intl", "global", "international"))


def region_said(query: str, route: Route) -> int:
    """1 when the route reads the country or region the question names (``/nintendo/eshop/us``,
    "(US)" in its name), -1 when it reads only another one, else 0."""
    said = regions_said(query)
    segments = set(template_literals(route.path).casefold().split("/"))
    if segments & INTERNATIONAL_SEGMENTS and INTERNATIONAL_RE.search(query):
        return 1  # "taptap国际服": the site's international edition, /taptap/intl/...
    if not said:
        return 0
    capitals = set(re.findall(r"\b[A-Z]{2}\b", route.name))
    codes = {c for c in REGIONS if c in segments or c.upper() in capitals}
    return 0 if not codes else (1 if codes & said else -1)


def quoted_names(query: str) -> set[str]:
    """What the question quotes (“入站必刷”, "Trending"): a feed it may call by its own name."""
    return {next(g for g in m.groups() if g).strip().casefold() for m in QUOTED_RE.finditer(query)}


def feed_named(query: str, route: Route) -> bool:
    """The question names the route's feed by a word of its name (the 快讯 of 实时快讯, the
    "newsflashes" of Newsflashes), not by a word for any content (文章, posts): a Latin word
    whole, a Chinese pair of characters."""
    name = platform_blank(route.name, platform_words(route.platform)).casefold()
    asked = query.casefold()
    latin = set(LATIN_WORD_RE.findall(asked))
    words = NAME_WORD_RE.findall(name)
    return any(
        (w in latin and len(w) > 3 and w not in EN_STOP and w not in GENERIC)
        if w.isascii()
        else any(
            p in asked and p not in CONTENT_ZH for p in (w[i : i + 2] for i in range(len(w) - 1))
        )
        for w in words
    )


def _name_words(route: Route) -> list[str]:
    return NAME_WORD_RE.findall(
        platform_blank(route.name, platform_words(route.platform)).casefold()
    )


def whole_name_said(query: str, route: Route) -> bool:
    """The question says the route's whole name, its platform's names aside."""
    name = _name_words(route)
    return bool(name) and _words_said(platform_blank(query, platform_words(route.platform)), name)


def _words_said(query: str, words: list[str]) -> bool:
    # 生命科学学院的通知公告 says 生命科学学院通知公告
    asked = query.casefold().replace("\u7684", "")
    latin = set(LATIN_WORD_RE.findall(asked)) | words_joined(asked)
    latin |= {plural_stem(w) for w in latin}  # "Research Highlights" says Research Highlight
    # and a name of its own 的 (即将播出的剧集) is said without it as with it
    return all(
        w in latin if w.isascii() else _zh_said(w.replace("\u7684", ""), asked) for w in words
    )


def _zh_parts(words: list[str]) -> list[str]:
    """A Chinese name's segmented ``words``, a lone character kept with the word before it
    (美数课)."""
    parts: list[str] = []
    for part in words:
        if len(part) < 2 and parts:
            parts[-1] += part
        else:
            parts.append(part)
    return parts


def _core_said(query: str, name: list[str]) -> int:
    """How long the proper names of a Chinese route name are (words the segmenter does not
    know, no filler in them), when the question says them all in order: 澎湃美数课作品集 said
    as "美数课的新作品". 0 when the name has a word of Latin letters, or no such name."""
    if not name or any(w.isascii() for w in name):
        return 0
    core = []
    for word in (w.replace("\u7684", "") for w in name):  # 的 is no part of a name
        known = zh_words(word)  # segmented once: a part not among them was merged
        core += [
            part
            for part in _zh_parts(known)
            if part not in known and not any(f in part for f in FILLER_ZH_WORDS)
        ]
    said = _words_said(query, core) if core else False
    return sum(len(p) for p in core) if said else 0


def _zh_said(word: str, asked: str) -> bool:
    """A Chinese name is said whole, or word by word in its order with words between
    ("教务处一发通知公告" says 教务处通知公告)."""
    if word in asked:
        return True
    parts = _zh_parts(zh_words(word))
    at = 0
    for part in parts:
        found = asked.find(part, at)
        if len(part) < 2 or found < 0:
            return False
        at = found + len(part)
    return True


def said_whole(query: str, route: Route, path: FilledPath) -> int:
    """How long the things are that the question says whole the route stands for: its name
    (its platform's names left out: 首页, Today) and the label of a value it lists that the
    question chose (F.I.X 字幕侠's group), or that value itself in words (Caixin's "finance"
    section); 0 when it says none. Spaces aside. A route named and with a label said (金色财经
    快讯 with NFT) beats one with the label alone."""
    name = _name_words(route)
    apart = platform_blank(query, platform_words(route.platform))  # 关键评论网 says no 评论
    length = len("".join(name)) if name and _words_said(apart, name) else 0
    # a word of its own path said names it as its name does (Zaobao's "realtime section":
    # ``/zaobao/realtime``, over a route listing ``realtime`` among its values)
    own = {w.casefold() for name in platform_words(route.platform) for w in name.split()}
    wanted = NEGATED_RE.sub(" ", query)  # "not the chinese edition" names no /chinese
    # (a language is no name: "Chinese edition news" asks for the language, which the intents
    # weigh, and names the news, not the Chinese daily briefing)
    said = {w for w in _path_words_said(wanted, route) - own if not _language_word(w)}
    length = length or sum(len(w) for w in said)
    # said only in the other language (临时展览: "Temporary Exhibitions"), it weighs least
    length = length or int(bool(name) and said_translated(apart, " ".join(name)))
    length = length or _core_said(apart, name)
    chosen = [k for k, source in path.sources.items() if source == "option"]
    if chosen:
        slots = route_slots(route.path, route.parameters, route.description, route.example)
        labels = (
            label_said(query, [*s.choices, *_worded(value)], value)
            for s in slots
            # the language a feed is read in names no feed ("English is fine")
            if s.name in chosen and (value := path.params[s.name]) and not s.chooses_language
        )
        length += max(labels, default=0)  # its name said, and a value it lists by its label
    return length


def values_written(query: str, path: FilledPath) -> int:
    """How many of the listed values chosen the question writes as they are, a Latin word of
    three letters or more ("“最新”那个单集列表 (latest)"): not a value read from a label."""
    return sum(
        source == "option"
        and len(value := path.params.get(name, "")) >= 3
        and LATIN_LETTER_RE.search(value) is not None  # a number (7.5) is no word written
        and re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", query, re.I | re.ASCII) is not None
        for name, source in path.sources.items()
    )


def _worded(value: str) -> list[tuple[str, str]]:
    """A value of Latin words as its words, its label: ``current_affairs`` is "current
    affairs", ``7days`` "7 days" (a number is no word said)."""
    if not LATIN_LETTER_RE.search(value):
        return []
    return [(re.sub(r"[_\-]+|(?<=\d)(?=[a-z])", " ", value, flags=re.I), value)]


def route_about(query: str, route: Route) -> bool:
    """The route is about the question: its name says a word of it, or it serves a kind of feed
    the question asks for."""
    return route_said(query, route)[0] > 0 or intent_said(query, route) > 0


def route_unconfigured(route: Route) -> bool:
    """The instance refused the route's last fetch for a configuration it lacks: any route
    that works comes before it (``agent.routes.setup``)."""
    return route.last_error_class == Outcome.NEEDS_CONFIG
