"""What a brief answers from: the fetched items about the subject, and the run's outcome.

When the question names a subject and general feeds were read, the items that mention it are
the answer (newest in the window first); when none does, the outcome is ``off_topic`` and the
brief lists a few of the newest items under a heading that says they are not about it.
"""

from dataclasses import dataclass

from django.utils.translation import ngettext

from agent.context import RunContext
from agent.summary.digest import KEY_TERMS_FROM, NO_BACKGROUND, Background
from agent.summary.draft import (
    EPOCH,
    SourceItem,
    escape_markdown,
    items_by_source,
    items_select,
    renumbered,
)
from agent.summary.outcome import RunFacts, Verdict, outcome_decide
from agent.summary.subject import Subject, context_words_load
from agent.summary.terms import background_counts
from briefs.models import BriefOutcome
from catalog.models import Route
from fetching.models import Item

OFF_TOPIC_SHOWN = 5  # newest items an off-topic brief lists
BACKGROUND_ITEMS = 500  # other recent items key terms are weighed against


@dataclass(frozen=True)
class AnswerPlan:
    items: list[SourceItem]  # numbered: what the brief lists and cites
    in_window: bool
    verdict: Verdict
    subject: Subject
    fetched: int  # items fetched in all
    about: int | None  # of them, items about the subject; None when no subject is named
    feeds: tuple[str, ...] = ()  # "source · path" of every feed that gave items
    background: Background = NO_BACKGROUND  # for the key terms (``agent.summary.terms``)


def answer_plan(ctx: RunContext, candidates: list[SourceItem]) -> AnswerPlan:
    """Choose the items and decide the outcome (reads the catalog: call from sync code)."""
    subject = topic_subject(ctx) if candidates else Subject()
    about = subject_items(candidates, subject) if subject else None
    pool = about or candidates
    terms = list(subject.terms) or ctx.rewrite.keywords
    items, in_window = items_select(pool, window=ctx.rewrite.window, keywords=terms)
    facts = RunFacts(
        attempted=ctx.attempted,
        answer_paths=tuple(ctx.answer_paths),
        items=len(candidates),
        on_subject=None if about is None else len(about),
        in_window=in_window,
        needs=ctx.needs,
    )
    verdict = outcome_decide(facts)
    if verdict.outcome == BriefOutcome.OFF_TOPIC:
        items = newest(candidates, OFF_TOPIC_SHOWN)
    return AnswerPlan(
        items=items,
        in_window=in_window,
        verdict=verdict,
        subject=subject,
        fetched=len(candidates),
        about=None if about is None else len(about),
        feeds=tuple(items_by_source(candidates)),
        background=background_load(candidates) if len(items) > KEY_TERMS_FROM else NO_BACKGROUND,
    )


def background_load(candidates: list[SourceItem]) -> Background:
    """Term counts over the catalog's newest other items: what is common, not news."""
    rows = (
        Item.objects.exclude(pk__in=[c.item_id for c in candidates])
        .order_by("-pk")
        .values_list("title", "summary")[:BACKGROUND_ITEMS]
    )
    return background_counts(f"{title} {summary[:500]}" for title, summary in rows)


def topic_subject(ctx: RunContext) -> Subject:
    """What the items must mention: the question's topic, without the words that name the
    feeds read. A platform names them when a path of it was read (or tried); one that was only
    a candidate names nothing, nor do its routes: "36kr newsflashes about Tesla" keeps Tesla
    though the platform Tesla was a candidate."""
    read = set(
        Route.objects.filter(pk__in=[r for _path, r in ctx.paths if r]).values_list(
            "platform__namespace", flat=True
        )
    )
    # with no feed read, the platforms asked for are still no topic
    namespaces = (ctx.tried_namespaces & read) or ctx.tried_namespaces
    routes = Route.objects.filter(pk__in=ctx.tried_routes, platform__namespace__in=namespaces)
    route_ids = set(routes.values_list("pk", flat=True))
    words = context_words_load(namespaces=namespaces, route_ids=route_ids, paths=ctx.paths)
    return ctx.reading.topic(words)


def subject_items(candidates: list[SourceItem], subject: Subject) -> list[SourceItem]:
    """The items about the subject: all of a feed chosen for it, and those that mention it."""
    return [
        item
        for item in candidates
        if subject.carried_by(item.path) or subject.mentions(f"{item.title} {item.summary}")
    ]


def newest(items: list[SourceItem], count: int) -> list[SourceItem]:
    """The ``count`` newest items (undated last), numbered from 1."""
    ordered = sorted(items, key=lambda i: i.published_at or EPOCH, reverse=True)
    return renumbered(ordered[:count])


def subject_note(plan: AnswerPlan) -> str:
    """How many fetched items are about the subject, for a subject question. A subject that is
    only numbers ("top 2", "3 days") is no name to say the items are about: no note then."""
    if plan.about is None or all(term.isdigit() for term in plan.subject.terms):
        return ""
    values = {"about": plan.about, "n": plan.fetched, "subject": escape_markdown(plan.subject.text)}
    if plan.about >= plan.fetched:
        return (
            ngettext(
                "The %(n)d item fetched is about %(subject)s.",
                "All %(n)d items fetched are about %(subject)s.",
                plan.fetched,
            )
            % values
        )
    # Fewer are about it than were fetched, so "items" is plural: the verb agrees with "about".
    return (
        ngettext(
            "%(about)d of the %(n)d items fetched mentions %(subject)s; only it is listed.",
            "%(about)d of the %(n)d items fetched mention %(subject)s; only those are listed.",
            plan.about,
        )
        % values
    )
