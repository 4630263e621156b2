"""Whose a value of the question is, read from where it stands: a word between the asker's
possessive and a kind of subject is the asker's own, naming no one; the platform's own host
names the source; a name under that host is a blog's or a user's own; a quoted name a few words
after "by" is whose the feed is."""

import re

from agent.routes.forms import CJK_RE
from agent.unnamed import ASKERS_KIND_EN, ASKERS_KIND_ZH

# "by the design studio ": the words before a quoted name that say whose it is
QUOTED_BY_RE = re.compile(r"\b(?:by|from)\s+(?:[\w\-]+\s+){0,3}$", re.I)


def askers_own(word: str, text: str) -> bool:
    """``word`` stands only between the asker's possessive and a kind of subject ("my team's
    *front-end* repo", "我维护的那个*开源*仓库"): it says which of the asker's own, it names no
    one."""
    folded, low = text.casefold(), word.casefold()
    chinese = CJK_RE.match(word) is not None
    spans = [m.span() for m in ASKERS_KIND_EN.finditer(folded)]
    if chinese:  # "我维护的那个*开源*仓库": after the asker's clause, before the kind
        spans += [
            (m.start() + m.group(0).index("\u7684"), m.end())
            for m in ASKERS_KIND_ZH.finditer(folded)
        ]
    bounded = re.escape(low) if chinese else rf"(?<!\w){re.escape(low)}(?!\w)"
    found = [m.start() for m in re.finditer(bounded, folded)]
    return bool(found) and all(any(a <= at < b for a, b in spans) for at in found)


# The labels of a site's own versions, no one's subdomain: its mobile pages (3g.163.com)
SITE_VERSIONS = frozenset(str.split("www m 3g wap mobile touch h5"))


def own_host(domain: str, hosts: tuple[str, ...]) -> bool:
    own = {host.casefold().removeprefix("www.") for host in hosts}
    return domain.casefold().removeprefix("www.") in own


def name_under(domain: str, hosts: tuple[str, ...]) -> str:
    """The name a domain gives under the platform's host: a blog's or a user's own subdomain
    (noahpinion.substack.com: noahpinion); "" for any other domain."""
    low = domain.casefold()
    if own_host(low, hosts):  # a section of the site its Radar rules read: space.bilibili.com
        return ""
    for host in hosts:
        name = low.removesuffix("." + host)
        if name != low and name not in SITE_VERSIONS and "." not in name:
            return domain[: len(name)]
    return ""


def said_by(value: str, text: str) -> bool:
    """A quoted name a few words after "by" or "from" is whose ("posted by the design studio
    'ramotion'"), as one right after it is."""
    at = text.find(value)
    return at > 0 and QUOTED_BY_RE.search(text[: at - 1]) is not None
