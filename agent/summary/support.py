"""The support check: a sentence stays only when the items it cites say what it says.

The writer contract (``agent.summary.claims``) hands each sentence that cites given items to
``SupportCheck.judge``, which drops it, by reason, when:

- ``language``: it is written in the other language than the brief's (``facts.text_language``);
- ``instruction``: it passes on an order, a source or an address (``agent.summary.instruction``);
- ``date``: it states a date or time none of its cited items carries (``agent.summary.dates``);
- ``unsupported_number``: a figure of it is in none of its cited items (``facts.Quantity``:
  ``$2 billion`` = ``2,000,000,000 dollars`` = ``20亿美元``; a rounded figure matches what it
  rounds);
- ``unsupported_entity``: a name, handle or code of it is in none of its cited items;
- ``unsupported``: fewer than ``WORDS_SUPPORTED`` of its content words are in its cited items,
  or it says nothing at all (a citation alone, punctuation).

Cited items support a sentence together: a figure from one and a name from another will do.
A sentence whose language is not its items' (a Chinese brief from English items) cannot be
compared word for word: its figures and the names that survive translation (Latin names in a
Chinese sentence, codes and handles in an English one) must be found, and at least one such
anchor must be there (a date alone is not one: any item of the day would carry it).

A sentence that fails with the items it cites but is supported by exactly one other item is
re-cited to that item (``recited``, counted and kept); supported by none or several, it is
dropped with the reason its own citations gave.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from urllib.parse import urlsplit

from agent.summary.dates import dates_backed, states_date
from agent.summary.draft import CITATION_RE, SourceItem
from agent.summary.facts import (
    CJK_CHAR_RE,
    Facts,
    Quantity,
    english_words,
    facts_of,
    fold,
    holds,
    quantities,
    text_language,
)
from agent.summary.instruction import DOMAIN_RE, LINK_MARK_RE, instruction_found, orders_removed

REASON_LANGUAGE = "language"
REASON_INSTRUCTION = "instruction"
REASON_DATE = "date"
REASON_NUMBER = "unsupported_number"
REASON_ENTITY = "unsupported_entity"
REASON_UNSUPPORTED = "unsupported"
REASON_RECITED = "recited"  # kept, with the citation of the one item that supports it

CLAUSE_WORDS = 2  # content words a clause needs before it is judged on its own
WORDS_SUPPORTED = 0.5  # share of a sentence's content words its cited items must hold
EVIDENCE_CHARS = 2000  # of an item's text: more than the writer was shown (agent.llm.prompts)


@dataclass(frozen=True)
class Evidence:
    """What one item offers to support a sentence: its folded title, text, source and link host
    (padded with spaces, for whole-word look-ups), figures, content words and language."""

    n: int
    text: str
    numbers: tuple[Quantity, ...]
    words: frozenset[str]
    language: str


def evidence_of(*, n: int, title: str, text: str, source: str = "", link: str = "") -> Evidence:
    """The evidence of an item (or of any titled text: ``n`` is its number)."""
    body = orders_removed(f"{title or ''}\n{(text or '')[:EVIDENCE_CHARS]}")
    folded = fold(f"{body} {source or ''} {_host(link)}")
    return Evidence(
        n=n,
        text=f" {folded} ",
        numbers=tuple(quantities(body)),
        words=frozenset(english_words(folded)),
        language=text_language(body),
    )


def support_reason(
    claim: Facts, evidence: Sequence[Evidence], clauses: Callable[[], Sequence[Facts]] = tuple
) -> str | None:
    """``None`` when ``evidence`` together supports ``claim`` (a sentence's ``facts_of``; its
    ``clauses``, asked for only when all else holds, are judged too), else the reason it does
    not: ``unsupported_number``, ``unsupported_entity`` or ``unsupported``."""
    for quantity in claim.numbers:
        if not any(quantity.matches(q) for e in evidence for q in e.numbers):
            return REASON_NUMBER
    across = bool(claim.language) and all(
        e.language and e.language != claim.language for e in evidence
    )
    found = 0
    for entity in claim.entities:
        if any(holds(e.text, entity) for e in evidence):
            found += 1
        elif not (across and _translatable(entity, claim.language)):
            return REASON_ENTITY
    if across:
        return None if claim.numbers or found else REASON_UNSUPPORTED
    if not (claim.words or claim.zh_words or claim.numbers or claim.entities):
        return REASON_UNSUPPORTED  # it says nothing an item could back
    if _words_share(claim, evidence) < WORDS_SUPPORTED:
        return REASON_UNSUPPORTED
    if any(not _clause_held(clause, evidence) for clause in clauses()):
        return REASON_UNSUPPORTED
    return None


# Where a sentence joins a second statement to a first: "..., and will clinch the title",
# "...\uff0c还支持离线翻译" (a full-width comma). A sentence is held clause by clause, so that a
# supported half cannot carry an invented one.
CLAUSE_RE = re.compile(r"[,;\uff0c\uff1b]|\s(?:and|but|while|whereas|yet)\s", re.I)


def clauses_of(text: str) -> tuple[Facts, ...]:
    """The facts of each clause of a sentence, or ``()`` when it has only one. A clause that
    states a date is left out: ``dates_backed`` has held the sentence's dates already."""
    parts = [p for p in CLAUSE_RE.split(text) if p.strip()]
    if len(parts) < 2:
        return ()
    return tuple(facts_of(p) for p in parts if not states_date(p))


def _clause_held(clause: Facts, evidence: Sequence[Evidence]) -> bool:
    """A clause is held by a figure or a name of it that the items carry, or else by its words.
    A clause of one content word ("see ...", "还有") is too short to judge."""
    if len(clause.words) + len(clause.zh_words) < CLAUSE_WORDS:
        return True
    if any(q.matches(o) for q in clause.numbers for e in evidence for o in e.numbers):
        return True
    if any(holds(e.text, entity) for entity in clause.entities for e in evidence):
        return True
    return _words_share(clause, evidence) >= WORDS_SUPPORTED


def _translatable(entity: str, language: str) -> bool:
    """A name a translation may rewrite: any Chinese name, and in an English sentence from
    Chinese items a Latin name (a transliteration); never a code, a handle or a figure."""
    if CJK_CHAR_RE.search(entity):
        return True
    return language == "en" and entity.isalpha()


def _words_share(claim: Facts, evidence: Sequence[Evidence]) -> float:
    total = len(claim.words) + len(claim.zh_words)
    if not total:
        return 1.0
    words = frozenset().union(*(e.words for e in evidence))
    held = len(claim.words & words)
    held += sum(1 for w in claim.zh_words if any(w in e.text for e in evidence))
    return held / total


def _host(link: str) -> str:
    try:
        return urlsplit(link or "").hostname or ""
    except ValueError:
        return ""


# --- a brief's sentences against its items -----------------------------------------------------


@dataclass(frozen=True)
class Judgement:
    """``reason`` is None for a sentence kept as written; ``recited`` for one kept citing
    ``cites`` instead; any other reason drops it."""

    reason: str | None = None
    cites: tuple[int, ...] = ()


KEPT = Judgement()


class SupportCheck:
    """The items of one brief, prepared once, judging its sentences one by one."""

    def __init__(self, items: Sequence[SourceItem], *, now: datetime, language: str | None):
        self.items = list(items)
        self.now = now
        self.language = language if language in ("zh", "en") else None
        self.evidence = {
            i.n: evidence_of(n=i.n, title=i.title, text=i.summary, source=i.source, link=i.link)
            for i in self.items
        }

    def judge(self, sentence: str, cited: Sequence[SourceItem]) -> Judgement:
        """Whether ``sentence`` (with its ``[n]`` and ``claims``' link marks) stays, and why not."""
        text = CITATION_RE.sub(" ", LINK_MARK_RE.sub(" ", sentence))
        text = " ".join(DOMAIN_RE.sub(" ", text).split())  # an address is judged as one
        written_in = text_language(text)
        if self.language and written_in and written_in != self.language:
            return Judgement(REASON_LANGUAGE)
        texts = [self.evidence[i.n].text for i in cited]
        links = [i.link for i in cited]
        if instruction_found(sentence, cited_texts=texts, cited_links=links):
            return Judgement(REASON_INSTRUCTION)
        claim = facts_of(text)
        clauses = cache(lambda: clauses_of(text))  # read once, and only when needed
        reason = self._reason(claim, clauses, text, cited)
        if reason is None:
            return KEPT
        numbers = {i.n for i in cited}
        others = [i for i in self.items if i.n not in numbers]
        # Figures and names first: they rule most items out faster than dates do.
        supporting = [
            i.n
            for i in others
            if support_reason(claim, [self.evidence[i.n]], clauses) is None
            and dates_backed(text, [i], now=self.now)
        ]
        if len(supporting) == 1:
            return Judgement(REASON_RECITED, (supporting[0],))
        return Judgement(reason)

    def _reason(
        self,
        claim: Facts,
        clauses: Callable[[], Sequence[Facts]],
        text: str,
        cited: Sequence[SourceItem],
    ) -> str | None:
        if not dates_backed(text, list(cited), now=self.now):
            return REASON_DATE
        return support_reason(claim, [self.evidence[i.n] for i in cited], clauses)
