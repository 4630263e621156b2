"""Finds English that a Chinese reader should not see: sentences of the project's own catalog
(``locale/zh_Hans/LC_MESSAGES/django.po`` and ``djangojs.po``) shown as their English msgid.

A page is read as a person reads it: the text of its elements and the attributes a screen reader
speaks (``title``, ``aria-label``, ``alt``, ``placeholder``, a button's ``value``), without
``script``, ``style``, ``code``, ``pre``, ``kbd``, ``samp``, ``textarea``, anything marked
``translate="no"`` (questions, item titles, route paths: what people and feeds wrote) and anything
whose ``lang`` names a language other than Chinese (a brief written in its question's language).
``brief_in_wrong_language`` reads a brief's own element against the brief's language instead, and
``chinese_in_html`` an English page for Chinese.

A text is untranslated when it *is* a msgid (any length: the live badge's "running"), or holds a
msgid of two or more words of its own (placeholders aside) inside it ("Chose ... for route:
highest search score (0.93)").
Placeholders (``%(n)s``, ``{n}``, ``%s``) match a value of up to four words. A msgid whose
translation is itself
(``RSSHub``, ``API``) is never a finding.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOGS = (
    ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po",
    ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "djangojs.po",
)
SKIPPED_TAGS = frozenset({"script", "style", "code", "pre", "kbd", "samp", "textarea", "template"})
VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
SPOKEN_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder")
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|%[sd]|\{[a-z_0-9]*\}")


@dataclass
class Entry:
    msgid: str
    msgid_plural: str = ""
    msgstrs: list[str] = field(default_factory=list)
    fuzzy: bool = False
    line: int = 0


def _unquote(text: str) -> str:
    body = text.strip()
    if not (body.startswith('"') and body.endswith('"')):
        raise ValueError(f"not a quoted string: {text!r}")
    return body[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")


def po_entries(path: Path) -> list[Entry]:
    """The entries of a .po file, its header (empty msgid) and obsolete (``#~``) ones left out."""
    entries: list[Entry] = []
    current: Entry | None = None
    target: tuple[str, int] = ("", -1)
    fuzzy = False

    def close():
        if current is not None and current.msgid:
            entries.append(current)

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if line.startswith("#,"):
            fuzzy = fuzzy or "fuzzy" in line
        elif line.startswith("msgid "):
            close()
            current, target = Entry(_unquote(line[6:]), fuzzy=fuzzy, line=number), ("id", -1)
            fuzzy = False
        elif line.startswith("msgid_plural ") and current:
            current.msgid_plural, target = _unquote(line[13:]), ("plural", -1)
        elif line.startswith("msgstr") and current:
            _head, _, value = line.partition(" ")
            current.msgstrs.append(_unquote(value))
            target = ("str", len(current.msgstrs) - 1)
        elif line.startswith('"') and current:
            _extend(current, target, _unquote(line))
    close()
    return entries


def _extend(entry: Entry, target: tuple[str, int], text: str) -> None:
    kind, index = target
    if kind == "id":
        entry.msgid += text
    elif kind == "plural":
        entry.msgid_plural += text
    elif kind == "str":
        entry.msgstrs[index] += text


def catalog_problems(path: Path) -> list[str]:
    """Entries of ``path`` with an empty or fuzzy translation, one line each."""
    problems = []
    for entry in po_entries(path):
        if entry.fuzzy:
            problems.append(f"{path.name}:{entry.line}: fuzzy: {entry.msgid!r}")
        if not entry.msgstrs or any(not s.strip() for s in entry.msgstrs):
            problems.append(f"{path.name}:{entry.line}: empty msgstr: {entry.msgid!r}")
    return problems


def _words(text: str) -> int:
    return len(re.findall(r"[A-Za-z]+", PLACEHOLDER.sub("", text)))


def _literal(part: str) -> str:
    """A literal part of a msgid, as whole words: "ms" is not the end of "items"."""
    text = " ".join(part.split())
    head = r"\b" if text[:1].isalnum() else ""
    tail = r"\b" if text[-1:].isalnum() else ""
    return head + re.escape(text) + tail if text else ""


def _pattern(msgid: str) -> re.Pattern:
    # A value is a few words at most: "%(ok)s of %(n)s" is not every sentence holding "of".
    value = r"\S+?(?: \S+?){0,3}"
    return re.compile(value.join(_literal(part) for part in PLACEHOLDER.split(msgid)))


@dataclass(frozen=True)
class Sentence:
    msgid: str
    whole: re.Pattern
    inside: bool  # also found within a longer text


@functools.cache
def catalog_sentences() -> tuple[Sentence, ...]:
    """The English of every msgid (and plural) that has a translation of its own."""
    found: dict[str, Sentence] = {}
    for path in CATALOGS:
        if not path.exists():
            continue
        for entry in po_entries(path):
            for english in filter(None, (entry.msgid, entry.msgid_plural)):
                if english in entry.msgstrs or _words(english) == 0:
                    continue
                found[english] = Sentence(english, _pattern(english), _words(english) >= 2)
    return tuple(found.values())


class _VisibleText(HTMLParser):
    def __init__(self, reader: str = "zh"):
        super().__init__(convert_charrefs=True)
        self.reader = reader
        self.texts: list[str] = []
        self._stack: list[bool] = []  # per open element: is its text hidden from the check

    @property
    def _hidden(self) -> bool:
        return bool(self._stack) and self._stack[-1]

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        lang = (values.get("lang") or self.reader).lower()
        hidden = (
            self._hidden
            or tag in SKIPPED_TAGS
            or values.get("translate") == "no"
            or (tag != "html" and not lang.startswith(self.reader))
        )
        if not hidden:
            self.texts.extend(values[name] for name in SPOKEN_ATTRIBUTES if values.get(name))
            if (
                tag == "input"
                and values.get("type") in ("submit", "button")
                and values.get("value")
            ):
                self.texts.append(values["value"])
        if tag not in VOID_TAGS:
            self._stack.append(hidden)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS:
            self._stack.pop()

    def handle_endtag(self, tag):
        if tag not in VOID_TAGS and self._stack:
            self._stack.pop()

    def handle_data(self, data):
        if not self._hidden and data.strip():
            self.texts.append(data)


def visible_texts(html: str, reader: str = "zh") -> list[str]:
    """The texts of ``html`` a reader sees or hears, each with its white space collapsed; an
    element whose ``lang`` is not the ``reader``'s language (``zh`` or ``en``) is left out."""
    parser = _VisibleText(reader)
    parser.feed(html)
    parser.close()
    return [" ".join(text.split()) for text in parser.texts if text.strip()]


def untranslated(texts: list[str]) -> list[str]:
    """Each catalog sentence found in English in ``texts``: ``"<msgid>" in "<text>"``."""
    findings = []
    for text in texts:
        for sentence in catalog_sentences():
            if sentence.whole.fullmatch(text) or (sentence.inside and sentence.whole.search(text)):
                findings.append(f"{sentence.msgid!r} in {text[:160]!r}")
    return findings


def untranslated_in_html(html: str) -> list[str]:
    return untranslated(visible_texts(html))


CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


TITLE_RE = re.compile(r"<title>.*?</title>", re.S)


def chinese_in_html(html: str) -> list[str]:
    """For an English page or brief: each text an English reader is shown with Chinese in it,
    outside ``translate="no"`` and elements whose ``lang`` says Chinese (titles, user text).
    The document's title is left out: it carries the question, and no part of a title can say
    its language."""
    texts = visible_texts(TITLE_RE.sub("", html), reader="en")
    return [text for text in texts if CJK_RE.search(text)]


BRIEF_PARTS_RE = re.compile(
    r'<section class="card(?: brief-body)?" id="(?:brief-body|sources)" lang="([^"]*)">'
    r".*?</section>",
    re.S,
)


@functools.cache
def catalog_chinese() -> tuple[str, ...]:
    """The Chinese of the catalog's translations, in literal runs of three characters or more
    (placeholders split them): what only the project's own words would put in a text."""
    runs = set()
    for path in CATALOGS:
        if not path.exists():
            continue
        for entry in po_entries(path):
            for text in entry.msgstrs:
                for part in PLACEHOLDER.split(text):
                    runs.update(r for r in CJK_RUN_RE.findall(part) if len(r) >= 3)
    return tuple(sorted(runs))


CJK_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]+")


def catalog_chinese_in(texts: list[str]) -> list[str]:
    """Each run of the catalog's Chinese found in ``texts``: ``"<run>" in "<text>"``."""
    runs = catalog_chinese()
    return [f"{run!r} in {text[:160]!r}" for text in texts for run in runs if run in text]


def brief_in_wrong_language(html: str) -> list[str]:
    """A brief's own element (its body and sources) read against the brief's language, not the
    page's: catalog English in a Chinese brief; in an English one, the catalog's Chinese (an
    English brief may quote Chinese titles and questions in its text, never our words)."""
    found = []
    for match in BRIEF_PARTS_RE.finditer(html):
        part, lang = match.group(0), match.group(1).lower()
        if lang.startswith("zh"):
            found += untranslated_in_html(part)
        else:
            found += catalog_chinese_in(visible_texts(part, reader="en"))
    return found


def untranslated_in_text(text: str) -> list[str]:
    """For plain text (an email, a browser's ``innerText``): each non-empty line is a text."""
    return untranslated([" ".join(line.split()) for line in text.splitlines() if line.strip()])
