"""Briefs as an Atom 1.0 feed (RFC 4287), served with a strong ETag and Last-Modified.

Every brief field is hostile input (a model wrote the answer, feeds wrote the citations): text
goes through ``xml_text``, which drops what XML 1.0 cannot carry (``\\x00``, ``\\x0b``, lone
surrogates, ``\\ufffe``) and the C1 controls, before the XML writer escapes it. The answer is the
HTML the brief page shows (``briefs.markdown.brief_html``: raw HTML stays text, links go only to
cited items), sent escaped in ``<content type="html">``; the sources list under it is built here
from escaped parts. An answer longer than ``ANSWER_MAX_CHARS`` is cut, with a note and the link to
the whole brief, so one runaway brief cannot make a feed of megabytes.

The ETag is the SHA-256 of the exact bytes sent, so it is strong by construction: the same
briefs, language and host give the same bytes. Last-Modified is the newest entry's ``updated``.
A brief removed from a feed changes the ETag but not Last-Modified; readers that send only
If-Modified-Since see the removal with the next new brief.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.html import escape, format_html, format_html_join
from django.utils.http import http_date, quote_etag
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.utils.xmlutils import SimplerXMLGenerator

from briefs.markdown import Citation, brief_html, citations_read
from briefs.models import Brief, BriefStatus

ATOM_NS = "http://www.w3.org/2005/Atom"
ATOM_CONTENT_TYPE = "application/atom+xml; charset=utf-8"
FEED_ENTRIES_MAX = 50  # a feed never holds more entries than this, whatever it is given
ANSWER_MAX_CHARS = 60_000
TITLE_MAX_CHARS = 1_000
GENERATOR = "RSSHub Agent"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Not allowed in XML 1.0 (section 2.2), plus the C0/C1 controls it merely discourages.
XML_UNSAFE_RE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]"
)

BriefLink = Callable[[Brief], str]


def xml_text(value: object, limit: int | None = None) -> str:
    """``value`` as text an XML 1.0 document can carry: unsafe characters removed, then cut
    to ``limit`` characters."""
    text = XML_UNSAFE_RE.sub("", "" if value is None else str(value))
    return text[:limit] if limit is not None else text


def atom_time(moment: datetime) -> str:
    """An RFC 3339 date-time in UTC, to the second (what HTTP dates carry too)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def brief_updated(brief: Brief) -> datetime:
    """When the brief last changed as a reader sees it: when it finished, else when asked."""
    return (brief.finished_at or brief.created_at).replace(microsecond=0)


def brief_entry_id(brief: Brief, *, host: str) -> str:
    """A tag URI (RFC 4151) that names the brief for good: it keeps when the feed's secret,
    title or address changes."""
    return f"tag:{host},{brief.created_at.astimezone(UTC):%Y-%m-%d}:brief/{brief.pk}"


def feed_citations(raw: object) -> list[Citation]:
    """The brief's citations with every text field XML-safe (nh3 refuses lone surrogates)."""
    return [
        replace(
            c,
            title=xml_text(c.title),
            url=xml_text(c.url),
            source=xml_text(c.source),
            path=xml_text(c.path),
        )
        for c in citations_read(raw)
    ]


def _sources_html(citations: list[Citation]) -> str:
    if not citations:
        return ""
    rows = format_html_join(
        "",
        "<li>{}{}</li>",
        ((_citation_link(c), _citation_meta(c)) for c in citations),
    )
    return format_html('<h3>{}</h3><ol class="sources">{}</ol>', _("Sources"), rows)


def _citation_link(citation: Citation) -> str:
    label = citation.title or citation.path or f"[{citation.n}]"
    if not citation.url:
        return escape(label)
    return format_html(
        '<a href="{}" rel="noopener noreferrer nofollow">{}</a>', citation.url, label
    )


def _citation_meta(citation: Citation) -> str:
    when = atom_time(citation.published_at) if citation.published_at else ""
    parts = [p for p in (citation.source, when, citation.path) if p]
    return escape(" · " + " · ".join(parts)) if parts else ""


def _answer_html(brief: Brief, link: str, citations: list[Citation]) -> str:
    """The answer as the brief page renders it, or one line saying why there is none."""
    if brief.body:
        body = xml_text(brief.body)
        cut = len(body) > ANSWER_MAX_CHARS
        html = brief_html(body[:ANSWER_MAX_CHARS], citations)
        if cut:
            note = _("The answer is cut here; the whole brief is at its page.")
            html += format_html('<p><em><a href="{}">{}</a></em></p>', link, note)
        return html
    if brief.status == BriefStatus.FAILED:
        return format_html("<p>{}: {}</p>", _("This brief failed"), xml_text(brief.error))
    if brief.status == BriefStatus.CANCELLED:
        return format_html("<p>{}</p>", _("This brief was cancelled"))
    if not brief.is_finished:
        return format_html("<p>{}</p>", _("This brief is still being written."))
    return format_html("<p>{}</p>", _("No answer was written."))


def entry_html(brief: Brief, *, link: str) -> str:
    """The entry's content: the answer, then its sources with links to the cited items."""
    citations = feed_citations(brief.citations)
    return _answer_html(brief, link, citations) + _sources_html(citations)


class _AtomWriter(SimplerXMLGenerator):
    def text_element(self, name: str, text: object, attrs: dict | None = None) -> None:
        self.addQuickElement(name, xml_text(text), attrs)

    def link(self, href: str, rel: str, mime: str) -> None:
        self.addQuickElement("link", None, {"href": xml_text(href), "rel": rel, "type": mime})


def _write_entry(writer: _AtomWriter, brief: Brief, *, link: str, host: str) -> None:
    writer.startElement("entry", {})
    writer.text_element("id", brief_entry_id(brief, host=host))
    writer.text_element("title", xml_text(brief.question, TITLE_MAX_CHARS), {"type": "text"})
    writer.text_element("published", atom_time(brief.created_at))
    writer.text_element("updated", atom_time(brief_updated(brief)))
    writer.startElement("author", {})
    writer.text_element("name", GENERATOR)
    writer.endElement("author")
    writer.link(link, "alternate", "text/html")
    if brief.outcome:
        writer.addQuickElement("category", None, {"term": brief.outcome})
    writer.text_element("content", entry_html(brief, link=link), {"type": "html"})
    writer.endElement("entry")


def atom_feed(
    briefs: Sequence[Brief],
    *,
    title: str,
    feed_id: str,
    self_url: str,
    brief_link: BriefLink,
    host: str,
    updated: datetime,
) -> bytes:
    """The feed document as UTF-8 bytes: one entry per brief, in the order given.
    ``brief_link`` gives each brief's absolute page URL; ``host`` names the entries' tag URIs."""
    stream = io.StringIO()
    writer = _AtomWriter(stream, "utf-8", short_empty_elements=True)
    writer.startDocument()
    writer.startElement("feed", {"xmlns": ATOM_NS, "xml:lang": get_language() or "en"})
    writer.text_element("id", feed_id)
    writer.text_element("title", xml_text(title, TITLE_MAX_CHARS), {"type": "text"})
    writer.text_element("updated", atom_time(updated))
    writer.link(self_url, "self", "application/atom+xml")
    writer.text_element("generator", GENERATOR)
    writer.startElement("author", {})
    writer.text_element("name", GENERATOR)
    writer.endElement("author")
    for brief in briefs:
        _write_entry(writer, brief, link=brief_link(brief), host=host)
    writer.endElement("feed")
    writer.endDocument()
    return stream.getvalue().encode("utf-8")


def feed_updated(briefs: Sequence[Brief], floor: datetime | None = None) -> datetime:
    """The newest ``updated`` of the briefs, never earlier than ``floor``; the epoch when the
    feed is empty and no floor is given."""
    moments = [brief_updated(b) for b in briefs]
    if floor is not None:
        moments.append(floor.replace(microsecond=0))
    return max(moments, default=EPOCH)


def atom_response(
    request: HttpRequest,
    briefs: Sequence[Brief] | QuerySet[Brief],
    *,
    title: str,
    feed_id: str,
    self_url: str,
    brief_url: BriefLink | None = None,
    updated_floor: datetime | None = None,
) -> HttpResponse:
    """The briefs as an Atom feed response, or a 304 when the client's copy is current.

    - ``briefs``: ordered as the feed lists them (newest first, by convention), already filtered
      to what the feed may show; at most ``FEED_ENTRIES_MAX`` are used (a QuerySet is sliced,
      so only those rows are read). Pass finished briefs: an unfinished one shows a placeholder.
    - ``title``: the feed's title (text; hostile characters are dropped).
    - ``feed_id``: a permanent IRI naming the feed, e.g. ``feed_tag_uri(...)``; keep it when the
      secret in the URL rotates.
    - ``self_url``: the feed's own URL (relative URLs are made absolute against the request).
    - ``brief_url``: each brief's page, relative or absolute; the dashboard page by default.
    - ``updated_floor``: the feed's ``updated`` when no brief is newer (e.g. when the watch was
      created); the epoch otherwise for an empty feed.

    Answers 200 with ``application/atom+xml; charset=utf-8``, a strong ``ETag`` (SHA-256 of the
    body), ``Last-Modified`` (the feed's ``updated``) and ``Cache-Control: private, no-cache``
    (the URL carries a secret: shared caches keep nothing); 304 when If-None-Match matches, or,
    without If-None-Match, when If-Modified-Since is not older than Last-Modified.
    """
    chosen = list(briefs[:FEED_ENTRIES_MAX])
    page = brief_url or Brief.get_absolute_url
    updated = feed_updated(chosen, updated_floor)
    body = atom_feed(
        chosen,
        title=title,
        feed_id=feed_id,
        self_url=request.build_absolute_uri(self_url),
        brief_link=lambda b: request.build_absolute_uri(page(b)),
        host=_tag_host(request),
        updated=updated,
    )
    response = HttpResponse(body, content_type=ATOM_CONTENT_TYPE)
    etag = quote_etag(hashlib.sha256(body).hexdigest())
    response.headers["ETag"] = etag
    response.headers["Last-Modified"] = http_date(updated.timestamp())
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    patch_cache_control(response, private=True, no_cache=True)
    return get_conditional_response(
        request, etag=etag, last_modified=int(updated.timestamp()), response=response
    )


def feed_tag_uri(request: HttpRequest, *, since: datetime, name: str) -> str:
    """A permanent feed id: ``tag:<host>,<since's date>:<name>`` (RFC 4151). ``since`` is when
    the named thing began (the owner's account, the watch); ``name`` e.g. ``watch/12``."""
    return f"tag:{_tag_host(request)},{since.astimezone(UTC):%Y-%m-%d}:{xml_text(name)}"


def _tag_host(request: HttpRequest) -> str:
    """The request's host without its port (``[::1]:8000`` -> ``[::1]``)."""
    host = request.get_host()
    return host if host.endswith("]") else host.rsplit(":", 1)[0]
