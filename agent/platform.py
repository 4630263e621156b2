"""The platform node: up to three platforms, chosen from the candidates the catalog search
returned for the rewritten query.

The model picks among the offered namespaces and says why; a namespace not offered is refused.
Offline, the top candidate is chosen with the others whose score is close to it. A single
candidate is taken without asking. Utility namespaces (``fetching.paths.UTILITY_NAMESPACES``,
refused by path confinement) are never candidates, and neither are platforms tried before in
this run (the router widens by excluding them).
"""

import re

from asgiref.sync import sync_to_async
from django.db.models import Count, Q

from agent import llm
from agent.context import RunContext
from agent.instances import instance_platform
from agent.mode import METHOD_ONLY_CANDIDATE, model_or_offline
from agent.platform_named import (
    common_names,
    name_pattern,
    named,
    named_as_place,
    named_as_topic,
)
from agent.routes.forms import (
    BARE_URL_RE,
    DOMAIN_RE,
    FEDI_HANDLE_RE,
    PAIR_RE,
    SCHEME_RE,
    VIDEO_RE,
    address_host,
)
from agent.routes.page import page_namespaces
from agent.routes.setup import platforms_waiting
from briefs import reasons
from catalog.abbreviations import initial_runs
from catalog.models import Platform, Route
from catalog.search import PlatformHit, search_catalog
from catalog.search_fields import registrable_domain
from fetching.paths import UTILITY_NAMESPACES

MAX_PLATFORMS = 3
# A name too short to be a search term ("X") said as the place to read: "on X", "X 上", "在 X",
# or before what is posted there: "that X post", "the X thread".
SHORT_PLACE_RE = re.compile(
    r"\b(?:on|at)\s+([A-Z][A-Za-z0-9]?)(?![\w.'-])|(?<![\w.-])([A-Z][A-Za-z0-9]?)\s*上(?!海)"
    r"|在\s*([A-Z][A-Za-z0-9]?)(?![\w.-])"
    r"|\b(?:that|this|the|an?)\s+([A-Z])\s+(?:post|thread|account|timeline)s?\b"
)
# A subject value whose form is one platform's, where the question names no platform: a BV (or
# av) id is a bilibili video, a user@host handle a Mastodon account, an owner/repo pair a GitHub
# repository (Gitee's and GitLab's are named as such), a hashtag on a domain a Mastodon
# instance's timeline, a name before 吧 that the question reads
# from (李毅吧最新的帖子, 原神吧里) a Baidu Tieba forum.
FORUM_BAR_RE = re.compile(
    r"(?<![\u4e00-\u9fff])[\u4e00-\u9fffA-Za-z0-9]{2,10}吧(?=最新|最近|的|里|有|上|今|新|热|精|帖|按)"
)
# A hashtag on an instance's domain ("#rustlang on fosstodon.org"): a fediverse timeline.
INSTANCE_TAG_RE = re.compile(
    rf"#\w+.{{0,40}}?(?:\b(?:on|at)\s+|在\s*){DOMAIN_RE.pattern}"
    rf"|{DOMAIN_RE.pattern}\s*(?:上|里).{{0,20}}?#\w+",
    re.I,
)
# An UP 主 is bilibili's word for a channel's owner, when the question names no platform.
UPLOADER_RE = re.compile(r"(?<![A-Za-z])UP\s?主", re.I)
VALUE_HOMES = (
    (VIDEO_RE, "bilibili"),
    (UPLOADER_RE, "bilibili"),
    (INSTANCE_TAG_RE, "mastodon"),
    (FEDI_HANDLE_RE, "mastodon"),
    (PAIR_RE, "github"),
    (FORUM_BAR_RE, "baidu"),
)
PLATFORM_CANDIDATES = 8
CLOSE_TO_TOP = 0.5  # offline: other platforms chosen when their score is this close to the top
NAMED_RIVAL = 0.7  # offline: another platform named is read when its name is found this strongly


def platform_candidates(ctx: RunContext) -> list[PlatformHit]:
    result = search_catalog(
        ctx.rewrite.query,
        platform_limit=PLATFORM_CANDIDATES,
        limit=PLATFORM_CANDIDATES,
        exclude_namespaces=ctx.tried_namespaces | UTILITY_NAMESPACES,
    )
    return [p for p in result.platforms if p.namespace not in UTILITY_NAMESPACES]


def platforms_offline(
    candidates: list[PlatformHit],
    query: str = "",
    strengths: dict[str, float] | None = None,
    common: frozenset[str] = frozenset(),
) -> tuple[list[str], str]:
    """The top candidate and those close to it; when the top is a platform the question names,
    only platforms it names about as strongly (``strengths``: of each name found, from
    ``catalog.search.platforms_named``): a source asked for by name is never read from another
    one, nor from one a common word of it names ("Hugging Face daily *papers*"), unless the
    question says it as the place to read ("transcripts for Tesla *from Seeking Alpha*"). Of
    two platforms it names, the one it names as the place to read comes first ("microsoft 组织在
    GitHub 上的事件": GitHub, where Microsoft is the subject), and a top one named only as
    what to look for ("bing search results for openwrt") or as a plain word ("the hot
    threads") gives way to one named as a source (``common``: the candidates named so, from
    ``common_names``)."""

    # the top one named only as what to look for, or only as a plain word, gives way to
    # another named as a source
    def as_word(c: PlatformHit) -> bool:  # see ``common_names``
        return c.namespace in common

    if named_as_topic(candidates[0], query) or as_word(candidates[0]):
        sources = [c for c in candidates if named(c) and not named_as_topic(c, query)]
        sources.sort(key=as_word)
        candidates = [*sources[:1], *(c for c in candidates if c not in sources[:1])]
    top = candidates[0].score
    close = [c for c in candidates if c.score >= top * CLOSE_TO_TOP]
    if named(candidates[0]):
        strengths = strengths or {}
        floor = strengths.get(candidates[0].namespace, 0.0) * NAMED_RIVAL
        close = [
            c
            for c in close
            if named(c) and (strengths.get(c.namespace, floor) >= floor or named_as_place(c, query))
        ]
    # of the platforms read, the one named as the place to read comes first ("虎扑上凯尔特人的新闻"
    # reads 虎扑 first, though the search found 懂球帝 first), then one named plainly ("IT之家
    # 7 天最热文章": not 格隆汇, whose route is named 最热文章); stable: the search's order
    said = strengths or {}
    strong = max(said.values(), default=0.0) * NAMED_RIVAL
    close.sort(
        key=lambda c: (
            not named_as_place(c, query),
            named_as_topic(c, query),  # "bing search results for openwrt": bing
            # "new threads" names Threads only as a plain word: no ground to come first
            not (named(c) and not as_word(c) and said.get(c.namespace, 0.0) >= strong),
        )
    )
    chosen = [c.namespace for c in close][:MAX_PLATFORMS]
    score = f"{top:.2f}"
    if len(chosen) > 1:
        return chosen, reasons.PLATFORM_TOP_AND_CLOSE.english(score=score, count=len(chosen) - 1)
    return chosen, reasons.PLATFORM_TOP.english(score=score)


def named_waiting(ctx: RunContext, candidates: list[PlatformHit]) -> list[str]:
    """The platform the question names whose routes all wait for staff (Pixiv, left disabled by
    the import), when no candidate is a platform it names: the platform asked for, not one the
    search found in its place (``agent.routes.setup``); nor when the candidate's name is said
    more strongly ("a Pixiv artist I *follow*" names Pixiv, not the reader called Follow)."""
    strengths = ctx.reading.platforms_named()
    top = strengths.get(candidates[0].namespace, 0.0) if candidates else 0.0
    if candidates and named(candidates[0]) and top >= max(strengths.values(), default=0.0):
        return []
    offered = {c.namespace for c in candidates} | ctx.tried_namespaces | UTILITY_NAMESPACES
    said = [ns for ns, strength in strengths.items() if ns not in offered and strength > top]
    return platforms_waiting(said)[:1] if said else []


def named_short(ctx: RunContext, candidates: list[PlatformHit]) -> list[str]:
    """The platforms whose name is too short for the search ("X (Twitter)" is X) when the
    question says it as the place to read ("trending on X", "X 上") and names no candidate;
    the largest first."""
    if candidates and named(candidates[0]):
        return []
    said = {m for match in SHORT_PLACE_RE.finditer(ctx.rewrite.query) for m in match.groups() if m}
    if not said:
        return []
    names = Q()
    for name in said:
        names |= Q(name=name) | Q(name__startswith=f"{name} (")
    found = (
        Platform.objects.filter(names, enabled=True, routes__enabled=True)
        .exclude(namespace__in=ctx.tried_namespaces | UTILITY_NAMESPACES)
        .annotate(readable=Count("routes"))
        .order_by("-readable", "namespace")
    )
    return [p.namespace for p in found[:MAX_PLATFORMS]]


def initials_home(ctx: RunContext, candidates: list[PlatformHit]) -> list[str]:
    """The platform whose address a name the question says spells, by its initials or its
    words run together: "Zhejiang University" is zju, the label of zju.edu.cn, "Sin Chew Daily"
    sinchew (``catalog.abbreviations.initial_runs``). Not when the first candidate is named
    by more than a word of that name ("Beijing" of "Beijing Wuzi University" names no home),
    nor when a capitalised word of its name is said first ("Rockstar Social Club" is Rockstar
    Games', not rsc)."""
    query = ctx.rewrite.query
    runs = initial_runs(query)
    if not runs:
        return []
    first = candidates[0] if candidates else None
    for run, spellings in runs:
        if first and (_named_outside(first, query, run) or _name_word_said(first, query)):
            continue
        if home := _spelled_home(ctx, spellings):
            return [home]
    return []


def _named_outside(candidate: PlatformHit, query: str, run: re.Match) -> bool:
    """The question names ``candidate``, and not only by a word of the name ``run`` says."""
    if not named(candidate):
        return False
    cut = query[: run.start()] + " " * len(run.group(0)) + query[run.end() :]
    names = {candidate.namespace, candidate.name, candidate.named_by} - {""}
    inside = [n for n in names if re.search(name_pattern(n), run.group(0), re.I)]
    whole = [n for n in inside if len(n.replace(" ", "")) >= len(run.group(0).replace(" ", "")) - 2]
    return bool(whole) or not inside or any(re.search(name_pattern(n), cut, re.I) for n in names)


def _spelled_home(ctx: RunContext, spellings: set[str]) -> str | None:
    initials = {s for s in spellings if not s.endswith("-")}
    joined = {s[:-1] for s in spellings if s.endswith("-")}
    if not initials | joined:
        return None
    labels = "|".join(sorted(map(re.escape, initials | joined)))
    found = (
        Platform.objects.filter(enabled=True, routes__enabled=True)
        .filter(
            Q(namespace__in=initials | joined) | Q(url__iregex=rf"(^|[./])({labels})\.[a-z.]+$")
        )
        .exclude(namespace__in=ctx.tried_namespaces | UTILITY_NAMESPACES)
        .values_list("namespace", flat=True)
        .distinct()
    )
    return min(found, default=None)


# The first words of many names, no owner's own ("University of Massachusetts Amherst")
SHARED_NAME_WORDS = frozenset(str.split("University College Institute School Academy National"))


def _name_word_said(candidate: PlatformHit, query: str) -> bool:
    first = candidate.name.split()[0] if candidate.name.split() else ""
    if len(first) < 4 or not first.isalpha() or not first[0].isupper():
        return False
    if first in SHARED_NAME_WORDS:
        return False
    return re.search(rf"\b{re.escape(first)}\b", query) is not None


def page_home(ctx: RunContext, _candidates: list[PlatformHit]) -> list[str]:
    """The platform whose page the question gives, when RSSHub Radar's rules map the page to
    one of its routes ("https://github.com/vercel/next.js/issues"): the page says the site more
    plainly than any name ("next.js" is also a platform's)."""
    return page_namespaces(ctx, ctx.tried_namespaces | set(UTILITY_NAMESPACES))


def site_home(ctx: RunContext, candidates: list[PlatformHit]) -> list[str]:
    """The readable platform whose page address the question gives (soundcloud.com/odesza,
    greasyfork.org/scripts/423851-simple-youtube-...): the address says the site, whatever
    names its page's words hold (youtube) or the search found."""
    site = _site_addressed(ctx, ctx.rewrite.query, tuple(c.namespace for c in candidates))
    # or, a hashtag on a host no platform has, the federated one it is an instance of
    site = site or instance_platform(ctx.rewrite.query, ctx.tried_namespaces)
    return [site] if site else []


def value_home(ctx: RunContext, candidates: list[PlatformHit]) -> list[str]:
    """The platform whose value the question names by its form ("tokio-rs/tokio 的贡献者",
    "BV1GJ411x7h7 的评论"), when it names no platform at all: the search's candidates for the
    other words ("贡献者") are any site's."""
    query = ctx.rewrite.query
    if (candidates and named(candidates[0])) or ctx.reading.platforms_named():
        return []
    for pattern, namespace in VALUE_HOMES:
        found = [m.group(0) for m in pattern.finditer(query)]
        if pattern is PAIR_RE:  # AI/ML, TCP/IP: two short words, no owner and name
            found = [f for f in found if any(len(part) > 3 for part in f.split("/"))]
        if found and namespace not in ctx.tried_namespaces:
            readable = Platform.objects.filter(
                namespace=namespace, enabled=True, routes__enabled=True
            )
            if readable.exists():
                return [namespace]
    return []


def _site_addressed(ctx: RunContext, query: str, ranked: tuple[str, ...] = ()) -> str | None:
    """The readable platform whose own address the question gives ("soundcloud.com/odesza",
    "mdpi.com/journal/sensors", a search's "https://magazinelib.com/?s=new+yorker", the host
    alone: outage.report); of two at one address (bytes.dev's newsletters), the one ranked
    first by the search (``ranked``)."""
    bare = SCHEME_RE.sub(" ", query)
    hosts = {m.group(1).casefold().removeprefix("www.") for m in BARE_URL_RE.finditer(bare)}
    hosts |= {m.group(1).casefold() for m in SCHEMED_HOST_RE.finditer(query)}
    # a site's host said alone ("a feed from outage.report") when it is the platform's own
    hosts |= {m.group(1).casefold().removeprefix("www.") for m in DOMAIN_RE.finditer(bare)}
    if not hosts:
        return None
    found = (
        Platform.objects.filter(enabled=True, routes__enabled=True)
        .filter(Q(url__in=hosts) | Q(url__in=[f"www.{h}" for h in hosts]))
        .exclude(namespace__in=ctx.tried_namespaces)
        .values_list("namespace", flat=True)
        .distinct()
    )
    found = sorted(found, key=lambda ns: ranked.index(ns) if ns in ranked else len(ranked))
    return next(iter(found), None) or _site_of_domain(ctx, hosts) or _site_of_rules(ctx, hosts)


def _site_of_rules(ctx: RunContext, hosts: set[str]) -> str | None:
    """The one readable platform whose Radar rules read pages of the address's host, another
    than its site's own (Steam's ``steamcommunity.com`` pages, its site store.steampowered.com)."""
    near = Q()
    for host in hosts:
        near |= Q(radar__icontains=f'"{host}/') | Q(radar__icontains=f'"www.{host}/')
    found = set(
        Route.objects.filter(near, enabled=True, platform__enabled=True)
        .exclude(platform__namespace__in=ctx.tried_namespaces | UTILITY_NAMESPACES)
        .values_list("platform__namespace", flat=True)
        .distinct()
    )
    return next(iter(found)) if len(found) == 1 else None


def _site_of_domain(ctx: RunContext, hosts: set[str]) -> str | None:
    """The one readable platform on another host of the address's registered domain
    (news.dlut.edu.cn is 大连理工大学's, whose feeds live at dutdice.dlut.edu.cn); none when
    two platforms share it."""
    domains = {registrable_domain(host) for host in hosts}
    near = Q()
    for domain in domains:
        near |= Q(url__iendswith=f".{domain}") | Q(url__iexact=domain)
    rows = (
        Platform.objects.filter(near, enabled=True, routes__enabled=True)
        .exclude(namespace__in=ctx.tried_namespaces | UTILITY_NAMESPACES)
        .values_list("namespace", "url")
        .distinct()
    )
    found = {ns for ns, url in rows if registrable_domain(address_host(url)) in domains}
    return next(iter(found)) if len(found) == 1 else None


# A web address's host, whatever follows it (a path, a query, nothing)
SCHEMED_HOST_RE = re.compile(r"\bhttps?://(?:www\.)?((?:[a-z0-9\-]+\.)+[a-z]{2,12})\b", re.I)


def _choice_schema(options: list[str], max_items: int) -> dict:
    return {
        "type": "object",
        "properties": {
            "chosen": {
                "type": "array",
                "items": {"type": "string", "enum": options},
                "description": f"1 to {max_items} of the offered, best first",
            },
            "reason": {"type": "string"},
        },
        "required": ["chosen", "reason"],
        "additionalProperties": False,
    }


def _platforms_validate(value: dict, offered: list[str]) -> tuple[list[str], str]:
    chosen = value.get("chosen")
    if not isinstance(chosen, list) or not chosen:
        raise ValueError("chosen must be a non-empty list of offered namespaces")
    unknown = [c for c in chosen if c not in offered]
    if unknown:
        raise ValueError(f"not offered: {unknown[:3]}; choose only from {offered}")
    reason = value.get("reason") if isinstance(value.get("reason"), str) else ""
    return list(dict.fromkeys(chosen))[:MAX_PLATFORMS], reason[:300]


async def node_platform(ctx: RunContext) -> bool:
    """Choose up to three platforms; False when the catalog offers none that is left."""
    candidates = await sync_to_async(platform_candidates)(ctx)
    for find, why in (
        (page_home, reasons.PLATFORM_PAGE),
        (site_home, reasons.PLATFORM_PAGE),
        (named_waiting, reasons.PLATFORM_NAMED_WAITING),
        (named_short, reasons.PLATFORM_NAMED_PLACE),
        (initials_home, reasons.PLATFORM_NAMED_PLACE),
        (value_home, reasons.PLATFORM_VALUE_HOME),
    ):
        if said := await sync_to_async(find)(ctx, candidates):
            ctx.platforms = said
            ctx.tried_namespaces.update(said)
            reason = why.english()
            await ctx.step("choice", node="platform", chosen=said, reason=reason, method="offline")
            return True
    items = [
        {"namespace": c.namespace, "name": c.name, "score": round(c.score, 3)} for c in candidates
    ]
    if ctx.use_llm and len(candidates) > 1:
        await ctx.step("candidates", node="platform", items=items)  # shown while the model thinks
    else:
        ctx.step_hold("candidates", node="platform", items=items)  # written with the choice
    if not candidates:
        await ctx.steps_flush()
        return False
    offered = [c.namespace for c in candidates]
    strengths = await sync_to_async(ctx.reading.platforms_named)()
    common = await sync_to_async(common_names)(candidates, ctx.rewrite.query)

    def call():
        listing = "\n".join(f"- {c.namespace}: {c.name} (score {c.score:.2f})" for c in candidates)
        prompt = (
            f"{llm.now_text()}\n\nQuery: {ctx.rewrite.query}\n\nCandidate platforms "
            f"(namespace: name):\n{listing}\n\nChoose at most {MAX_PLATFORMS} platforms most "
            "likely to have fresh items answering the query, best first, and say why."
        )
        return llm.llm_choose(
            user=ctx.owner,
            node="platform",
            role="router",
            system=llm.SYSTEM_ROUTER,
            prompt=prompt,
            schema=_choice_schema(offered, MAX_PLATFORMS),
            validate=lambda v: _platforms_validate(v, offered),
            deadline=ctx.llm_deadline,
        )

    if len(offered) == 1 and ctx.use_llm:
        chosen, reason, method = (
            offered,
            "the only candidate: no choice to ask for",
            METHOD_ONLY_CANDIDATE,
        )
    else:
        (chosen, reason), method = await model_or_offline(
            ctx,
            "platform",
            call,
            lambda: platforms_offline(candidates, ctx.rewrite.query, strengths, common),
        )
    ctx.platforms = chosen
    ctx.tried_namespaces.update(chosen)
    await ctx.step("choice", node="platform", chosen=chosen, reason=reason, method=method)
    return True
