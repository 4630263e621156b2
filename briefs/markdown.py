"""A brief's markdown as safe HTML, with each ``[n]`` a link to the item it cites.

The body is model output, so it is hostile input (DESIGN.md section 5). Three layers, each enough
on its own against script injection, together also against misleading links:

1. markdown-it-py's ``commonmark`` preset with ``html=False``: raw HTML stays text. Links,
   images and autolinks written by the model are reduced to their text; reference definitions
   are not parsed (``[1]: ...`` would otherwise vanish from the page).
2. ``[n]`` becomes a link only when ``n`` is a citation of the brief whose item has an http(s)
   URL; the link goes to that URL, titled with the item's title, source and published time.
3. nh3 with an allowlist of tags and attributes, where ``href`` may only take the values of the
   cited items' URLs and every link gets ``rel="noopener noreferrer nofollow"``.
"""

import re
from dataclasses import dataclass
from datetime import datetime

import nh3
from django.utils import formats, timezone, translation
from django.utils.dateparse import parse_datetime
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_inline import StateInline

from briefs.body_times import body_times_local
from briefs.coverage import coverage_stripped
from catalog.path_breaks import path_with_breaks
from fetching.feeditems import is_absolute_http_url
from fetching.plaintext import text_cut  # also this module's: briefs.forms, tests

CITATION_RE = re.compile(r"\[(\d{1,4})\]")
ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre",
    "blockquote", "ul", "ol", "li", "a", "sup", "wbr",
}  # fmt: skip
LINK_REL = "noopener noreferrer nofollow"
URL_UNSAFE_RE = re.compile(r"[\x00-\x20\x7f\"'<>\\`]")


@dataclass(frozen=True)
class Citation:
    """One cited item as a page shows it. ``url`` is "" when the item has no http(s) link."""

    n: int
    title: str
    url: str
    source: str
    path: str
    published_at: datetime | None
    # The item's language when it is not the brief's (``briefs.language.citations_marked``),
    # named lazily: the page says it in the brief's language; "" otherwise.
    language_mark: str = ""
    # The ``lang`` of the title when it is not the brief's (BCP 47), so a page and a screen
    # reader read it in its own language; "" otherwise.
    title_lang: str = ""
    # The title in the brief's language, written by the model for this brief or an earlier one
    # (``agent.translate``); "" when there is none (offline, or the title is the brief's).
    title_translated: str = ""

    @property
    def tooltip(self) -> str:
        when = (
            formats.date_format(timezone.localtime(self.published_at), "DATETIME_FORMAT")
            if self.published_at
            else ""
        )
        return " · ".join(part for part in (self.title, self.source, when) if part)


def citation_href(value: object) -> str:
    """A cited item's stored link when it may be a link's ``href`` as it is: nothing in it that
    HTML or a URL would need escaped (controls, spaces, quotes, ``<>``, backslash, backtick),
    and an absolute http(s) URL (``fetching.feeditems.is_absolute_http_url``); otherwise ""."""
    if not isinstance(value, str) or URL_UNSAFE_RE.search(value):
        return ""
    return value if is_absolute_http_url(value) else ""


def _published(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = parse_datetime(value)
    except ValueError:
        return None
    if moment is None or timezone.is_naive(moment):
        return None
    return moment


def citations_read(raw: object) -> list[Citation]:
    """The brief's ``citations`` JSON as ``Citation`` rows, malformed entries skipped."""
    rows: dict[int, Citation] = {}
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("n"), int):
            continue
        n = entry["n"]
        rows.setdefault(
            n,
            Citation(
                n=n,
                title=str(entry.get("title") or "")[:1000],
                url=citation_href(entry.get("link")),
                source=str(entry.get("source") or "")[:300],
                path=str(entry.get("path") or "")[:1000],
                published_at=_published(entry.get("published_at")),
                title_translated=str(entry.get("title_translated") or "")[:300],
            ),
        )
    return sorted(rows.values(), key=lambda c: c.n)


def _citation_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "[":
        return False
    match = CITATION_RE.match(state.src, state.pos)
    if not match:
        return False
    if not silent:
        token = state.push("citation", "", 0)
        token.meta = {"n": int(match.group(1))}
        token.content = match.group(0)
    state.pos = match.end()
    return True


def _render_citation(self, tokens, idx, options, env) -> str:
    n = tokens[idx].meta["n"]
    citation = env["citations"].get(n)
    text = f"[{n}]"
    if citation is None:
        return escapeHtml(text)
    title = escapeHtml(citation.tooltip)
    if not citation.url:
        return f'<sup class="cite" title="{title}">{text}</sup>'
    return (
        f'<sup class="cite"><a href="{escapeHtml(citation.url)}" title="{title}" '
        f'data-n="{n}" target="_blank">{text}</a></sup>'
    )


def _render_code_inline(self, tokens, idx, options, env) -> str:
    content = tokens[idx].content
    if content.startswith("/") and " " not in content:
        return f'<code class="path">{path_with_breaks(content)}</code>'
    return f"<code>{escapeHtml(content)}</code>"


def _render_nothing(self, tokens, idx, options, env) -> str:
    return ""


def _render_image_as_text(self, tokens, idx, options, env) -> str:
    return escapeHtml(self.renderInlineAsText(tokens[idx].children or [], options, env))


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable("reference")
    md.inline.ruler.before("link", "citation", _citation_rule)
    md.add_render_rule("citation", _render_citation)
    for rule in ("link_open", "link_close"):
        md.add_render_rule(rule, _render_nothing)
    md.add_render_rule("image", _render_image_as_text)
    md.add_render_rule("code_inline", _render_code_inline)
    return md


PARSER = _parser()


SNIPPET_LENGTH = 200
SPACE_BEFORE_STOP_RE = re.compile(r"\s+([.,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f])")


SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|(?<=[\u3002\uff01\uff1f])\s*")
LABEL_CHARS = 20  # "Can't query.", "Not found.": a label, said with the sentence after it


def body_snippet(body: str, limit: int = SNIPPET_LENGTH) -> str:
    """A line of plain text that says what a brief found: its first sentence (of its first
    paragraph, or of its first list entry when it has no paragraph), never a heading or the
    coverage's error messages; a short label ("Not found.") keeps the sentence after it. No
    markup, no ``[n]`` markers, and cut at a word's end when too long."""
    first_entry, paragraph, depth, opened, labelled = "", "", 0, "", False
    for token in PARSER.parse(body or ""):
        if token.type == "list_item_open":
            depth += 1
        elif token.type == "list_item_close":
            depth -= 1
        elif token.type == "inline" and depth and not first_entry:
            first_entry = _plain(token)
        elif token.type == "inline" and opened == "paragraph_open" and token.level == 1:
            paragraph = _plain(token)  # a top-level paragraph, not a heading
            opening = [c for c in token.children or [] if c.type != "text" or c.content]
            labelled = bool(opening) and opening[0].type == "strong_open"
            break
        opened = token.type
    text = " ".join((paragraph or first_entry).split())
    sentences = [s for s in SENTENCE_END_RE.split(text) if s]
    said = 2 if paragraph and labelled and len(sentences[0]) < LABEL_CHARS else 1
    return text_cut(" ".join(sentences[:said]), limit)


def _plain(inline) -> str:
    words = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            words.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            words.append(" ")
    # A dropped "[n]" leaves the space before it in front of the punctuation after it.
    return SPACE_BEFORE_STOP_RE.sub(r"\1", "".join(words))


def brief_html(body: str, citations: list[Citation]) -> SafeString:
    """The body as sanitised HTML; ``[n]`` links only to the cited items' http(s) URLs."""
    by_number = {c.n: c for c in citations}
    html = PARSER.render(body or "", {"citations": by_number})
    allowed_urls = {c.url for c in citations if c.url}
    cleaned = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={
            "a": {"title", "data-n", "target"},
            "sup": {"class", "title"},
            "ol": {"start"},
        },
        tag_attribute_values={"a": {"href": allowed_urls}, "code": {"class": {"path"}}},
        url_schemes={"http", "https"},
        link_rel=LINK_REL,
        strip_comments=True,
    )
    return mark_safe(cleaned)  # noqa: S308 -- nh3's allowlist output is the point of this module


def brief_page_html(
    body: str,
    citations: list[Citation],
    *,
    as_of: datetime | None,
    coverage_apart: bool,
    language: str,
) -> SafeString:
    """The body as one reader's page shows it: its UTC times in the reader's zone, formatted
    for the brief's ``language`` (a site code: the brief reads in one language whatever the
    page's, ``briefs.language``); without its coverage section when the page shows the coverage
    as a table of its own (``coverage_apart``), so it appears once."""
    if not body:
        return SafeString("")
    text = coverage_stripped(body) if coverage_apart else body
    with translation.override(language):
        return brief_html(body_times_local(text, reference=as_of), citations)


# A bracket with any backslashes before it; a citation "[n]" not followed by what would make it
# a link, an image or a reference ("(", "[", ":").
BRACKET_RE = re.compile(r"(\\*)(?:(\[\d{1,4}\])(?![(\[:])|([\[\]]))")
BARE_URL_RE = re.compile(r"\b(?:[a-z][a-z0-9+.\-]*://|www\.)[^\s<>\[\]]*", re.IGNORECASE)


def markdown_sanitise(body: str, citations: list[Citation]) -> str:
    """Markdown that any renderer shows the way ``brief_html`` does: no raw HTML or autolink
    (every ``<`` is an entity), no links or images (every bracket but a bare citation's is
    escaped, whatever backslashes came before it), and no URL but the cited items' own."""
    allowed = {c.url for c in citations if c.url}
    text = (body or "").replace("<", "&lt;")  # an entity: no backslash can undo it
    text = BARE_URL_RE.sub(lambda m: _url_kept(m.group(0), allowed), text)
    return BRACKET_RE.sub(_bracket, text)


def _url_kept(found: str, allowed: set[str]) -> str:
    """A cited item's URL stays; any other goes (punctuation that ends a sentence stays)."""
    url = found.rstrip(".,;:!?)'\"")
    return found if url in allowed else found[len(url) :]


def _bracket(match: re.Match[str]) -> str:
    if match.group(2) and not match.group(1):
        return match.group(2)  # a citation, as the page links it
    return "\\" + (match.group(2) or match.group(3))[:1] + _escaped_rest(match)


def _escaped_rest(match: re.Match[str]) -> str:
    """A citation-shaped "[n]" that is not a bare citation keeps its brackets escaped."""
    cite = match.group(2)
    return cite[1:-1] + "\\]" if cite else ""


def brief_markdown_export(*, question: str, body: str, citations: list[Citation]) -> str:
    """The brief as portable markdown: the sanitised body, then its sources with their URLs."""
    title = markdown_sanitise(" ".join(question.split()), [])
    lines = [f"# {title}", "", markdown_sanitise(body, citations).strip()]
    if citations:
        lines += ["", "## Sources", ""]
        for c in citations:
            when = c.published_at.isoformat() if c.published_at else ""
            # An item with no link is still found again by its feed's path and its time.
            where = c.url or (c.path if c.title else "")
            parts = [p for p in (c.title or c.path, c.source, when, where) if p]
            lines.append(f"[{c.n}] " + " — ".join(parts))
    return "\n".join(lines) + "\n"
