"""The writer contract: a model's brief keeps only sentences that its cited items back.

Every sentence or bullet of the answer must carry at least one citation ``[n]`` of a given item;
a sentence without one is removed (``uncited``, or ``invalid_citation`` when it cited only
numbers that are not items). Each sentence that cites items then goes to the support check
(``agent.summary.support``): written in the brief's language, giving the reader no orders, and
saying only what its cited items say (its dates, figures, names and words); a sentence that
another single item supports instead is re-cited to it (``recited``). Headings are removed (the
framing is the brief's own), and so are images and HTML (``markup``); a link keeps its text and
its target is marked for the support check, which drops a sentence pointing anywhere but at a
cited item (``instruction``). A claim is text and citations.

``claims_check`` never raises; it reports what it kept and what it dropped, by reason.
``ClaimsReport.enough`` says whether enough of the answer held for it to stand (at least half of
its sentences, and one at least).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from agent.summary.draft import CITATION_RE, SourceItem
from agent.summary.instruction import LINK_CLOSE, LINK_MARK_RE, LINK_OPEN
from agent.summary.support import REASON_RECITED, SupportCheck

HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
BULLET = re.compile(r"^(\s*(?:[-*+]|\d{1,3}[.)])\s+|\s*>\s*)")
IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)")
URL = re.compile(
    r"(?<!\ue000)<?\b(?:https?|ftp|mailto|javascript|data):[^\s<>()\ue000\ue001]*>?", re.I
)
HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>|<!--.*?-->", re.S)
HREF = re.compile(r"""\bhref\s*=\s*["']?([^"'\s>]+)""", re.I)
# Control, invisible format (zero-width, bidi overrides) and private-use characters, and lone
# surrogates: nothing a reader should get, and the link marks are ours alone.
UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ud800-\udfff"
    "\ue000-\uf8ff]"
)
# A sentence ends at . ! ? (then space) or at a CJK full stop, exclamation or question mark,
# unless the dot closes an abbreviation.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[\u3002\uff01\uff1f])")
ABBREVIATION = re.compile(
    r"(?:\b[A-Z]\.|\b(?:Mr|Mrs|Ms|Dr|St|vs|etc|Inc|Ltd|Co|Jr|Sr|No|Fig|e\.g|i\.e|approx|a\.m|p\.m))"
    r"\.?$"
)
LEADING_CITATIONS = re.compile(r"^((?:\[\d{1,4}\]\s*)+[.,;\u3002]?)\s*(.*)$", re.DOTALL)

REASON_UNCITED = "uncited"
REASON_INVALID_CITATION = "invalid_citation"
REASON_HEADING = "heading"
REASON_MARKUP = "markup"


@dataclass
class ClaimsReport:
    """What ``claims_check`` kept of a model's brief, and what it dropped and why."""

    body: str
    cited: set[int]
    produced: int  # sentences and bullets the writer wrote
    kept: int
    dropped: Counter = field(default_factory=Counter)  # reason -> sentences (markup: pieces)
    invalid_numbers: list[int] = field(default_factory=list)

    def as_payload(self) -> dict:
        return {"produced": self.produced, "kept": self.kept, **dict(sorted(self.dropped.items()))}

    @property
    def sentences(self) -> int:
        """Sentences and bullets the writer wrote, headings aside."""
        return self.produced - self.dropped.get(REASON_HEADING, 0)

    @property
    def enough(self) -> bool:
        """Whether enough held for the answer to stand: half its sentences, and one at least."""
        return self.kept > 0 and 2 * self.kept >= self.sentences


def claims_check(
    body: str, items: list[SourceItem], *, now: datetime, language: str | None = None
) -> ClaimsReport:
    """Keep the sentences of ``body`` that cite given items which support them. ``language``
    (``zh``/``en``): the brief's; a sentence in the other is dropped. None: not checked."""
    check = SupportCheck(items, now=now, language=language)
    by_n = {item.n: item for item in items}
    report = ClaimsReport(body="", cited=set(), produced=0, kept=0)
    lines = []
    for line in UNPRINTABLE.sub("", body.replace("\r\n", "\n")).split("\n"):
        lines.append(_line(line, by_n, check, report))
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    report.body = text
    report.invalid_numbers = sorted(set(report.invalid_numbers))
    return report


def _line(line: str, by_n: dict[int, SourceItem], check: SupportCheck, report: ClaimsReport) -> str:
    if not line.strip():
        return ""
    if HEADING.match(line):
        report.produced += 1
        report.dropped[REASON_HEADING] += 1
        return ""
    prefix_match = BULLET.match(line)
    prefix = prefix_match.group(1) if prefix_match else ""
    text = _unmarked(line[len(prefix) :], report)
    kept = [k for s in sentences_split(text) if (k := _kept(s, by_n, check, report))]
    return f"{prefix}{' '.join(kept)}" if kept else ""


def _unmarked(text: str, report: ClaimsReport) -> str:
    """The text with images and HTML removed, links to their text and URLs gone, each counted;
    where a link or URL pointed is left marked (``LINK_OPEN``...``LINK_CLOSE``) for the support
    check, which drops the sentence unless it points at a cited item."""
    replacements = ((IMAGE, ""), (LINK, _link_text), (HTML_TAG, _tag_mark), (URL, _url_mark))
    for pattern, replacement in replacements:
        text, count = pattern.subn(replacement, text)
        report.dropped[REASON_MARKUP] += count
    if not report.dropped[REASON_MARKUP]:
        del report.dropped[REASON_MARKUP]
    return " ".join(text.split())


def _mark(target: str) -> str:
    return f"{LINK_OPEN}{target.strip('<>')}{LINK_CLOSE}" if target else ""


def _link_text(match: re.Match[str]) -> str:
    target = match.group(0)[len(match.group(1)) + 3 : -1].split()
    return match.group(1) + (_mark(target[0]) if target else "")


def _tag_mark(match: re.Match[str]) -> str:
    href = HREF.search(match.group(0))
    return _mark(href.group(1)) if href else ""


def _url_mark(match: re.Match[str]) -> str:
    return _mark(match.group(0))


def sentences_split(text: str) -> list[str]:
    """Sentences of one line; a citation written after the full stop joins its sentence."""
    pieces: list[str] = []
    for piece in SENTENCE_END.split(text):
        piece = piece.strip()
        leading = LEADING_CITATIONS.match(piece) if pieces else None
        if leading:  # "fell. [1] Then..." : the [1] belongs to "fell."
            pieces[-1] = f"{pieces[-1]} {leading.group(1).strip()}"
            piece = leading.group(2).strip()
        if not piece:
            continue
        if pieces and ABBREVIATION.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return pieces


def _kept(sentence: str, by_n: dict[int, SourceItem], check: SupportCheck, report) -> str:
    """The sentence as kept (citations of numbers that are not items, and link marks, gone;
    re-cited when another item supports it), or "" when dropped."""
    report.produced += 1
    numbers = [int(n) for n in CITATION_RE.findall(sentence)]
    cited = [by_n[n] for n in numbers if n in by_n]
    invalid = [n for n in numbers if n not in by_n]
    report.invalid_numbers.extend(invalid)
    if not cited:
        report.dropped[REASON_INVALID_CITATION if invalid else REASON_UNCITED] += 1
        return ""
    judgement = check.judge(sentence, cited)
    if judgement.reason is not None:
        report.dropped[judgement.reason] += 1
        if judgement.reason != REASON_RECITED:
            return ""
        sentence, cited = _recited(sentence, judgement.cites), [by_n[n] for n in judgement.cites]
    report.kept += 1
    report.cited.update(item.n for item in cited)
    sentence = " ".join(LINK_MARK_RE.sub("", sentence).split())
    if not invalid:
        return sentence
    return CITATION_RE.sub(lambda m: m.group(0) if int(m.group(1)) in by_n else "", sentence)


def _recited(sentence: str, cites: tuple[int, ...]) -> str:
    """The sentence citing ``cites`` where it cited its first item, its other citations gone."""
    first = True

    def replace(match: re.Match[str]) -> str:
        nonlocal first
        keep, first = first, False
        return "".join(f"[{n}]" for n in cites) if keep else ""

    return CITATION_RE.sub(replace, sentence)
