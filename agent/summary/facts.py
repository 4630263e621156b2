"""The facts a text states, folded so that two tellings of one fact compare equal.

A sentence and an item are compared on four kinds of fact:

- **numbers** (``Quantity``, read by ``agent.summary.figures``): a figure with its scale, unit
  and the range it stands for (``$2 billion`` = ``20亿美元``; ``about``/``over`` widen it);
- **entities**: capitalised names (not the first word of a sentence unless it looks like a name:
  ``iPhone``, ``NASA``), handles (``@user``, ``#tag``), codes (``GPT-5``, ``CVE-2025-1``), versions
  (``7.3.1``), and in Chinese the person, place, organisation and other proper names of a real
  word segmenter (jieba's part-of-speech tags ``nr``, ``ns``, ``nt``, ``nz``) and the unknown
  organisations it leaves in single characters before a head such as 集团 (``淘天集团``);
- **content words**: English words without stopwords, lightly stemmed (``fell`` = ``fall``,
  ``prices`` = ``price``); Chinese words of two characters or more, without stopwords;
- **language**: ``zh`` or ``en`` by script, or ``""`` when a text has too little of either.

Everything is compared after folding (``fold``): Unicode NFKC (full-width to ASCII), case,
invisible format characters removed, apostrophes and punctuation to spaces, thousands separators
dropped. A Chinese word or an entity is looked up as a substring of the other text's folding, so
how the segmenter cut that text does not matter.

jieba is loaded once per process by ``catalog.segment`` (``segmenter_warm()`` loads it ahead).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.summary.dates import MONTHS
from agent.summary.figures import NUMBER_TOKENS, UNIT_WORDS, Quantity, quantities, visible
from agent.summary.folding import CJK_RUN_RE
from agent.summary.terms import STOP_CJK, STOP_LATIN
from catalog.segment import segmenter

CJK_CHAR_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_WORD_RE = re.compile(r"[A-Za-z]+")
_DOTTED = re.compile(r"\b([a-z])\.([a-z])(?:\.([a-z]))?\.?(?![a-z])")  # u.s. -> us, u.s.a. -> usa
_APOSTROPHE_S = re.compile(r"(?<=[a-z0-9])['\u2019]s\b")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# The "v" of a version: "v7.3.0" and "7.3.0" are one release.
_VERSION_V = re.compile(r"(?<![a-z0-9])v(?=\d+(?:\.\d+){2})")
_PUNCT = re.compile(r"[^\w%$€£¥\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff.]+|(?<!\d)\.|\.(?!\d)")

# --- folding ----------------------------------------------------------------------------------


def fold(text: str) -> str:
    """``text`` folded for comparison (see the module's note), words separated by one space."""
    text = _DOTTED.sub(lambda m: "".join(g for g in m.groups() if g), visible(text).casefold())
    text = _THOUSANDS.sub("", _APOSTROPHE_S.sub("", text.replace("\u2019", "'")))
    text = _VERSION_V.sub("", text)
    return " ".join(_PUNCT.sub(" ", text).split())


def holds(folded_text: str, phrase: str) -> bool:
    """Whether a folded text holds a folded phrase: a Chinese one anywhere, a Latin one as whole
    words (next to spaces, punctuation or Chinese characters, never inside a longer word)."""
    if not phrase:
        return False
    if CJK_CHAR_RE.search(phrase):
        return phrase in folded_text
    start = folded_text.find(phrase)
    while start != -1:
        end = start + len(phrase)
        before = folded_text[start - 1] if start else " "
        after = folded_text[end] if end < len(folded_text) else " "
        if not _latin_word_char(before) and not _latin_word_char(after):
            return True
        start = folded_text.find(phrase, start + 1)
    return False


def _latin_word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def text_language(text: str) -> str:
    """``en`` for three Latin words and no Chinese, or for English that quotes Chinese (Latin
    words outnumber Chinese characters and two of them are English function words); ``zh`` for
    two Chinese characters or more otherwise (names and codes in Latin letters do not make a
    Chinese sentence English); else ``""``."""
    chinese = len(CJK_CHAR_RE.findall(text))
    words = LATIN_WORD_RE.findall(text)
    if not chinese:
        return "en" if len(words) >= 3 else ""
    function_words = sum(1 for w in words if w.lower() in STOP_WORDS)
    if len(words) > chinese and function_words >= 2:
        return "en"
    return "zh" if chinese >= 2 else ""


# --- words and entities -------------------------------------------------------------------------

STOP_WORDS = STOP_LATIN | frozenset(
    str.split(
        """a an of to in on at by is be as or if so no do does did done he we i me my us it
        while also amid among against between within without around across during through
        up down again further both either neither nor too than then once including include
        includes included according reported report reports says saying told tells while
        this these those that there their its it's whose whom which who what when where why
        whether ever still yet already almost nearly about above below more less least much
        many several few some any all each every most other another such own same so very
        over around roughly approximately upwards exceeding
        will would shall should can could may might must has have had having been being
        was were are am is not"""
    )
)
STOP_ZH = STOP_CJK | frozenset(
    str.split(
        """这些 那些 之后 之前 以来 以后 以前 同时 此外 另外 并且 而且 或者 以及 据悉 表示 称 当天
        方面 有关 对于 关于 由于 根据 其中 仍然 已经 正在 将会 可能 一些 这一 该 此次 本次 目前
        超过 达到 大约 将近 多于 高于"""
    )
)
IRREGULAR = {
    "fell": "fall", "fallen": "fall", "rose": "rise", "risen": "rise", "grew": "grow",
    "grown": "grow", "won": "win", "lost": "lose", "sold": "sell", "bought": "buy",
    "led": "lead", "paid": "pay", "made": "make", "took": "take", "taken": "take",
    "saw": "see", "seen": "see", "began": "begin", "begun": "begin", "spent": "spend",
    "left": "leave", "held": "hold", "met": "meet", "ran": "run", "gave": "give",
    "given": "give", "kept": "keep", "built": "build", "sent": "send", "found": "find",
    "chose": "choose", "chosen": "choose", "drove": "drive", "struck": "strike",
    "broke": "break", "broken": "break", "wrote": "write", "written": "write",
    "became": "become", "came": "come", "went": "go", "gone": "go", "knew": "know",
    "known": "know", "brought": "bring", "fought": "fight", "sank": "sink", "shrank": "shrink",
    "hit": "hit", "cut": "cut", "set": "set", "rang": "ring", "slid": "slide", "flew": "fly",
    "shot": "shoot", "stood": "stand", "thought": "think", "caught": "catch", "taught": "teach",
    "bore": "bear", "borne": "bear", "swept": "sweep", "split": "split", "shut": "shut",
    "children": "child", "people": "people", "men": "man", "women": "woman",
}  # fmt: skip
_WORD_RE = re.compile(r"(?<![0-9.$])[a-z][a-z0-9]*")
_DOUBLED = re.compile(r"([bdfgklmnprstz])\1$")


def stem(word: str) -> str:
    """A light English stem: irregular forms to their base, then -ies, -s, -ing, -ed, -e off."""
    if word in IRREGULAR:
        return IRREGULAR[word]
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix, shortest in (("ing", 6), ("ed", 5)):
        if len(word) >= shortest and word.endswith(suffix):
            word = _DOUBLED.sub(r"\1", word[: -len(suffix)])
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def english_words(folded: str) -> set[str]:
    """The stems of the content words of a folded text."""
    return {
        stem(w)
        for w in _WORD_RE.findall(folded)
        if w not in STOP_WORDS and w not in NUMBER_TOKENS and len(w) > 1
    }


ENTITY_RE = re.compile(
    r"[@#][\w.-]+|\$[A-Za-z]{1,5}\b"  # handles, tags, tickers
    r"|(?<![\w.])v?\d+(?:\.\d+){2,}(?!\w|\.\d)"  # versions: 7.3.1 is not 7.3.0
    r"|(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*(?![A-Za-z0-9_$])",
)
CORPORATE = frozenset(["inc", "corp", "co", "ltd", "llc", "plc", "group", "the", "s.a", "ag"])
NOT_NAMES = frozenset(MONTHS) | frozenset(
    str.split("monday tuesday wednesday thursday friday saturday sunday i ok")
)
# Capitalised only because they open the sentence: the common openers of news sentences. Any
# other capitalised first word is taken for a name ("Samsung unveiled...").
OPENERS = STOP_WORDS | frozenset(
    str.split(
        """analysts officials investors researchers scientists experts users customers shares
        stocks prices sales revenue profit profits demand police residents authorities lawmakers
        regulators critics observers sources data figures workers employees players fans
        consumers buyers sellers traders markets economists executives engineers developers
        members voters citizens students doctors patients meanwhile however earlier later
        separately elsewhere overall additionally moreover furthermore despite following after
        before since although though because amid instead now today tonight yesterday tomorrow
        here there both several some many most few new its their our his her they this these
        those one two three four five six seven eight nine ten another nearly almost about
        over under more less total average annual global local national officials company
        companies firm firms government state city country market industry"""
    )
)


_NEVER_NAMES = CORPORATE | NOT_NAMES | UNIT_WORDS  # "mAh" is a unit, "Inc" a suffix


def english_entities(text: str) -> set[str]:
    """The folded names, handles and codes of a text (see the module's note)."""
    text = visible(text)
    found = set()
    for match in ENTITY_RE.finditer(text):
        token = match.group(0)
        if not _looks_like_name(token, at_start=_starts_sentence(text, match.start())):
            continue
        folded = fold(token)
        if folded and folded not in _NEVER_NAMES:
            found.add(folded)
    return found


def _looks_like_name(token: str, *, at_start: bool) -> bool:
    if token[0] in "@#$":
        return len(token) > 1
    if _VERSION.fullmatch(token):
        return True
    inner_capital = any(c.isupper() for c in token[1:])
    has_digit = any(c.isdigit() for c in token)
    has_alpha = any(c.isalpha() for c in token)
    if has_digit and has_alpha:
        return True  # a code: GPT-5, A100, CVE-2025-1
    if not token[0].isupper():
        return inner_capital  # iPhone, eBay
    if at_start:
        return inner_capital or token.lower() not in OPENERS
    return True


_VERSION = re.compile(r"v?\d+(?:\.\d+){2,}", re.I)


def _starts_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t\"'\u201c\u2018(*-")
    return not before or before[-1] in ".!?:;\n\u3002]"  # NFKC made the full-width ones plain


# --- Chinese: a real segmenter, loaded once per process ----------------------------------------

ZH_ENTITY_TAGS = frozenset(["nr", "nrt", "nrfg", "ns", "nt", "nz"])
ZH_FUNCTION_TAGS = frozenset(["m", "mq", "t", "x", "p", "c", "u", "uj", "ul", "d", "r", "q", "y"])

# Heads of organisation names. The segmenter knows the big names; an unknown one ("淘天集团")
# comes out as single characters before the head, and those characters with the head are a name.
ZH_ORG_HEADS = frozenset(
    str.split("集团 公司 银行 大学 医院 研究院 研究所 实验室 协会 基金会 工作室")
)
_ZH_NOT_NAME = frozenset("的了和与及或在是为把被将从对向给该这那其各本此每某家个")


def chinese_facts(text: str) -> tuple[set[str], set[str]]:
    """(entities, content words) of the Chinese runs of a text, folded."""
    entities, words = set(), set()
    folded = visible(text).casefold()
    for run in CJK_RUN_RE.findall(folded):
        singles: list[str] = []  # the single characters just before this word
        for pair in segmenter().cut(run):
            word, tag = pair.word, pair.flag
            if word in ZH_ORG_HEADS and len(singles) >= 2:
                entities.add("".join(singles[-4:]) + word)
            singles = [*singles, word] if len(word) == 1 and word not in _ZH_NOT_NAME else []
            if len(word) < 2 or word in STOP_ZH or tag in ZH_FUNCTION_TAGS:
                continue
            (entities if tag in ZH_ENTITY_TAGS else words).add(word)
    return entities, words


# --- a text's facts ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Facts:
    """What a text states: its figures, names, content words (English stems and Chinese words)
    and language."""

    numbers: tuple[Quantity, ...]
    entities: frozenset[str]
    words: frozenset[str]
    zh_words: frozenset[str]
    language: str

    @property
    def anchors(self) -> int:
        return len(self.numbers) + len(self.entities)


def facts_of(text: str) -> Facts:
    """The facts ``text`` states (see the module's note). Never raises."""
    has_chinese = bool(CJK_CHAR_RE.search(text or ""))
    zh_entities, zh_words = chinese_facts(text) if has_chinese else (set(), set())
    return Facts(
        numbers=tuple(quantities(text)),
        entities=frozenset(english_entities(text) | zh_entities),
        words=frozenset(english_words(fold(text))),
        zh_words=frozenset(zh_words),
        language=text_language(text or ""),
    )
