"""Three next questions under a brief, built from what the brief itself read: its cited items'
sources and titles, the routes it tried, the values it asked for. No model: the same brief
always suggests the same questions, offline too, and in the brief's own language.

Each is a question the agent can route as it stands (it names a source or an item), never the
brief's own question again, and never two alike.
"""

from collections import Counter

from django.utils import translation
from django.utils.translation import gettext as _

from briefs.language import brief_locale
from briefs.markdown import Citation, text_cut
from briefs.models import Brief
from fetching.outcome_text import source_of

SUGGESTIONS = 3
TITLE_CHARS = 60


def _sources(brief: Brief, citations: list[Citation]) -> list[str]:
    """The sources the brief read, most cited first; then those it tried or asked about."""
    counted = Counter(c.source for c in citations if c.source)
    names = [name for name, _n in counted.most_common()]
    coverage = brief.coverage if isinstance(brief.coverage, dict) else {}
    cited = {c.path for c in citations}
    for row in coverage.get("succeeded") or []:  # read, but no item of it cited
        if isinstance(row, dict) and row.get("path") not in cited:
            names.append(source_of(row.get("path")))
    for need in brief.needs if isinstance(brief.needs, list) else []:
        if isinstance(need, dict) and need.get("source"):
            names.append(str(need["source"]))
    return list(dict.fromkeys(n for n in names if n))


def _candidates(brief: Brief, citations: list[Citation]) -> list[str]:
    sources = _sources(brief, citations)
    titles = [c.title for c in citations if c.title]
    found: list[str] = []
    if titles:
        title = text_cut(titles[0], TITLE_CHARS)
        found.append(_("Tell me more about “%(title)s”") % {"title": title})
    if sources:
        found.append(_("What else is new on %(source)s?") % {"source": sources[0]})
    if len(sources) > 1:
        found.append(_("What is new on %(source)s?") % {"source": sources[1]})
    if sources:
        found.append(_("What did %(source)s publish this week?") % {"source": sources[0]})
    if len(titles) > 1:
        title = text_cut(titles[1], TITLE_CHARS)
        found.append(_("Tell me more about “%(title)s”") % {"title": title})
    return found


def brief_suggestions(brief: Brief, citations: list[Citation]) -> list[str]:
    """Up to ``SUGGESTIONS`` next questions for ``brief``, in its language (``citations``: as the
    page reads them, ``markdown.citations_read``)."""
    with translation.override(brief_locale(brief.language)):
        candidates = _candidates(brief, citations)
    asked = brief.question.strip().casefold()
    unique = dict.fromkeys(q for q in candidates if q.strip().casefold() != asked)
    return list(unique)[:SUGGESTIONS]
