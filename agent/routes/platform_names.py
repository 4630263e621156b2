"""A platform's own names in a question: blanked, they name the source, not a subject, unless
one stands right after a kind of subject ("Telegram 频道 telegram")."""

import re
from collections.abc import Iterable

from agent.routes.forms import CJK_RE, LATIN, NOT_LATIN_AFTER, WORD_TOKEN_RE
from agent.routes.markers import ZH_AFTER_MARKERS
from agent.vocabulary import EN_KIND_NOUNS
from catalog.segment import CJK_ONLY_RE, zh_scripts, zh_words


def platform_blank(question: str, words: Iterable[str]) -> str:
    """``question`` with the platform's names, aliases and namespace replaced by spaces, in
    either Chinese script (關鍵評論 is said 关键评论 too)."""
    words = {v for w in words if w and len(w) > 1 for v in zh_scripts(w)}
    for word in sorted(words, key=len, reverse=True):
        if word.isascii():  # said with its one-letter other name: Twitter/X, X/Twitter
            renamed = (
                rf"(?<![\w./@\-])(?:{re.escape(word)}/[A-Za-z]|[A-Za-z]/{re.escape(word)})(?![\w/])"
            )
            question = re.sub(renamed, lambda m: " " * len(m.group(0)), question, flags=re.I)
        pattern = _name_pattern(word)
        if word.isascii():  # "The Economist's China section": the possessive goes with it
            pattern = re.compile(pattern.pattern + r"(?:'s)?", pattern.flags)
        # "虎牙直播间 660000": 虎牙直播 runs into 直播间, so its shorter name 虎牙 is blanked
        shorter = any(w != word and word.startswith(w) for w in words)
        question = pattern.sub(_blanked if not shorter else _blanked_unless_run_on, question)
    return question


def _blanked(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def _blanked_unless_run_on(match: re.Match[str]) -> str:
    if _runs_into_word(match.string, match.start(), match.end()):
        return match.group(0)
    return _blanked(match)


def _runs_into_word(text: str, start: int, end: int) -> bool:
    """The Chinese name at ``start:end`` ends inside a word the segmenter reads with what
    follows it (虎牙直播 of 虎牙直播间: 虎牙, 直播间)."""
    if end >= len(text) or not CJK_RE.match(text[end]) or not CJK_RE.match(text[end - 1]):
        return False
    run = CJK_ONLY_RE.match(text, start)
    if run is None or run.end() <= end:
        return False
    ends, at = set(), 0
    for word in zh_words(run.group(0)):
        at += len(word)
        ends.add(at)
    return end - start not in ends


def _name_pattern(word: str) -> re.Pattern[str]:
    if word.isascii():
        # "Hugging Face" is huggingface, "Docker-Hub" Docker Hub: spaces and hyphens may part
        # a name's letters.
        spaced = r"[\s\-]?".join(re.escape(c) for c in word.replace(" ", ""))
        # after "@" a name is a handle's or its host's (Gargron@mastodon.social), not the source
        return re.compile(rf"(?<![{LATIN}./\-@]){spaced}{NOT_LATIN_AFTER}", re.I)
    # "B 站" is B站: a space may part a name's Latin and Chinese characters
    return re.compile(r"\s?".join(re.escape(c) for c in word.replace(" ", "")), re.I)


def platform_named(question: str, words: Iterable[str]) -> list[str]:
    """The platform's names the question puts right after a kind of subject: they name that
    subject, not the source ("Telegram 频道 telegram", "the GitHub user github")."""
    found = []
    for word in sorted({w for w in words if w and len(w) > 1}, key=len, reverse=True):
        found += [
            m.group(0)
            for m in _name_pattern(word).finditer(question)
            if _kind_before(question, m.start())
        ]
    return found


def _kind_before(text: str, start: int) -> bool:
    """A kind of subject (频道, 用户, channel, user...) stands right before ``start``."""
    before = text[max(0, start - 24) : start].rstrip()
    if before.endswith(tuple(ZH_AFTER_MARKERS)):
        return True
    last = WORD_TOKEN_RE.findall(before[-14:])
    return bool(last) and before.endswith(last[-1]) and last[-1].casefold() in EN_KIND_NOUNS


# A handle in lower case opening the question: "torvalds github activity", before the name
# of what of an account is asked (not "todays zhihu daily stories", "global youtube top ...")
ACCOUNT_FEEDS = frozenset(
    str.split(
        "activity activities stars starred repos repositories posts tweets toots videos uploads"
        " followers following events gists likes answers articles timeline profile statuses"
    )
)
FIRST_HANDLE_RE = re.compile(r"\s*([a-z0-9][a-z0-9_.\-]{2,})\s+")


def named_first(question: str, words: Iterable[str]) -> str:
    """A word in lower case that opens the question right before the platform's name and an
    account's feed ("torvalds github activity"): whose feed, as users type it; "" if none."""
    first = FIRST_HANDLE_RE.match(question)
    if first is None:
        return ""
    for word in (w for w in words if w and len(w) > 1 and w.isascii()):
        name = _name_pattern(word).match(question, first.end())
        after = re.match(r"(?:'s)?\s+([A-Za-z]+)", question[name.end() :]) if name else None
        if after and after.group(1).casefold() in ACCOUNT_FEEDS:
            return first.group(1)
    return ""
