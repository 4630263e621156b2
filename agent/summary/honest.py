"""The briefs that do not answer from items: they say plainly what the reader did not get.

- ``no_data`` / ``empty``: the sources answered and had nothing ("not found");
- ``no_data`` / ``unreachable``: no source could be read, or none fits ("can't query"), or the
  one that fits needs setting up by staff (``agent.routes.setup``): said so, by name;
- ``off_topic``: items came, none about the subject: said so, with a few of the newest under a
  heading that says they are not about it;
- ``needs_input``: the question lacks a value a route needs: asks for exactly that, names the
  source it would read and gives the parameter's description and format.

Never written by a model: these texts make no claim an item would have to back. Every text
here goes through gettext, so it follows the language the caller overrides to.
"""

from datetime import datetime

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agent.summary.answer import AnswerPlan
from agent.summary.draft import (
    Draft,
    citations_of,
    coverage_markdown,
    escape_markdown,
    items_by_source,
    items_markdown,
    time_text,
)
from briefs.coverage import Attempted, coverage_rows
from briefs.models import BriefOutcome, OutcomeReason
from briefs.reasons import need_format, parameter_name
from fetching.outcome_text import OUTAGE_EGRESS, OUTAGE_RSSHUB, outage_opening


def brief_honest(
    plan: AnswerPlan,
    *,
    attempted: list[Attempted],
    needs: list[dict],
    as_of: datetime,
    egress_down: bool = False,
    rsshub_down: bool = False,
    setup: list[dict] = (),
) -> Draft:
    """The brief of a plan whose outcome is not an answer."""
    verdict = plan.verdict
    if verdict.outcome == BriefOutcome.NEEDS_INPUT:
        return brief_needs_input(needs, attempted=attempted, as_of=as_of)
    if verdict.outcome == BriefOutcome.OFF_TOPIC:
        return brief_off_topic(plan, attempted=attempted, as_of=as_of)
    return brief_no_data(
        verdict.reason,
        attempted=attempted,
        as_of=as_of,
        egress_down=egress_down,
        rsshub_down=rsshub_down,
        setup=setup,
    )


def brief_no_data(
    reason: str,
    *,
    attempted: list[Attempted],
    as_of: datetime,
    egress_down: bool = False,
    rsshub_down: bool = False,
    setup: list[dict] = (),
) -> Draft:
    """Nothing fetched: "not found" when sources answered empty, "can't query" when none could
    be read; what was tried and why follows. ``egress_down``: RSSHub could not reach the
    internet (``fetching.egress``), which is said first and plainly: the sources did not fail,
    the way to them did. ``rsshub_down``: RSSHub itself did not answer, which is said the same
    way. Both in the words of the coverage rows (``fetching.outcome_text.OUTAGE_OPENINGS``).
    ``setup``: the one source that fits needs setting up by staff, named."""
    tried = len(coverage_rows(attempted))
    when = time_text(as_of)
    if setup and not tried:
        opening = _(
            "**Can't query.** As of %(time)s, the source that fits this question, %(source)s "
            "(`%(route)s`), needs setting up by staff on this service's RSSHub before it can "
            "be read, so no other source was read in its place."
        ) % {
            "time": when,
            "source": escape_markdown(setup[0]["source"]),
            "route": setup[0]["route"],
        }
    elif egress_down:
        opening = outage_opening(OUTAGE_EGRESS, time=when)
    elif rsshub_down:
        opening = outage_opening(OUTAGE_RSSHUB, time=when)
    elif reason == OutcomeReason.EMPTY:
        opening = _(
            "**Not found.** As of %(time)s, the sources read answered but had no items for "
            "this question."
        ) % {"time": when}
    elif tried:
        opening = ngettext(
            "**Can't query.** As of %(time)s, I could not fetch anything to answer this "
            "question: %(n)d source was tried and it could not be read.",
            "**Can't query.** As of %(time)s, I could not fetch anything to answer this "
            "question: %(n)d sources were tried and none could be read.",
            tried,
        ) % {"time": when, "n": tried}
    else:
        opening = _(
            "**Can't query.** As of %(time)s, I found no source in the catalog that fits this "
            "question, so nothing was fetched."
        ) % {"time": when}
    coverage = coverage_markdown(attempted, egress_down=egress_down)
    return Draft(body=opening + "\n" + coverage, citations=[], method="none")


def brief_off_topic(plan: AnswerPlan, *, attempted: list[Attempted], as_of: datetime) -> Draft:
    """Items came from general feeds, and none mentions the subject: say so, then show a few
    of the newest under a heading that says they are not about it."""
    groups = items_by_source(plan.items)
    subject = escape_markdown(plan.subject.text)
    read = ", ".join(escape_markdown(label) for label in _feeds_read(plan))
    lines = [
        ngettext(
            "As of %(time)s, the %(n)d item from %(sources)s does not mention %(subject)s.",
            "As of %(time)s, none of the %(n)d items from %(sources)s mention %(subject)s.",
            plan.fetched,
        )
        % {"time": time_text(as_of), "n": plan.fetched, "sources": read, "subject": subject},
        "",
        "## " + _("Newest items, not about %(subject)s") % {"subject": subject},
    ]
    lines += items_markdown(groups, level="###")
    body = "\n".join(lines) + "\n" + coverage_markdown(attempted)
    return Draft(body=body, citations=citations_of(plan.items), method="extractive")


def _feeds_read(plan: AnswerPlan) -> list[str]:
    return list(plan.feeds) or [_("the feeds read")]


def brief_needs_input(needs: list[dict], *, attempted: list[Attempted], as_of: datetime) -> Draft:
    """Ask for exactly what the question did not give, one paragraph per missing value."""
    lines = [
        _(
            "As of %(time)s, the question does not say what to look up, so nothing was "
            "fetched. Give the value below and ask again:"
        )
        % {"time": time_text(as_of)}
    ]
    for need in needs:
        lines += ["", *need_markdown(need)]
    body = "\n".join(lines)
    if attempted:
        body += "\n" + coverage_markdown(attempted)
    return Draft(body=body, citations=[], method="none")


def need_markdown(need: dict) -> list[str]:
    """ "**Which GitHub repo?** Give it as owner/name." then what it is and where it is read."""
    parameter = escape_markdown(parameter_name(str(need.get("parameter") or "")))
    source = escape_markdown(str(need.get("source") or ""))
    fmt = escape_markdown(need_format(need.get("format")))
    description = escape_markdown(str(need.get("description") or ""))
    route = escape_markdown(str(need.get("route") or ""))
    ask = _("**Which %(source)s %(parameter)s?**") % {"source": source, "parameter": parameter}
    if fmt:
        ask += " " + _("Give it as %(format)s.") % {"format": fmt}
    lines = [ask]
    if description:
        lines.append("- " + _("What it is: %(description)s") % {"description": description})
    if route:
        where = _("Read from: %(source)s, %(route)s") % {"source": source, "route": route}
        lines.append("- " + where)
    return lines
