"""Every reason the agent writes into a step, in one place: the step log's words, kept with the
store that holds them, so that the pages and commands which read steps need not reach up to the
agent (README: How it fits together).

A reason is stored in English in the step's payload (the API, the terminal and the logs read it
as it is), and shown in the reader's language on the page: ``reason_translate`` recognises a
stored reason by its English form and gives its translation, with the same values. A reason the
model wrote, or one this module does not know, is shown as it was stored.

A stored reason may be several of these joined by ``"; "`` ("2 paths returned items; 1 failed
and is reported"); each part is recognised on its own. Plurals are chosen by ``count`` (Django
has no ``ngettext_noop``: the plural pairs are written into the catalog by hand).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_noop as noop

from fetching.egress import EXCUSED_NO_BLAME, EXCUSED_PENDING, EXCUSED_SINCE

JOIN = "; "


@dataclass(frozen=True)
class Reason:
    singular: str
    plural: str = ""

    def english(self, **values) -> str:
        """The reason as stored, in English."""
        text = self.plural if self.plural and values.get("count") != 1 else self.singular
        return text.format(**values)


PLATFORM_TOP = Reason(noop("highest search score ({score})"))
PLATFORM_TOP_AND_CLOSE = Reason(noop("highest search score ({score}) and {count} close to it"))
PLATFORM_NAMED_PLACE = Reason(noop("the platform the question names as the place to read"))
PLATFORM_NAMED_WAITING = Reason(
    noop("the platform the question names, whose routes all wait for setting up by staff")
)
PLATFORM_VALUE_HOME = Reason(
    noop("the platform whose form of value the question names (owner/repo, a BV id, user@host)")
)
PLATFORM_PAGE = Reason(noop("the site whose page address the question gives"))
ROUTE_PAGE = Reason(noop("the route the page address the question gives maps to"))
ROUTE_SUBJECT = Reason(noop("route that takes the subject the question names"))
ROUTE_BEST = Reason(noop("best-matching route"))
ROUTE_PER_PLATFORM = Reason(noop("one per chosen platform"))
ITEMS_RETURNED = Reason("{count} path returned items", "{count} paths returned items")
FAILED_REPORTED = Reason("{count} failed and is reported", "{count} failed and are reported")
NO_INTERNET = Reason(noop("RSSHub cannot reach the internet right now"))
TRANSIENT = Reason("{count} transient failure", "{count} transient failures")
RETRY = Reason(noop("retry {attempt} of {limit}"))
RSSHUB_DOWN = Reason(noop("RSSHub itself does not answer"))
NO_ITEMS = Reason(noop("no items ({kinds})"))
ANOTHER_ROUTE = Reason(noop("choose another route"))
BUDGET_SPENT = Reason(noop("step budget of {budget} spent"))
NO_PLATFORM = Reason(noop("no platform left in the catalog for this question"))
NO_ROUTE = Reason(noop("no route left on the chosen platforms"))
SETUP_NEEDED = Reason(noop("the route that fits, {route}, needs setting up by staff"))
NOT_GIVEN = Reason(noop("the question does not give {missing}"))
CANCELLED = Reason(noop("cancelled by its owner"))
CANCELLED_ORPHAN = Reason(noop("cancelled by its owner while no worker was running it"))
# How a brief ended, in its ``error`` field.
CANCELLED_ERROR = Reason(noop("Cancelled by its owner."))
CANCELLED_EARLY_ERROR = Reason(noop("Cancelled before it started."))
MODEL_SUBJECTS = Reason(noop("the model named subjects the question does not give"))
MODEL_NEEDS = Reason(noop("the question does not give a required subject"))
NOT_LISTED = Reason(noop(":{name} must be one of the listed values or a value the question gives"))
SUBJECT_NOT_GIVEN = Reason(noop(":{name} names a subject the question does not give"))
# What the egress guard wrote into a fetch's message (its words' home is ``fetching.egress``).
EGRESS_SINCE = Reason(EXCUSED_SINCE)
EGRESS_NO_BLAME = Reason(EXCUSED_NO_BLAME)
EGRESS_PENDING = Reason(EXCUSED_PENDING)
# A route path refused because a required subject has no value (``agent.routes.params``).
SUBJECT_NO_VALUE = Reason(noop("missing_subject: the question gives no value for {names}"))

ALL = tuple(value for value in dict(globals()).values() if isinstance(value, Reason))


def reason_join(*parts: str) -> str:
    return JOIN.join(part for part in parts if part)


def _regex(english: str) -> re.Pattern:
    pieces = re.split(r"\{([a-z_]+)\}", english)
    pattern = "".join(
        f"(?P<{piece}>.+?)" if index % 2 else re.escape(piece) for index, piece in enumerate(pieces)
    )
    return re.compile(pattern)


@functools.cache
def _known() -> tuple[tuple[re.Pattern, Reason], ...]:
    """Fixed reasons before those with values: "the question does not give a required subject"
    is that reason, not "the question does not give {missing}"."""
    forms = [
        (form, reason) for reason in ALL for form in filter(None, (reason.singular, reason.plural))
    ]
    forms.sort(key=lambda pair: pair[0].count("{"))
    return tuple((_regex(form), reason) for form, reason in forms)


def _part_translate(part: str) -> str:
    for regex, reason in _known():
        found = regex.fullmatch(part)
        if not found:
            continue
        values = found.groupdict()
        if reason.plural:
            count = int(values["count"]) if values["count"].isdigit() else 2
            return ngettext(reason.singular, reason.plural, count).format(**values)
        return gettext(reason.singular).format(**values)
    return part


# The route parameter names a reader is asked for ("Which GitHub user?"), in the reader's
# language; a name not listed here is shown as the route spells it.
PARAMETER_NAMES = {
    "user": noop("user"),
    "username": noop("username"),
    "uid": noop("user ID"),
    "id": noop("ID"),
    "repo": noop("repo"),
    "owner": noop("owner"),
    "channel": noop("channel"),
    "category": noop("category"),
    "keyword": noop("keyword"),
    "tag": noop("tag"),
    "topic": noop("topic"),
    "name": noop("name"),
}


def parameter_name(name: str) -> str:
    """A route parameter's name in the active language (``user`` → 用户)."""
    return gettext(PARAMETER_NAMES[name]) if name in PARAMETER_NAMES else name


def need_format(stored: object) -> str:
    """How a missing value is written, stored in English: one of the agent's own phrasings
    ("digits", "a domain name, like example.org") reads in the active language; a shape
    ("BV##########") as it is."""
    return gettext(stored) if isinstance(stored, str) and stored else ""


def reason_values(reason: Reason, stored: object) -> dict[str, str] | None:
    """The values of ``stored`` when it is ``reason`` (in English, as stored), else None."""
    if not isinstance(stored, str):
        return None
    for form in filter(None, (reason.singular, reason.plural)):
        found = _regex(form).fullmatch(stored)
        if found:
            return found.groupdict()
    return None


def reason_translate(stored: object) -> str:
    """A stored reason in the active language; what is not known here stays as stored."""
    if not isinstance(stored, str):
        return ""
    # Translators: what joins two reasons, as in "2 paths returned items; 1 failed".
    return gettext(JOIN).join(_part_translate(part) for part in stored.split(JOIN))
