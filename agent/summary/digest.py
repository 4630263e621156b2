"""The offline brief: the lead line, the key terms, the entries and the sentence under each.

Every word here is either an item's own (its title, one sentence of its text) or a template
filled with numbers and times the run measured; nothing is paraphrased. An entry is a story
(``agent.summary.folding``): its lead item's title and sentence, with the citations of every
item that tells it.
"""

import math
import re
from collections import Counter
from datetime import datetime

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agent.question import TimeWindow
from agent.summary.agreement import story_table
from agent.summary.agreement_text import agreement_lines, brief_tables
from agent.summary.draft import (
    Draft,
    SourceItem,
    citations_of,
    coverage_markdown,
    escape_markdown,
    items_count,
    time_text,
)
from agent.summary.folding import Story, shingles, stories_fold
from agent.summary.terms import key_terms
from briefs.coverage import Attempted

Background = tuple[Counter[str], int]  # term -> how many other recent items hold it; their count
NO_BACKGROUND: Background = (Counter(), 0)
KEY_TERMS_FROM = 8  # a brief of more items than this gets a key-terms line

SENTENCE_RE = re.compile(r".+?(?:[。！？；]+[”’」』）)]*|[.!?]+[\"')\]]*(?=\s|$)|$)", re.S)  # noqa: RUF001
CLAUSE_END_RE = re.compile(r"[，、：,;:]")  # noqa: RUF001
SENTENCE_MAX = 200  # characters; a longer sentence is cut at its last clause mark before this
SENTENCE_MIN_WORDS = 4  # Latin words an informative sentence has at least
SENTENCE_MIN_CJK = 8  # or Chinese characters
CJK_CHAR_RE = re.compile(r"[\u3400-\u9fff]")
BOILERPLATE_RE = re.compile(
    r"点击|查看原文|阅读原文|阅读全文|本文来自|本文来源|来源[:：]|原标题|责任编辑|编辑[:：]|"  # noqa: RUF001
    r"转载|版权|关注我们|扫码|二维码|下载.{0,6}APP|"
    r"read more|continue reading|click here|read the full|the post .+ appeared first|"
    r"this article (?:was )?originally|subscribe|sign up|all rights reserved|\bcopyright\b",
    re.I,
)
TITLE_ECHO = 0.7  # share of a sentence's shingles found in the title above which it repeats it


def sentence_pick(title: str, text: str) -> str:
    """The first informative sentence of ``text``: not boilerplate, not the title again, long
    enough to say something; cut at a clause mark (then "…") when long. "" when none is."""
    title_marks = shingles(title)
    for match in SENTENCE_RE.finditer(" ".join(text.split())):
        sentence = match.group(0).strip()
        if _informative(sentence, title_marks):
            return _cut(sentence)
    return ""


def _informative(sentence: str, title_marks: frozenset[str]) -> bool:
    if BOILERPLATE_RE.search(sentence):
        return False
    cjk = len(CJK_CHAR_RE.findall(sentence))
    if cjk < SENTENCE_MIN_CJK and len(sentence.split()) < SENTENCE_MIN_WORDS:
        return False
    marks = shingles(sentence)
    return bool(marks) and len(marks & title_marks) / len(marks) < TITLE_ECHO


def _cut(sentence: str) -> str:
    if len(sentence) <= SENTENCE_MAX:
        return sentence
    head = sentence[:SENTENCE_MAX]
    marks = list(CLAUSE_END_RE.finditer(head))
    end = marks[-1].start() if marks and marks[-1].start() > SENTENCE_MAX // 3 else SENTENCE_MAX
    return head[:end].rstrip() + "…"


def lead_line(items: list[SourceItem], as_of: datetime) -> str:
    """How many items, from how many sources, over what span, and when the newest is from."""
    dated = [i.published_at for i in items if i.published_at]
    values = {
        "time": time_text(as_of),
        "items": items_count(len(items)),
        "sources": sources_count(len({i.path for i in items})),
    }
    if not dated:
        return _("As of %(time)s: %(items)s from %(sources)s, none of them dated.") % values
    values["span"] = span_text(as_of, min(dated))
    newest = max(dated)
    same_day = newest.date() == as_of.date()
    values["newest"] = newest.strftime("%H:%M UTC") if same_day else time_text(newest)
    return _("As of %(time)s: %(items)s from %(sources)s %(span)s; newest %(newest)s.") % values


def sources_count(n: int) -> str:
    return ngettext("%(n)d source", "%(n)d sources", n) % {"n": n}


def span_text(as_of: datetime, oldest: datetime) -> str:
    """ "in the last 6 hours", rounded up; days beyond two days; the date beyond a month."""
    hours = max(1, math.ceil((as_of - oldest).total_seconds() / 3600))
    if hours <= 48:
        return ngettext("in the last %(n)d hour", "in the last %(n)d hours", hours) % {"n": hours}
    days = math.ceil(hours / 24)
    if days > 31:
        return _("since %(date)s") % {"date": oldest.strftime("%Y-%m-%d")}
    return ngettext("in the last %(n)d day", "in the last %(n)d days", days) % {"n": days}


def entry_lines(stories: list[Story[SourceItem]]) -> list[str]:
    """Each story as a list entry: title, sources, time and citations; its sentence below."""
    lines: list[str] = []
    untitled = _("(untitled)")
    for story in stories:
        lead = story.lead
        sources = _(", ").join(dict.fromkeys(i.source for i in story.items))
        cites = " ".join(f"[{i.n}]" for i in story.items)
        head = (
            f"- **{escape_markdown(lead.title) or untitled}** · {escape_markdown(sources)} · "
            f"{time_text(lead.published_at)} {cites}"
        )
        sentence = sentence_pick(lead.title, lead.summary)
        below = [escape_markdown(sentence)] if sentence else []
        below += agreement_lines(story_table(story.items))
        rows = [head, *(f"  {line}" for line in below)]
        lines += [f"{row}\\" for row in rows[:-1]] + [rows[-1]]
    return lines


def key_terms_line(items: list[SourceItem], background: Background) -> str:
    """One line naming the recurring terms, each with the citations of the items holding it;
    "" for a brief of ``KEY_TERMS_FROM`` items or fewer, or when nothing recurs."""
    if len(items) <= KEY_TERMS_FROM:
        return ""
    texts = {i.n: f"{i.title} {i.summary}" for i in items}
    found = key_terms(list(texts.items()), *background)
    if not found:
        return ""
    terms = " · ".join(
        f"{escape_markdown(_as_written(t.term, texts[t.numbers[0]]))} "
        + " ".join(f"[{n}]" for n in t.numbers)
        for t in found
    )
    return _("Key terms: %(terms)s") % {"terms": terms}


def _as_written(term: str, text: str) -> str:
    """The term as the first item holding it writes it ("Nvidia", not "nvidia")."""
    found = re.search(re.escape(term), text, re.I)
    return found.group(0) if found else term


def brief_extractive(
    items: list[SourceItem],
    *,
    attempted: list[Attempted],
    window: TimeWindow,
    in_window: bool,
    as_of: datetime,
    note: str = "",
    background: Background = NO_BACKGROUND,
) -> Draft:
    """The lead line, the notes, the key terms, then one entry per story, ranked as ``items``
    come; ``note`` is said after the lead (how many items are about the subject)."""
    lines = [lead_line(items, as_of)]
    if note:
        lines.append(note)
    if not in_window:
        lines.append(
            _(
                "None of the fetched items falls in the window asked for (%(window)s); "
                "these are the newest available."
            )
            % {"window": window.label}
        )
    terms = key_terms_line(items, background)
    lines += ["", terms] if terms else []
    lines += ["", *entry_lines(stories_fold(items))]
    body = "\n".join(lines) + "\n" + coverage_markdown(attempted)
    return Draft(
        body=body,
        citations=citations_of(items),
        method="extractive",
        agreements=brief_tables(items),
    )
