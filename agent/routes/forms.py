"""The forms a subject takes in a question's text, each one pattern: quoted strings, URLs,
``owner/name`` pairs, fediverse handles, scoped packages, ``@handles``, video ids, stock codes,
mixed ids, domains, numbers, spans of time, words, a value in parentheses, a Maven coordinate.
``forms_read`` takes the values whose form says what they are out of a question's text, for
``agent.routes.entities`` to read the rest; a form is matched whole, never joined to a Latin
letter or digit on either side.
"""

import re
from typing import NamedTuple

from agent.question import CJK
from agent.vocabulary import filler_en

LATIN = r"A-Za-z0-9"
NOT_LATIN_BEFORE = rf"(?<![{LATIN}_.\-/@])"
NOT_LATIN_AFTER = rf"(?![{LATIN}_\-/@]|\.[{LATIN}])"
QUOTED_RE = re.compile(
    r'"([^"\n]{1,80})"|“([^”\n]{1,80})”|「([^」\n]{1,80})」|『([^』\n]{1,80})』|《([^》\n]{1,80})》'
    # single quotes only around a value, never an apostrophe's: 'noahpinion'
    r"|(?<![\w'])'([^'\s][^'\n]{0,38}[^'\s]|[^'\s])'(?![\w'])"
)
# A board's short name between slashes, as imageboards write it: /v/, /g/.
SLASHED_RE = re.compile(r"(?<![\w/.])/([a-z0-9]{1,12})/(?![\w/])", re.ASCII)
# A value said to be one: "the team id in their URL is tottenham-hotspur", "their page is
# Team_Liquid".
SAID_VALUE_RE = re.compile(
    r"\b(?:id|slug|page|name|handle|username|code)\b[^.;,!?\n]{0,30}?\b(?:is|=)\s+"
    r"([A-Za-z0-9][\w.\-]*[A-Za-z0-9])",
    re.I,
)
# A file in a repository, by its name and extension (a web language's name, next.js, is none):
# CHANGELOG.md, docs/guide.md, Cargo.toml.
FILE_RE = re.compile(
    r"(?<![\w./@\-])((?:[\w\-]+/)*[\w\-]+\.(?:md|markdown|txt|json|ya?ml|toml|lock|cfg|ini|xml"
    r"|py|rst|adoc|gradle|csv))(?![\w/.])",
    re.ASCII,
)
# A site's address without its scheme: soundcloud.com/odesza, mdpi.com/journal/sensors (its
# path's words Chinese, Japanese or Korean too: i-cable.com/category/新聞資訊/港聞).
BARE_URL_RE = re.compile(
    r"(?<![\w.\-/@])(?:www\.)?((?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+[a-z]{2,12})"
    r"((?:/[\w.\-~%\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]+)+)/?(?![\w/])",
    re.I | re.ASCII,
)
# A scheme before an address: the address is read as if written bare (a "www." stays: a
# domain said whole is read whole).
SCHEME_RE = re.compile(r"\bhttps?://", re.I)
# What a site's address says before its host.
HOST_PREFIX_RE = re.compile(r"^(?:https?://)?(?:www\.)?")
# Words saying what a value is ("page", "handle"): after other words they name no parameter.
WHAT_WORDS = r"(?:page|slug|handle|username|account|channel)"
# A value in parentheses right after what it names, perhaps after its kind: "uBlock Origin
# (ublock-origin)", "微信 (id414478124)", "(slug: iris)", "(app 1086940)". A bare number of four
# digits or fewer (a year, a count) names nothing.
PAREN_VALUE_RE = re.compile(
    r"[(\uff08]\s*(?:[A-Za-z]{2,12}\s*[:\uff1a=]\s*|[\u4e00-\u9fff]{2,6}\s*[:\uff1a]?\s*"
    # "(Liquipedia page Team_Vitality)": words, then a word for what the value is
    rf"|(?:[A-Za-z]{{2,12}}\s+){{0,2}}{WHAT_WORDS}\s*[:=]?\s+"
    r"|(?:(?:app|id|uid|slug|user|code|room)\s+){1,2})?"
    r"((?=[\w.\-]*[A-Za-z]|\d{5})[A-Za-z0-9][\w.\-]*[A-Za-z0-9])\s*[)\uff09]"
    # a short key before a number, which may be negative: "(fid -7)"
    r"|[(\uff08]\s*[A-Za-z]{2,6}\s*(?:[:\uff1a=]\s*|\s+)(-?\d+)\s*[)\uff09]",
    re.I,
)
# A hashtag (#rustlang, #原神, weibo's #话题#): something to look for under a tag. A number
# after "#" is no tag but an issue's or a pull request's ("rust-lang/rust#44265", "PR #12").
HASHTAG_RE = re.compile(rf"(?<![\w&#])#([{CJK}]+)#|(?<![\w&#])#((?=\w*[^\W\d_])[\w][\w\-]*)", re.I)
REF_RE = re.compile(r"(?<![\w&#])#(\d+)(?!\w)|(?<=[A-Za-z0-9])#(\d+)(?!\w)")
WHAT_KEY_RE = re.compile(rf"[A-Za-z]{{2,12}}\s+{WHAT_WORDS}\s*[:=]?\s*$", re.I)
# A number keyed by an id's name outside parentheses: "fid -7", "uid=123", "tid: 555", "the
# woeid should be 23424975", "WOEID 是 2459115".
KEYED_ID_RE = re.compile(
    r"\b((?:(?:app|user|room|post|group|forum|topic|channel)\s+)?[a-z]{0,4}id)"
    # (of what, before "is": "the WOEID for London is 44418")
    r"(?:\s+(?:for|of)\s+(?:the\s+)?[A-Za-z][\w\-]*(?=\s+(?:is|should)\b))?"
    r"\s*(?:[:=\uff1a]\s*|(?:\u662f|\u4e3a|\u70ba)\s*|\s+(?:(?:is|should\s+be)\s+)?)"
    r"(-?\d+)\b",
    re.I,
)
# A video's part by its number: 第2P (keyed "p", as a ``:pid`` is)
PART_RE = re.compile(r"第\s*(\d{1,4})\s*[Pp](?![A-Za-z])")
# Digits in hyphenated groups (an ORCID 0000-0001-5109-3700, a date 2025-10-01): one value.
DASHED_RE = re.compile(r"(?<![\w\-])(\d{2,}(?:-[\dX]{2,})+)(?![\w\-])")
# A Maven (Gradle) coordinate, group:artifact, the group dotted: a pair as owner/name is.
COORDINATE_RE = re.compile(
    rf"{NOT_LATIN_BEFORE}([a-z][\w\-]*(?:\.[\w\-]+)+:[A-Za-z][\w.\-]*[{LATIN}]){NOT_LATIN_AFTER}"
)
SHORT_PATH_RE = re.compile(r"[A-Za-z]{1,2}/\d+")
PAIR_RE = re.compile(
    rf"{NOT_LATIN_BEFORE}([{LATIN}][\w.\-]*)/([{LATIN}][\w.\-]*[{LATIN}]|[{LATIN}]){NOT_LATIN_AFTER}",
    re.ASCII,
)
# An owner's slug said as a possessive: "adamgryu's a-short-hike" is adamgryu/a-short-hike, an
# owner and a name (a slug of words joined by hyphens, as a page's address writes it).
POSSESSED_SLUG_RE = re.compile(
    rf"{NOT_LATIN_BEFORE}([{LATIN}][\w.\-]*)['\u2019]s\s+([a-z0-9]+(?:-[a-z0-9]+)+){NOT_LATIN_AFTER}",
    re.ASCII,
)
# A whole fediverse handle (Gargron@mastodon.social, @dansup@pixelfed.social): one value, never
# cut at its "@".
FEDI_HANDLE_RE = re.compile(
    rf"(?<![{LATIN}_.\-@])@?([{LATIN}_][\w.\-]*@(?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+[a-z]{{2,12}})"
    rf"{NOT_LATIN_AFTER}",
    re.I | re.ASCII,
)
# A scoped package (@vue/compiler-sfc): the scope belongs to the name.
SCOPED_RE = re.compile(
    rf"(?<![{LATIN}_@])(@[a-z0-9\-~][\w.\-~]*/[a-z0-9\-~][\w.\-~]*[a-z0-9])(?![{LATIN}_\-/@])",
    re.I | re.ASCII,
)
HANDLE_RE = re.compile(rf"(?<![{LATIN}_@])@([{LATIN}_][\w.\-]*[{LATIN}_]|[{LATIN}_])", re.ASCII)
VIDEO_RE = re.compile(rf"{NOT_LATIN_BEFORE}(BV[{LATIN}]{{10}}|av\d{{3,}}){NOT_LATIN_AFTER}")
STOCK_RE = re.compile(
    rf"{NOT_LATIN_BEFORE}((?:SH|SZ|BJ|HK|sh|sz|bj|hk)\d{{5,6}}|\d{{6}}\.(?:SH|SZ|BJ)|\d{{4,5}}\.HK)"
    rf"{NOT_LATIN_AFTER}"
)
# A US stock's ticker, in capitals (NVDA, $AAPL): read only for a parameter whose example is one
# (``params._subject_value``), any other capitals being an acronym (AI, NBA).
TICKER_RE = re.compile(r"(?<![\w$.@/\-])\$?([A-Z]{2,5})(?![\w.@/\-]|\s?主)")  # UP 主: no ticker
# A device's model identifier, a comma between its numbers: iPhone15,2, iPad13,1, Mac14,7.
DEVICE_RE = re.compile(rf"{NOT_LATIN_BEFORE}([a-z]*[A-Z][A-Za-z]*\d+,\d+){NOT_LATIN_AFTER}")
# An id that mixes letters and digits: 3 digits or more, or 12 characters or more
# (UCaXkIU1QidjPwiAYu6GcHjg, PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf; iPhone15 is no id).
ID_RE = re.compile(
    rf"{NOT_LATIN_BEFORE}((?=[{LATIN}_\-]*\d)(?=[\d_\-]*[A-Za-z])"
    rf"(?:(?=(?:[A-Za-z_\-]*\d){{3}})[{LATIN}_\-]{{8,}}|[{LATIN}_\-]{{12,}})"
    # or a run of letters longer than any word: a Chrome extension's 32
    rf"|[a-z]{{24,}}|[A-Z]{{24,}})"
    rf"{NOT_LATIN_AFTER}",
    re.ASCII,
)
# A run of letters that may be an opaque id (a Google Scholar profile's JicYPdAAAAAJ): one
# with a run of capitals inside that no words run together have (``opaque_id``).
LETTERS_RE = re.compile(rf"{NOT_LATIN_BEFORE}([A-Za-z0-9]{{8,40}}){NOT_LATIN_AFTER}", re.ASCII)
# Where a token turns from small letters to capitals or digits and back
TURN_RE = re.compile(r"[a-z](?=[A-Z0-9])|[A-Z](?=[a-z0-9])|[0-9](?=[A-Za-z])")
# A domain said alone, perhaps with a trailing "/" ("https://nekoya.booth.pm/"); not a
# script's name (Vue.js, Three.ts: no such top-level domain)
DOMAIN_RE = re.compile(
    rf"{NOT_LATIN_BEFORE}((?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+[a-z]{{2,12}})(?<!\.js)(?<!\.ts)"
    rf"(?![{LATIN}_\-@]|\.[{LATIN}]|/[\w%~.\-])",
    re.I | re.ASCII,
)
# A span of time ("24 小时", "7 days", "24-hour") or how often ("every day"): when to read,
# never what about.
DURATION_RE = re.compile(
    r"\d+[\s\-]*(?:个)?(?:小时|天|日|周|星期|月|年|hours?|hrs?|days?|weeks?|months?|years?)"
    r"|\b(?:every|each)\s+(?:day|week|month|hour|morning|evening|night)\b"
    r"|\b7\s*[x\u00d7*]\s*24\b",  # round the clock: 7x24 快讯
    re.I,
)
# A Chinese word that is a span of time (一周, 半年, 这两天) or a count of items (几条): matched
# whole, on a segmenter's words, so 统一 or 唯一 never lend their 一 to a span.
ZH_SPAN_WORD_RE = re.compile(
    r"(?:这|那|近|最近)?[一两二三四五六七八九十半几]个?(?:小时|天|日|周|星期|月|年)"
    # a count of items (几条, 三篇) or issues (一期, 三集): how many, not what about
    r"|[一两二三四五六七八九十几]+[条个篇则项件期集章话首]"
)
# What marks a value's label as the key of a page's query, not a name the asker gave it.
QUERY_KEY = "?"
LONG_NUMBER_RE = re.compile(r"\d{5,}")
NUMBER_RE = re.compile(rf"(?<![{LATIN}_.\-])(\d+)(?![{LATIN}_\-]|\.\d)")
# a word of Hangul (삼성전자) is one name, as a Latin one is
HANGUL = "\uac00-\ud7a3"
TOKEN_RE = re.compile(rf"[{LATIN}][\w.+#'\-]*[{LATIN}+#]|[{LATIN}]|[{CJK}]+|[{HANGUL}]+", re.ASCII)
WORD_TOKEN_RE = re.compile(rf"[{LATIN}][\w.+#'\-]*[{LATIN}+#]|[{LATIN}]")
CJK_RE = re.compile(f"[{CJK}]")
POSSESSIVE_RE = re.compile(r"'s$", re.I)
# "riotgames' channel": a name ending in s takes the apostrophe alone
OWNER_RE = re.compile(
    rf"{NOT_LATIN_BEFORE}([{LATIN}][\w.\-]*)(?:'s|(?<=[sS])')(?![{LATIN}])", re.ASCII
)
RUN_RE = re.compile(rf"[{CJK}{LATIN}_\-.+#]+")


class Formed(NamedTuple):
    """A value whose form says what it is; ``label``: the key it was given ("(fid -7)")."""

    kind: str
    value: str
    label: str = ""


def address_host(url: str) -> str:
    """A site's address as a host, without scheme or www: thegradient.pub."""
    return HOST_PREFIX_RE.sub("", url or "").split("/")[0]


def forms_read(text: str) -> tuple[str, list[Formed]]:
    """The values of ``text`` whose form says what they are, and the text with them blanked."""
    found: list[Formed] = []
    text = SCHEME_RE.sub(lambda m: " " * len(m.group(0)), text)
    text = BARE_URL_RE.sub(lambda m: _address_value(m, found), text)
    text = PAREN_VALUE_RE.sub(lambda m: _paren_value(m, found), text)
    text = KEYED_ID_RE.sub(lambda m: _keyed_id(m, found), text)
    text = PART_RE.sub(lambda m: _part(m, found), text)
    text = SAID_VALUE_RE.sub(lambda m: _said_value(m, found), text)
    text = POSSESSED_SLUG_RE.sub(lambda m: _possessed_slug(m, found), text)
    for pattern, kind in (
        (QUOTED_RE, "quoted"),
        (SLASHED_RE, "quoted"),
        (REF_RE, "ref"),
        (FEDI_HANDLE_RE, "handle"),
        (SCOPED_RE, "scoped"),
        (COORDINATE_RE, "coordinate"),
        (FILE_RE, "file"),
        (PAIR_RE, "pair"),
        (HASHTAG_RE, "hashtag"),
        (HANDLE_RE, "handle"),
        (VIDEO_RE, "video"),
        (STOCK_RE, "stock"),
        (DASHED_RE, "quoted"),
        (DOMAIN_RE, "domain"),
        (DEVICE_RE, "id"),
        (ID_RE, "id"),
    ):
        text = _blank(text, pattern, found, kind)
    text = LETTERS_RE.sub(lambda m: _opaque_value(m, found), text)
    text = DURATION_RE.sub(lambda m: " " * len(m.group(0)), text)
    found = [f for f in found if f.kind != "pair" or re.search("[A-Za-z]", f.value)]
    # "pictures/media", "videos/images": one kind of thing or another, no owner and name
    found = [f for f in found if f.kind != "pair" or not any(map(filler_en, f.value.split("/")))]
    # "t/1098765", a site's address for a thread: its number is the value
    found = [
        Formed("number", f.value.split("/")[1])
        if f.kind == "pair" and SHORT_PATH_RE.fullmatch(f.value)
        else f
        for f in found
    ]
    # org.springframework.boot:spring-boot fills a group and an artifact as owner/name does
    return text, [
        Formed("pair", f.value.replace(":", "/", 1)) if f.kind == "coordinate" else f for f in found
    ]


def _blank(text: str, pattern: re.Pattern[str], found: list[Formed], kind: str) -> str:
    def keep(match: re.Match[str]) -> str:
        value = next((g for g in match.groups() if g), match.group(0))
        found.append(Formed(kind, match.group(0) if kind == "pair" else value))
        return " " * len(match.group(0))

    return pattern.sub(keep, text)


def opaque_id(value: str) -> bool:
    """Letters only, yet an id: three capitals or more right after a small letter, somewhere
    past its start, with two small letters or more (JicYPdAAAAAJ, hMIBbqUAAAAJ; not
    GitHubDesktop, XMLHttpRequest or HTMLParser: words run together)."""
    small = sum(c.islower() for c in value)
    return small >= 2 and re.search(r"[a-z][A-Z]{3}", value) is not None


def mixed_id(value: str) -> bool:
    """Small letters, capitals and digits mixed as no name mixes them: four turns or more
    between them, a capital past the start (a list's key: mproPpoq6O; not iPhone15)."""
    return (
        any(c.isdigit() for c in value)
        and any(c.isupper() for c in value[1:])
        and len(TURN_RE.findall(value)) >= 4
    )


def _opaque_value(match: re.Match[str], found: list[Formed]) -> str:
    value = match.group(1)
    opaque = opaque_id(value) and len(value) >= 10 if value.isalpha() else mixed_id(value)
    if not opaque:
        return match.group(0)
    found.append(Formed("id", match.group(1)))
    return " " * len(match.group(0))


def _possessed_slug(match: re.Match[str], found: list[Formed]) -> str:
    if filler_en(match.group(1)):  # "my team's open-source repo": nobody's name
        return match.group(0)
    found.append(Formed("pair", f"{match.group(1)}/{match.group(2)}"))
    return " " * len(match.group(0))


def _keyed_id(match: re.Match[str], found: list[Formed]) -> str:
    key = "".join(match.group(1).casefold().split())  # "app ID" keys an appid
    # a page's query (detail?cid=162245) keys it by the site's name, perhaps no parameter's
    query = match.start() > 0 and match.string[match.start() - 1] in "?&"
    found.append(Formed("number", match.group(2), QUERY_KEY + key if query else key))
    return match.group(0)[: match.start(2) - match.start(0)] + " " * len(match.group(2))


def _part(match: re.Match[str], found: list[Formed]) -> str:
    found.append(Formed("number", match.group(1), "p"))
    return " " * len(match.group(0))


def _kind_of(value: str) -> str:
    """A value given whole, as the form it has (a number, a stock code, an id...) or else as
    quoted."""
    shapes = ((STOCK_RE, "stock"), (VIDEO_RE, "video"), (DOMAIN_RE, "domain"), (ID_RE, "id"))
    kind = "number" if value.lstrip("-").isdigit() else "quoted"
    return next((k for pattern, k in shapes if pattern.fullmatch(value)), kind)


def _address_value(match: re.Match[str], found: list[Formed]) -> str:
    """The last segment of a site's address is what it names (soundcloud.com/odesza: odesza;
    bilibili.com/video/BV1GJ411x7h7: a video), as the form it has, and two segments are an
    owner and a name too (gitlab.com/inkscape/inkscape); the site is kept as a domain."""
    found.append(Formed("domain", match.group(1), "address"))
    segments = [part for part in match.group(2).split("/") if part]
    last = segments[-1]
    # space.bilibili.com/517327498/channel/detail: a long number before the last segment is a
    # value of the page too (the user's), as the number in its query is
    found.extend(Formed("number", part) for part in segments[:-1] if LONG_NUMBER_RE.fullmatch(part))
    found.append(Formed("quoted" if _kind_of(last) == "domain" else _kind_of(last), last))
    # gitlab.com/inkscape/inkscape, and the project's path before "-" of its pages
    # (gitlab.com/graphviz/graphviz/-/releases)
    project = segments[: segments.index("-")] if "-" in segments else segments
    if len(project) == 2 and PAIR_RE.fullmatch("/".join(project)):
        found.append(Formed("pair", "/".join(project)))
    return " " * len(match.group(0))


def _gloss(match: re.Match[str], value: str) -> bool:
    """``value`` (lower-case words) puts in English the Chinese word right before it: a phrase
    ("征稿通知 (call for papers)"), or one word in a question written in English ("小册
    (booklets)"; "GitHub 用户 (torvalds)" in Chinese is a name)."""
    before = match.string[: match.start()].rstrip()
    english = len(re.findall(r"[A-Za-z]", match.string)) > 2 * len(CJK_RE.findall(match.string))
    return (
        (english or " " in value)
        and bool(before)
        and CJK_RE.match(before[-1]) is not None
        and (re.fullmatch(r"[a-z]+(?: [a-z]+)*", value) is not None)
    )


def _said_value(match: re.Match[str], found: list[Formed]) -> str:
    value = match.group(1)
    found.append(Formed(_kind_of(value), value))
    return match.group(0)[: match.start(1) - match.start(0)] + " " * len(value)


def _paren_value(match: re.Match[str], found: list[Formed]) -> str:
    """A value in parentheses after what it names, taken whole, as the form it has (a number,
    a stock code, an id) or else as quoted; a key before it is kept as its label."""
    value = match.group(1) or match.group(2)
    if filler_en(value):  # "(日本語 version)": a word of how it is put, no value
        return match.group(0)
    if _gloss(match, value):  # "juejin 小册 (booklets)": the Chinese word put in English
        return " " * len(match.group(0))
    kind = _kind_of(value)
    key = re.match(r"[(\uff08]\s*([A-Za-z]{2,12})\s*(?:[:\uff1a=]\s*|\s+)", match.group(0))
    label = key.group(1).casefold() if key and key.group(1).casefold() != value.casefold() else ""
    if WHAT_KEY_RE.search(
        match.group(0)[: match.start(1 if match.group(1) else 2) - match.start(0)]
    ):
        label = ""  # "(Liquipedia page Team_Vitality)": the site's page, no parameter's name
    found.append(Formed(kind, value, label))
    return " " * len(match.group(0))
