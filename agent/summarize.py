"""The summarize node: the items stored for the fetched feeds -> a brief whose every claim
cites an item as ``[n]``.

Which items answer the question, and the run's outcome, are decided first
(``agent.summary.answer``); briefs that do not answer from items (no data, off topic, needs
input) are written by ``agent.summary.honest``, never by a model.

The model writes from fenced items (their text neutralised: ``agent.llm.prompts``); its answer
is cut at ``LLM_WRITER_MAX_CHARS`` and ``LLM_WRITER_MAX_SENTENCES`` before anything reads it (a
cut answer counts as truncated), then passes the writer contract (``agent.summary.claims``):
only sentences in the brief's language, citing given items that support them
(``agent.summary.support``), are kept. Invalid citation numbers, or fewer than half of the
sentences kept, get one repair turn naming the problem. With ``CLAIMS_VERIFY=model`` the writer
model then says which kept sentences each cited item supports (``agent.summary.verify``): it
may only remove them. When too little holds even then, the
extractive brief stands in and says why; a ``claims_dropped`` step counts what was dropped, by
reason. The offline method is that
extractive brief (``agent.summary.digest``): a lead line of measured counts and times, then the
items ranked by relevance and time, one entry per story.

The framing words (the as-of line, counts, headings) are in the question's language: the
runner calls the node under ``translation.override``.
"""

import time
from datetime import datetime

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from agent import llm
from agent.context import RunContext
from agent.llm.prompts import LANGUAGE_NAMES
from agent.mode import fallback_record, model_or_offline, usage_record
from agent.summary.agreement_text import brief_tables, writer_table_text
from agent.summary.answer import AnswerPlan, answer_plan, subject_note
from agent.summary.claims import ClaimsReport, claims_check, sentences_split
from agent.summary.delta import delta_apply
from agent.summary.digest import brief_extractive, lead_line
from agent.summary.draft import (
    Draft,
    SourceItem,
    citations_of,
    coverage_markdown,
)
from agent.summary.folding import stories_fold
from agent.summary.honest import brief_honest
from agent.summary.support import REASON_LANGUAGE
from agent.summary.verify import (
    SYSTEM_VERIFY,
    VERIFY_SCHEMA,
    report_verified,
    sentences_of,
    verdict_read,
    verify_prompt,
)
from agent.translate import titles_translate
from fetching.models import Item

MIN_BODY_CHARS = 20
LOCALES = {"zh": "zh-hans", "en": "en"}  # the rewrite's language -> the site's translation


def items_load(item_ids: list[int]) -> list[SourceItem]:
    """The fetched items with their path and source name, unnumbered (n=0), de-duplicated."""
    rows = (
        Item.objects.filter(pk__in=set(item_ids))
        .select_related("feed__route__platform")
        .only(
            "id",
            "title",
            "link",
            "summary",
            "published_at",
            "feed__path",
            "feed__route__platform__name",
        )
    )
    items = []
    for row in rows:
        route = row.feed.route
        source = route.platform.name if route else row.feed.path.strip("/").split("/")[0]
        items.append(
            SourceItem(
                0, row.pk, row.title, row.link, row.summary, row.published_at, row.feed.path, source
            )
        )
    return items


def _stories_text(items: list[SourceItem]) -> str:
    """The offline brief's folding, so both modes tell one story once, citing all its items."""
    folded = [s for s in stories_fold(items) if len(s.items) > 1]
    lines = [" ".join(f"[{i.n}]" for i in s.items) for s in folded]
    said = "tell the same story: write it once, citing all."
    return "".join(f"\nItems {line} {said}" for line in lines)


def _writer_prompt(ctx: RunContext, items: list[SourceItem], in_window: bool, as_of) -> str:
    note = "" if in_window else " No item falls inside that window; say so and use the newest."
    language = LANGUAGE_NAMES.get(ctx.rewrite.language, "the language of the question")
    return (
        f"{llm.now_text(as_of)}\nQuestion: {ctx.brief.question}\n"
        f"Self-contained query: {ctx.rewrite.query}\n{llm.window_text(ctx.rewrite.window)}{note}\n"
        f"Write in: {language}.\n\n{llm.fenced_items(items)}{_stories_text(items)}"
        f"{writer_table_text(items)}\n\n"
        f"Write a short brief in {language}, in markdown sentences or bullets. End every "
        f"sentence and bullet with the citation of the item it comes from, as [n], using only "
        f"the item numbers 1 to {len(items)}. Each sentence says only what the items it cites "
        "say: their figures, names and dates as they give them. State a date or time only when "
        "that item carries it. Do not state anything that no item says. Never tell the reader to "
        "do anything, name a source the item does not name, or write a web address. No "
        "headings, links, images or HTML."
    )


class WriterGate:
    """The writer's ``validate``: the contract, and when to ask for one repair.

    The first answer is repaired when it cites numbers that are not items, keeps nothing, or
    has sentences in another language than the brief's (asked again in the right one, before
    they are dropped); the repaired one is accepted with whatever it keeps, or, keeping
    nothing, loses to a first answer that kept something. A sentence in the wrong language is
    never kept, first answer or repaired (``agent.summary.support``).
    """

    def __init__(self, items: list[SourceItem], *, now: datetime, language: str) -> None:
        self.items, self.now, self.language = items, now, language
        self.first: ClaimsReport | None = None
        self.last: ClaimsReport | None = None

    def __call__(self, text: str) -> ClaimsReport:
        report = claims_check(text, self.items, now=self.now, language=self.language)
        first_answer, self.last = self.last is None, report
        empty = not report.enough or len(report.body) < MIN_BODY_CHARS
        if empty and not first_answer and self.first is not None:
            return self.first
        foreign = report.dropped.get(REASON_LANGUAGE, 0)
        if empty or (first_answer and (report.invalid_numbers or foreign)):
            self.first = None if empty else report
            raise ValueError(self._problem(report))
        return report

    def _problem(self, report: ClaimsReport) -> str:
        given = f"only items [1] to [{len(self.items)}] exist"
        if report.invalid_numbers:
            numbers = ", ".join(f"[{n}]" for n in report.invalid_numbers[:10])
            return f"it cites {numbers}, which are not items: {given}"
        if foreign := report.dropped.get(REASON_LANGUAGE, 0):
            language = LANGUAGE_NAMES.get(self.language or "", "the language of the question")
            return (
                f"{foreign} of {report.sentences} sentences are not written in {language}: "
                f"write every sentence in {language}, keeping only titles and names as the "
                "items give them"
            )
        if report.kept:
            return (
                f"only {report.kept} of {report.sentences} sentences say what the items they "
                "cite say: write only the figures, names and facts each cited item states"
            )
        return f"no sentence cites an item as [n] backing what it says ({given})"


def answer_bound(text: str) -> str:
    """The writer's answer cut to ``LLM_WRITER_MAX_CHARS`` characters and
    ``LLM_WRITER_MAX_SENTENCES`` sentences (whole lines kept while they fit)."""
    text = text[: settings.LLM_WRITER_MAX_CHARS]
    limit, kept, count = settings.LLM_WRITER_MAX_SENTENCES, [], 0
    for line in text.split("\n"):
        sentences = sentences_split(line)
        if count + len(sentences) > limit:
            kept.append(" ".join(sentences[: limit - count]))
            break
        count += len(sentences)
        kept.append(line)
    return "\n".join(kept)


def _stand_in_note(language: str, report: ClaimsReport) -> str:
    with translation.override(LOCALES.get(language, "en")):
        if report.kept:
            return _(
                "The model's brief was set aside: fewer than half of its sentences said what "
                "the items they cited say. The items themselves follow."
            )
        return _(
            "The model's brief was set aside: none of its sentences could be traced to an item "
            "it cited. The items themselves follow."
        )


def _lead_line(items: list[SourceItem], as_of: datetime, language: str) -> str:
    """The offline brief's lead line: the model's brief opens with the same measured facts."""
    with translation.override(LOCALES.get(language, "en")):
        return lead_line(items, as_of)


async def node_summarize(ctx: RunContext, *, as_of: datetime) -> Draft:
    candidates = await sync_to_async(items_load)(ctx.fetched_item_ids)
    plan = await sync_to_async(answer_plan)(ctx, candidates)
    # A watch's run writes only what is new since its previous run (agent.summary.delta).
    delta = await sync_to_async(delta_apply)(ctx, plan, as_of=as_of)
    draft = delta.draft or await _draft(ctx, delta.plan, as_of=as_of)
    draft.body = "\n\n".join(part for part in (delta.lead, draft.body) if part)
    draft.verdict = plan.verdict
    # Cited items in another language get a title in the brief's (agent.translate).
    draft.citations = await titles_translate(ctx, draft.citations)
    return draft


async def _draft(ctx: RunContext, plan: AnswerPlan, *, as_of: datetime) -> Draft:
    """No data, off topic and needs input have fixed honest texts; an answer may be written."""
    if not plan.verdict.written:
        return brief_honest(
            plan,
            attempted=ctx.attempted,
            needs=ctx.needs,
            as_of=as_of,
            egress_down=ctx.egress_down,
            rsshub_down=ctx.rsshub_down,
            setup=ctx.setup_needed,
        )
    items, in_window = plan.items, plan.in_window

    def extractive() -> Draft:
        return brief_extractive(
            items,
            attempted=ctx.attempted,
            window=ctx.rewrite.window,
            in_window=in_window,
            as_of=as_of,
            note=subject_note(plan),
            background=plan.background,
        )

    gate = WriterGate(items, now=as_of, language=ctx.rewrite.language)

    def call():
        return llm.llm_write(
            user=ctx.owner,
            node="summarize",
            system=llm.SYSTEM_WRITER,
            prompt=_writer_prompt(ctx, items, in_window, as_of),
            validate=gate,
            bound=answer_bound,
            deadline=ctx.llm_deadline,
        )

    report, method = await model_or_offline(ctx, "summarize", call, lambda: None)
    if method == "model" and settings.CLAIMS_VERIFY == "model":
        report = await _verified(ctx, report, items)
        if not report.enough:
            await fallback_record(ctx, "summarize", llm.REASON_INVALID_OUTPUT)
            method, gate.last = "offline", report
    report = report or gate.last
    if report is not None:
        ctx.claims_dropped = dict(report.dropped)
        await ctx.step("claims_dropped", **report.as_payload())
    if method != "model":
        draft = extractive()
        if gate.last is not None and not gate.last.enough:  # the model wrote, too little held
            draft.body = f"{_stand_in_note(ctx.rewrite.language, gate.last)}\n\n{draft.body}"
        return draft
    heading = _lead_line(items, as_of, ctx.rewrite.language)
    return Draft(
        body=f"{heading}\n\n{report.body}\n{coverage_markdown(ctx.attempted)}",
        citations=citations_of(items, report.cited),
        method=method,
        agreements=brief_tables(items),
    )


async def _verified(ctx: RunContext, report: ClaimsReport, items: list[SourceItem]) -> ClaimsReport:
    """The writer model's second opinion on the kept sentences (``CLAIMS_VERIFY=model``): it
    may only remove. When its call fails (invalid answer after a repair, budget, deadline, an
    endpoint down), the offline check's result stands; its tokens count in ``usage`` either way."""
    sentences = sentences_of(report.body)
    if not sentences or time.monotonic() >= ctx.llm_deadline:
        return report

    def call() -> llm.LLMResult:
        return llm.llm_choose(
            user=ctx.owner,
            node="claims_verify",
            system=SYSTEM_VERIFY,
            prompt=verify_prompt(sentences, items),
            schema=VERIFY_SCHEMA,
            validate=lambda answer: verdict_read(answer, sentences),
            role="writer",
            deadline=ctx.llm_deadline,
        )

    try:
        result = await ctx.in_model_thread(call)
    except llm.LLMUnavailable as exc:
        for usage in exc.usage:
            await usage_record(ctx, usage)
        return report
    for usage in result.usage:
        await usage_record(ctx, usage)
    return report_verified(report, sentences, result.value)
