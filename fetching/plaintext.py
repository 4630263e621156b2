"""Feed fields as stored plain text: HTML reduced to what a reader sees, cleaned and capped.

Django-free: runs in the parse worker. Rules of the reduction (``html_text``):

- Tags go, character references are unescaped, block elements become spaces, whitespace
  collapses. Only ``script`` and ``style`` lose their contents: they are the elements whose
  contents a page never shows. Every other element keeps its text, so an unclosed ``<object>``
  or ``<iframe>`` cannot swallow the text after it. (An unclosed ``<script>`` runs to the end of
  the field, as HTML defines it: what follows it is script source, not text.)
- A comment ends at ``-->``; one that never ends there ends at the next ``>``, or at the end of
  the field if there is none, so text after an odd or unclosed comment is kept.
- CDATA markers are dropped and their contents read as the markup around them.
- What remains of comment or CDATA markers after unescaping (``&lt;!--`` in the source) is
  removed, so stored text never carries them.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from fetching.feedtext import UNSAFE_CHARS

_HTML_CHUNK = 8192
_CDATA_MARKERS = re.compile(r"<!\[CDATA\[|\]\]>", re.IGNORECASE)
_LEFTOVER_MARKERS = re.compile(r"<!\[CDATA\[|\]\]>|<!--|--!?>", re.IGNORECASE)


# Characters that reorder or hide text without being seen: bidirectional overrides, embeddings
# and isolates, and zero-width characters. In a question or a fetched title they would reach
# email subjects, Atom titles and pages, where a right-to-left override makes a title read as
# something else. They are removed (not refused): text copied from a right-to-left page may carry
# them innocently. The one home of this list: questions (``briefs.services``) and every fetched
# text field (``text_clean``) use it.
INVISIBLE_CONTROLS = dict.fromkeys(
    map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
             "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u061c"),
    None,
)  # fmt: skip


def invisible_strip(text: str) -> str:
    """``text`` without bidirectional controls and zero-width characters."""
    return text.translate(INVISIBLE_CONTROLS)


def text_clean(value: str, limit: int) -> str:
    """Drop NUL, other controls, lone surrogates, bidirectional and zero-width characters,
    collapse whitespace, cut to ``limit``."""
    return " ".join(invisible_strip(UNSAFE_CHARS.sub("", value)).split())[:limit].rstrip()


def plain_line(value: Any, limit: int) -> str:
    """A text field taken as-is (no HTML meaning), cleaned and capped."""
    return text_clean(value, limit) if isinstance(value, str) else ""


# Letters and digits of scripts that separate words with spaces; a CJK character is a word of
# its own, so a cut between two of them is not a cut inside a word.
_CJK_START = 0x2E80


def _word_char(c: str) -> bool:
    return c.isalnum() and ord(c) < _CJK_START


def text_cut(text: str, limit: int) -> str:
    """``text`` on one line with at most ``limit`` characters, ended with "…" when it was longer.
    The cut falls after a whole word (or a CJK character): at the last space, or else at the
    last punctuation (``getaddrinfo ENOTFOUND a.example``: after ``a.``), never inside a word;
    only a single word longer than half the limit is cut inside."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if _word_char(head[-1]) and _word_char(text[limit - 1]):
        back = range(len(head) - 1, limit // 2, -1)
        end = next((i + 1 for i in back if not _word_char(head[i])), None)
        head = head[:end] if end else head
    return head.rstrip(" ·,;:") + "…"


class _TextExtractor(HTMLParser):
    """Collects the text of an HTML fragment; script and style contents are dropped."""

    SKIPPED = frozenset({"script", "style"})
    BREAKS = frozenset(
        {"br", "p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6"}
        | {"blockquote", "pre", "section", "article", "header", "footer", "ul", "ol", "table"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.size = 0
        self.skip_depth = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.SKIPPED:
            self.skip_depth += 1
        elif tag in self.BREAKS:
            self.parts.append(" ")

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if tag in self.BREAKS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIPPED:
            self.skip_depth = max(0, self.skip_depth - 1)
        elif tag in self.BREAKS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.skip_depth:
            self.parts.append(data)
            self.size += len(data)


def comments_removed(markup: str) -> str:
    """``markup`` without comments; one not closed by ``-->`` ends at the next ``>`` (or the end).

    Linear: once no ``-->`` is found after some point, none is looked for again.
    """
    if "<!--" not in markup:
        return markup
    kept: list[str] = []
    pos, closer = 0, 0
    while (start := markup.find("<!--", pos)) >= 0:
        kept.append(markup[pos:start])
        if 0 <= closer < start + 2:
            closer = markup.find("-->", start + 2)  # from +2: "<!-->" is a whole comment
        if closer >= 0:
            pos = closer + 3
            continue
        end = markup.find(">", start + 4)
        pos = end + 1 if end >= 0 else len(markup)
    kept.append(markup[pos:])
    return "".join(kept)


def html_text(value: Any, limit: int) -> str:
    """Plain text of an HTML fragment (see the module docstring), cleaned and capped.

    Markup is fed in chunks and parsing stops once enough text is collected, so a huge body costs
    no more than its first few ``limit``s of characters (after one linear pass over comments).
    """
    if not isinstance(value, str) or not value:
        return ""
    if "<" not in value and "&" not in value:
        return text_clean(value, limit)  # the common plain case skips the HTML parser
    markup = _CDATA_MARKERS.sub("", comments_removed(value))
    extractor = _TextExtractor()
    for start in range(0, len(markup), _HTML_CHUNK):
        extractor.feed(markup[start : start + _HTML_CHUNK])
        if extractor.size > 2 * limit:
            break  # enough text even after whitespace collapses; the rest would be cut anyway
    else:
        extractor.close()
    return text_clean(_LEFTOVER_MARKERS.sub(" ", "".join(extractor.parts)), limit)
