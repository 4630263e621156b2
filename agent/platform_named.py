"""How a question names a candidate platform: by one of its names at all (``named``), as the
place to read ("GitHub 上", "on GitHub"), as what to look for ("bing search results for
openwrt") or as a plain word ("new threads"). The platform node weighs candidates by these."""

import re

from catalog.search import PlatformHit, words_common


def named(candidate: PlatformHit) -> bool:
    """The question names the platform (the catalog search found one of its names)."""
    return any(reason.startswith("name ") for reason in candidate.reasons)


# What a search looks for follows: "results for", "about", 关于, 搜索, "matching the search". "a
# feed for SEGA" names a source, so only a search's "for" marks a topic.
SEARCHED_FOR = (
    r"\b(?:results?|search(?:es|ing)?|look(?:ing)?)\s+for|\babout|\u5173\u4e8e|\u641c\u7d22"
    # "posts matching the search openai", "the search term openai"
    r"|\bmatching(?:\s+the)?(?:\s+search)?|\bthe\s+search(?:\s+(?:term|query|keyword))?"
)


def name_pattern(name: str) -> str:
    """A platform's name as the question may write it: spaces optional, not inside a word."""
    spaced = r"\s?".join(re.escape(c) for c in name.replace(" ", ""))
    return rf"(?<![A-Za-z0-9]){spaced}(?![A-Za-z0-9])"


def named_as_place(candidate: PlatformHit, query: str) -> bool:
    """The question names the platform as where to read ("GitHub 上", "在 B 站", "on GitHub"),
    not as what to read about there ("microsoft 组织")."""
    for name in {candidate.namespace, candidate.name}:
        name_re = name_pattern(name)
        place = rf"{name_re}\s*上(?!海)|在\s*{name_re}|\b(?:on|at|from)\s+(?:the\s+)?{name_re}"
        if re.search(place, query, re.I):
            return True
    return False


def named_as_topic(candidate: PlatformHit, query: str) -> bool:
    """The question names the platform only as what to look for ("bing search results for
    openwrt", "搜索 openwrt"), not as where to read."""
    found = False
    for name in {candidate.namespace, candidate.name}:
        name_re = name_pattern(name)
        if not re.search(name_re, query, re.I):
            continue
        topic = rf"(?:{SEARCHED_FOR})\s*(?:the\s+)?{name_re}"
        if len(re.findall(topic, query, re.I)) < len(re.findall(name_re, query, re.I)):
            return False  # said elsewhere too
        found = True
    return found


def named_as_word(candidate: PlatformHit, query: str) -> bool:
    """The platform's name is a plain word, capitalized as a name ("Threads", "Medium"), that
    the question says only in lower case: as the word ("1point3acres' newest threads"), when
    the word is common (``common_names``)."""
    name = candidate.name
    if not re.fullmatch(r"[A-Z][a-z]{3,}", name) or name.casefold() != candidate.namespace:
        return False
    said = re.findall(name_pattern(name), query, re.I)
    return bool(said) and all(word.islower() for word in said)


def common_names(candidates: list[PlatformHit], query: str) -> frozenset[str]:
    """The candidates named as a plain word whose name is a word common in the catalog's text
    (Threads); the index is read only when one is named so."""
    said = [c for c in candidates if named_as_word(c, query)]
    common = words_common(c.name for c in said) if said else frozenset()
    return frozenset(c.namespace for c in said if c.name in common)
