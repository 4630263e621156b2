"""What each fetch outcome (DESIGN.md 2.3) means to a person: its name, and one line that says
what happened to which source and what to do next.

The line names the source by the first segment of the path (``/36kr/hot-list`` -> "36kr"), not
the error RSSHub gave; that raw message is kept beside it for whoever wants it (the brief page
shows it behind a disclosure). A few classes read differently with the reason the fetch layer
recorded (``Verdict.reason``): RSSHub refused our access key, RSSHub cannot reach the internet.
A route whose circuit is open was not asked at all: the line says when it will be tried again,
as a UTC time that the pages show in the reader's zone (``briefs.body_times``).

Lines start in lower case unless they start with the source's name: they follow a path and a
colon in the brief's coverage list (the page's table capitalises the first letter).
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from fetching.egress import EGRESS_REASON
from fetching.models import Outcome
from fetching.outcomes import ACCESS_KEY_REASON

OUTCOME_EXPLANATIONS: dict[Outcome, Promise] = {
    Outcome.NOT_MODIFIED: gettext_lazy(
        "%(source)s has nothing new since the last fetch; the items already stored were used."
    ),
    Outcome.EMPTY: gettext_lazy(
        "%(source)s answered but had no items; try a wider question, or another source."
    ),
    Outcome.NOT_FOUND: gettext_lazy(
        "%(source)s has no such page, or RSSHub has no such route; check the names and numbers "
        "in the question, or try another source."
    ),
    Outcome.AUTH_REQUIRED: gettext_lazy(
        "%(source)s blocked RSSHub's request; try again later, or ask staff to check the route."
    ),
    Outcome.NEEDS_CONFIG: gettext_lazy(
        "this route needs settings for %(source)s (a key or a cookie) that this RSSHub does not "
        "have; ask staff to configure it, or try another source."
    ),
    Outcome.NEEDS_BROWSER: gettext_lazy(
        "this route needs a browser that this RSSHub does not have; ask staff to add one, or "
        "try another source."
    ),
    Outcome.NOT_A_FEED: gettext_lazy(
        "%(source)s's answer was not a feed; ask staff to check the route."
    ),
    Outcome.TOO_LARGE: gettext_lazy(
        "%(source)s's feed was larger than this service accepts; ask staff to check the route."
    ),
    Outcome.PARSE_ERROR: gettext_lazy(
        "%(source)s's feed could not be read; ask staff to check the route."
    ),
    Outcome.PARSE_TIMEOUT: gettext_lazy(
        "reading %(source)s's feed took too long; try again later."
    ),
    Outcome.RATE_LIMITED: gettext_lazy(
        "%(source)s is limiting RSSHub's requests; try again later."
    ),
    Outcome.TIMEOUT: gettext_lazy("%(source)s did not answer in time; try again later."),
    Outcome.UPSTREAM_ERROR: gettext_lazy(
        "RSSHub could not get %(source)s; try again later, or ask staff to check the route."
    ),
    Outcome.RSSHUB_UNAVAILABLE: gettext_lazy(
        "RSSHub itself did not answer, so %(source)s was not fetched; the source did not fail. "
        "Ask again once RSSHub is back."
    ),
    Outcome.REJECTED: gettext_lazy(
        "the path for %(source)s was refused before anything was sent (not a valid or enabled "
        "route); try asking in other words."
    ),
}
# The same class with another cause: (class, Verdict.reason) -> its line.
REASON_EXPLANATIONS: dict[tuple[Outcome, str], Promise] = {
    (Outcome.AUTH_REQUIRED, ACCESS_KEY_REASON): gettext_lazy(
        "RSSHub refused this service's access key, so %(source)s was not fetched; ask staff to "
        "check the RSSHub access key."
    ),
    (Outcome.RSSHUB_UNAVAILABLE, EGRESS_REASON): gettext_lazy(
        "RSSHub cannot reach the internet, so %(source)s was not fetched; the source did not "
        "fail. Ask again once RSSHub's network is back."
    ),
}
# A brief none of whose sources could be read because of RSSHub itself says so first, in the
# same words as each of its coverage rows (above): one story, whichever part a reader reads.
OUTAGE_EGRESS = "egress"  # RSSHub cannot reach the internet (``fetching.egress``)
OUTAGE_RSSHUB = "rsshub"  # RSSHub itself does not answer, retries included
OUTAGE_OPENINGS: dict[str, Promise] = {
    OUTAGE_EGRESS: gettext_lazy(
        "**Can't query.** As of %(time)s, RSSHub cannot reach the internet, so no source was "
        "fetched; the sources did not fail. Ask again once RSSHub's network is back."
    ),
    OUTAGE_RSSHUB: gettext_lazy(
        "**Can't query.** As of %(time)s, RSSHub itself did not answer, so no source was "
        "fetched; the sources did not fail. Ask again once RSSHub is back."
    ),
}
UNKNOWN_EXPLANATION = gettext_lazy("%(source)s could not be fetched; try again later.")


def source_of(path: object) -> str:
    """The source a route path reads from: its first segment (``/36kr/hot-list`` -> "36kr")."""
    first = str(path or "").strip("/").split("/")[0]
    return first or _("the source")


def outcome_name(outcome: object) -> str:
    """The class's name in the current language; a value that is no class, as it is."""
    try:
        return str(Outcome(outcome).label)
    except ValueError:
        return str(outcome or "")


def outcome_explanation(
    outcome: object,
    *,
    path: object,
    items: int = 0,
    reason: str = "",
    circuit_open: bool = False,
    circuit_until: datetime | None = None,
) -> str:
    """One line, in the current language: what happened to the path's source, and what next."""
    source = source_of(path)
    if circuit_open:
        return _circuit_text(source, circuit_until)
    if outcome == Outcome.OK:
        return ngettext(
            "%(source)s answered with %(n)d item.", "%(source)s answered with %(n)d items.", items
        ) % {"source": source, "n": items}
    try:
        known = Outcome(outcome)
    except ValueError:
        return str(UNKNOWN_EXPLANATION) % {"source": source}
    text = REASON_EXPLANATIONS.get((known, reason)) or OUTCOME_EXPLANATIONS[known]
    return str(text) % {"source": source}


def outage_opening(outage: str, *, time: str) -> str:
    """The first line of a brief that read nothing because of RSSHub itself (``OUTAGE_*``)."""
    return str(OUTAGE_OPENINGS[outage]) % {"time": time}


def _circuit_text(source: str, until: datetime | None) -> str:
    if until is None:
        return _(
            "%(source)s failed several times in a row, so it was not asked this time; it will be "
            "tried again with the next question."
        ) % {"source": source}
    return _(
        "%(source)s failed several times in a row, so it was not asked this time; it will be "
        "tried again after %(time)s."
    ) % {"source": source, "time": until.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")}
