"""The summarize node: the model writes from fenced items, or the extractive brief stands."""

from datetime import datetime

from asgiref.sync import sync_to_async

from briefs import llm
from briefs.agent.context import RunContext
from briefs.agent.nodes import _with_model
from briefs.agent.summarize import (
    Draft,
    SourceItem,
    brief_extractive,
    brief_nothing,
    citations_of,
    citations_validate,
    coverage_markdown,
    items_select,
    time_text,
)
from fetching.models import Item

MIN_BODY_CHARS = 20


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


def _writer_prompt(ctx: RunContext, items: list[SourceItem], in_window: bool, as_of) -> str:
    window = ctx.rewrite.window
    note = "" if in_window else " No item falls inside that window; say so and use the newest."
    return (
        f"Question: {ctx.brief.question}\nSelf-contained query: {ctx.rewrite.query}\n"
        f"Time window asked: {window.label}.{note}\nAs of: {time_text(as_of)}\n\n"
        f"{llm.fenced_items(items)}\n\n"
        "Write a short brief in the question's language, in markdown. Every claim must cite the "
        "item it comes from as [n], using only the item numbers above, and give the item's time "
        "when it matters. Do not state anything that no item says. No links, no HTML."
    )


def _validated(body: str, items: list[SourceItem]) -> tuple[str, set[int]]:
    """The model's body with unknown citations removed; ValueError when it cites nothing."""
    body, cited = citations_validate(body, items)
    if len(body.strip()) < MIN_BODY_CHARS or not cited:
        raise ValueError("the brief must cite at least one given item as [n]")
    return body, cited


async def node_summarize(ctx: RunContext, *, as_of: datetime) -> Draft:
    candidates = await sync_to_async(items_load)(ctx.fetched_item_ids)
    items, in_window = items_select(
        candidates, window=ctx.rewrite.window, keywords=ctx.rewrite.keywords
    )
    if not items:
        return brief_nothing(attempted=ctx.attempted, as_of=as_of, unreachable=ctx.egress_down)

    def extractive() -> Draft:
        return brief_extractive(
            items,
            attempted=ctx.attempted,
            window=ctx.rewrite.window,
            in_window=in_window,
            as_of=as_of,
        )

    def call():
        return llm.llm_write(
            user=ctx.owner,
            node="summarize",
            system=llm.SYSTEM_WRITER,
            prompt=_writer_prompt(ctx, items, in_window, as_of),
            validate=lambda text: _validated(text, items),
        )

    value, method = await _with_model(ctx, "summarize", call, lambda: None)
    if value is None:
        return extractive()
    body, cited = value
    heading = f"As of {time_text(as_of)}.\n\n"
    return Draft(
        body=heading + body.strip() + "\n" + coverage_markdown(ctx.attempted),
        citations=citations_of(items, cited),
        method=method,
    )
