"""The offline choice among a platform's filled routes (``agent.route``): a route taking the
subject the question names first, then the one whose values suit best, whose kind of feed and
name the question says; without a subject, the kind of feed asked for, then the search's order.
What each route says of the question is read by ``agent.routes.fit``."""

import re

from agent.regions import REGIONS, regions_said
from agent.routes.concepts import SYNONYMS
from agent.routes.fit import (
    HOST_IN_NAME_RE,
    LANGUAGE_INTENTS,
    feed_named,
    intent_refused,
    intent_said,
    intent_unasked,
    options_intent,
    own_language,
    path_said,
    path_words_joined,
    platform_words,
    quoted_names,
    region_said,
    route_intents,
    route_said,
    route_unconfigured,
    said_whole,
    values_written,
    whole_name_said,
)
from agent.routes.forms import CJK_RE
from agent.routes.named import kind_said
from agent.routes.params import FilledPath
from agent.routes.platform_names import platform_blank
from agent.routes.settings import region_named
from agent.routes.slots import route_slots
from agent.routes.unsaid import NOT_NAMED
from agent.vocabulary import EN_KIND_NOUNS, plural_stem
from catalog.models import Route


def offline_choice(
    query: str,
    filled: list[tuple],
    platforms: list[str],
    limit: int,
    scores: dict[int, float] | None = None,
) -> tuple[list[tuple[str, int]], bool]:
    """The first path of each platform, the platforms in the order they were chosen, at most
    ``limit``. ``filled`` holds (namespace, route, FilledPath, below a refused route about the
    question), in search order.

    A route that takes the subject the question names comes first; among those, the one whose
    values suit their parameters best, then the one taking the kind of subject the question
    names, then the one whose name and listed values say most of the question, then the one
    whose name asks least it did not. Below a
    refused route about the question, only routes about it or taking its subject are left.
    Without a subject, of routes the search scored alike (``scores``, by route id: "ChatGPT -
    Release Notes" and "ChatGPT Atlas - Release Notes"), the one whose name asks least comes
    first."""
    # a feed called by its own name, quoted (B站那个“入站必刷”榜单), is the one asked for, unless
    # another's whole name is said (保障房中心 共有产权住房租赁服务平台嘅「通知公告」: its column)
    names = quoted_names(query)
    quoted = [f for f in filled if f[1].name.casefold() in names]
    if quoted and not any(whole_name_said(query, f[1]) for f in filled if f not in quoted):
        filled = quoted
    said = {route.pk: route_said(query, route) for _ns, route, _path, _below in filled}
    region = {route.pk: region_said(query, route) for _ns, route, _path, _below in filled}
    intent = {
        # a kind of feed said counts twice: the workshop item's changelog "in English" is its
        # changelog, not the app's news in English
        route.pk: intent_said(query, route, kinds_twice=True) or options_intent(query, route, path)
        for _ns, route, path, _below in filled
    }
    filled = [
        f for f in filled if not f[3] or said[f[1].pk][0] or intent[f[1].pk] or f[2].names_subject
    ]
    # "iThome Taiwan" with a route reading Taiwan's site: the region is no one's name
    # (or with a route taking the country asked for: YouTube's charts for "South Korea")
    if any(region[f[1].pk] > 0 or _region_taken(f[2]) for f in filled):
        filled = [f for f in filled if not f[2].names_subject or not _region_only(f[2], query)]
    named = [f for f in filled if f[2].names_subject]
    # (or words that suit the search's parameter poorly: "want to see newly disclosed reports")
    if named and all(f[2].searches_only or f[2].fit < 0 for f in named):
        # "格隆汇快讯里有没有关于比亚迪的": a feed the question names (实时快讯) is read, and the
        # topic looked for in its items, rather than searched for on another route
        # (or by a word of its path: "hackerone hacktivity", /hackerone/hacktivity)
        feeds = [
            f
            for f in filled
            if not f[2].names_subject and (feed_named(query, f[1]) or path_said(query, f[1]))
        ]
        feeds = feeds if not any(feed_named(query, f[1]) for f in named) else []
        if feeds:
            named, filled = [], feeds
    # "MIT OpenCourseWare's most visited courses": a value that a subject-less route's name
    # says is that feed's name, no one's
    # and a value one lists, unless the question names the kind of a route taking a subject
    # ("IT之家 iPhone 标签": the tag, not the iPhone channel) or its name ("B站直播分区 86": the
    # live area, not the video area its list numbers 86)
    kinded = any(
        kind_said(r.name, r.path, query, r.parameters) or whole_name_said(query, r)
        for _n, r, _p, _b in named
    )
    titled = [
        f
        for f in filled
        if not f[2].names_subject
        and _names_values(
            f[1], None if kinded and not whole_name_said(query, f[1]) else f[2], named, query
        )
    ]
    # (unless a route taking it says more of the question: B站分区 tid 201 的视频排行榜 is the
    # ranking's, not the area listing 201)
    if titled:
        best = max((said_whole(query, f[1], f[2]) for f in named), default=0)
        titled = [f for f in titled if said_whole(query, f[1], f[2]) >= best]
    if titled:
        named, filled = [], titled
    kinds = {
        route.pk: kind_said(route.name, route.path, query, route.parameters)
        for _n, route, _p, _b in named
    }
    # Best suited values, then the kind of subject asked for, then the most words of the
    # question said (by the name or by a value it lists: types=release for "releases"), then
    # the fewest unasked ones; stable: search order.
    named.sort(
        key=lambda f: (
            route_unconfigured(f[1]),
            -f[2].fit,
            -region[f[1].pk],
            -kinds[f[1].pk],
            # the kind of feed asked for: releases, not commits; less each kind its name says
            # that is not asked for (绿洲用户 5623348512 的新动态: 用户收藏动态 is bookmarks')
            -(intent[f[1].pk] - 2 * intent_unasked(query, f[1])),
            # and of two, the one listing what its kind is of: "pull request activity" is the
            # activity feed of pull requests (``types=pr``), not the pull requests
            -bool(intent[f[1].pk] and f[2].options_named),
            -f[2].kinded,  # after the kind whose id it is: 歌单 2829883282, no user's
            -(said[f[1].pk][0] + f[2].options_named),
            -said[f[1].pk][0],  # a route named for it beats one listing it among others
            said[f[1].pk][1],
        )
    )
    if not named:  # no subject: the kind of feed asked for first, else the search's order (which
        # already weighs the words said with the routes' health and popularity)
        score = scores or {}
        # of a site's feeds one per language, the question's own
        editions = {k for f in filled for k in route_intents(f[1]) & LANGUAGE_INTENTS}
        own = {f[1].pk: len(editions) > 1 and own_language(query, f[1]) for f in filled}
        filled.sort(
            key=lambda f: (
                route_unconfigured(f[1]),
                -region[f[1].pk],  # the eShop of the country asked for
                # (not one whose value serves another kind: v2ex's latest of its hot or latest)
                intent_refused(query, f[1]) and "option" not in f[2].sources.values(),
                -intent[f[1].pk],
                -said_whole(query, f[1], f[2]),
                -path_said(query, f[1]),
                -own[f[1].pk],
                -values_written(query, f[2]),  # a value it lists written as such: (latest)
                -round(score.get(f[1].pk, 0.0), 6),
                said[f[1].pk][1] if f[1].pk in score else 0,
            )
        )
    rank = {namespace: i for i, namespace in enumerate(platforms)}
    pool = sorted(named or filled, key=lambda f: rank.get(f[0], len(rank)))
    firsts, done = [], set()
    for namespace, route, path, _below in pool:
        if namespace not in done:
            firsts.append((path.path, route.pk))
            done.add(namespace)
    # of the platforms' first routes taking the subject named, one serving the kind of feed
    # asked for comes first ("id1436953057 降价了提醒我": the App Store's Price Drop, over
    # Apple's App Update); stable: their order
    if named:
        firsts.sort(key=lambda first: -intent[first[1]])
    return firsts[:limit], bool(named)


def _names_values(
    route: Route, path: FilledPath | None, named: list[tuple], query: str = ""
) -> bool:
    """Every subject value of the routes taking one is a word of ``route``'s name, or of a
    value ``path`` chose from its list ("toutiao sports channel": news_sports, no user), or a
    part of a word of its path the question says ("839 Studio": /thepaper/839studio)."""
    values = {
        v.casefold()
        for _ns, _route, path_named, _below in named
        for k, v in path_named.params.items()
        if path_named.sources.get(k) not in NOT_NAMED
    }
    name = platform_blank(route.name, platform_words(route.platform))  # its own name: no title
    name = HOST_IN_NAME_RE.sub(" ", name)  # "Product tags in mcr.microsoft.com" says no microsoft
    words = set(re.findall(r"\w+", name.casefold()))
    chosen = (
        [(k, v) for k, v in path.params.items() if path.sources.get(k) == "option"] if path else []
    )
    words |= {w for _k, value in chosen for w in re.split(r"[\W_]+", value.casefold()) if w}
    words |= {k.casefold() for k, _value in chosen}  # "the Americas markets": market america
    if chosen:  # and its label: 科普教育's tkkt is 太空课堂
        slots = route_slots(route.path, route.parameters, route.description, route.example)
        labels = {(s.name, v): label for s in slots for label, v in s.choices if v != label}
        words |= {labels[item].casefold() for item in chosen if item in labels}
    parts = path_words_joined(query, route) if query else set()
    # a value with its kind ("pip packages") is the value alone
    # a Chinese value anywhere in the name (付费 of 最新上架付费专栏)
    name = name.casefold()
    spaceless = {w.replace(" ", "") for w in words}
    return bool(values) and all(
        v in words
        or {plural_stem(w) for w in _unkinded(v)} <= {plural_stem(w) for w in words}
        or any(v in w for w in parts)
        or (CJK_RE.match(v) and len(v) > 1 and v in name)
        or (CJK_RE.search(v) and _in_latin(v) in spaceless)  # 安卓之家: "android 之家"
        for v in values
    )


def _in_latin(value: str) -> str:
    """A Chinese value with each concept word it holds in Latin (安卓之家: android之家)."""
    for row in SYNONYMS:
        latin = next((w for w in row if w.isascii()), None)
        for word in row:
            if latin and not word.isascii() and word in value:
                value = value.replace(word, latin)
    return value


def _unkinded(value: str) -> set[str]:
    return {w for w in re.split(r"[\W_]+", value) if w and w not in EN_KIND_NOUNS} or {value}


def _region_only(path: FilledPath, query: str) -> bool:
    """Every subject value of ``path`` is a country's or a region's name (Taiwan, 日本) or a
    word of one the question says (South of South Korea)."""
    words = {
        w.casefold()
        for code in regions_said(query)
        for name in REGIONS[code][0]
        for w in name.split()
    }
    # (as the value is, or written as a handle: @South)
    named = [v.lstrip("@") for k, v in path.params.items() if path.sources.get(k) not in NOT_NAMED]
    return bool(named) and all(
        (regions_said(v) or v.casefold() in words) and len(v) <= 20 for v in named
    )


def _region_taken(path: FilledPath) -> bool:
    """``path`` takes a country or a region the question names (a listed value of a parameter
    named for one: ``country``)."""
    return any(source == "option" and region_named(k) for k, source in path.sources.items())
