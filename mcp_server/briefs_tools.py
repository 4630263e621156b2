"""The brief tools: ask, get_brief, list_briefs, follow_up.

Each acts as its caller and only ever reaches their briefs (the selectors filter by owner:
another user's brief is "No such brief."). Creating a brief goes through
``briefs.admission``, as the REST API's ``POST /briefs`` and the dashboard do, so the daily
quota, the per-minute throttle and the token budget hold exactly as there.
"""

from briefs.admission import brief_ask, brief_follow_up
from briefs.language import owner_language
from briefs.models import Brief, RunStep
from briefs.selectors import brief_of, briefs_search
from briefs.step_lines import step_terminal_line
from mcp_server.caller import Caller
from mcp_server.follow import brief_follow, in_thread
from mcp_server.inputs import (
    ASK_SCHEMA,
    BRIEF_ID_ONLY_SCHEMA,
    FOLLOW_UP_SCHEMA,
    LIST_BRIEFS_SCHEMA,
    AskInput,
    BriefIdInput,
    FollowUpInput,
    ListBriefsInput,
    arguments_clean,
)
from mcp_server.present import brief_data, brief_markdown, brief_row
from mcp_server.tool import ToolAnswer, ToolCall, ToolSpec

OUTCOMES_TEXT = (
    "Read `outcome`: answered; partial (some sources failed, or nothing fell in the time "
    "window asked for); no_data (`reason` empty: the sources had nothing, not found; "
    "unreachable: no source could be read); off_topic (items came, none about the subject); "
    "needs_input (the question lacks a value a source needs, listed in `needs`: ask again with "
    "follow_up, giving it)."
)


def _step_text(step: RunStep) -> str:
    """The step as the terminal's ``ask`` prints it; a payload of an older shape still reads."""
    try:
        return step_terminal_line(step.kind, step.payload).strip()
    except (KeyError, TypeError, ValueError):
        return step.kind.replace("_", " ")


def brief_answer(brief: Brief, *, caller: Caller) -> ToolAnswer:
    data = brief_data(brief, caller=caller)
    return ToolAnswer(data=data, text=brief_markdown(brief, data))


async def brief_awaited(call: ToolCall, brief_id: int, *, seconds: int) -> ToolAnswer:
    """Wait up to ``seconds`` for the brief, reporting each step of its run as progress; then
    the brief, finished or not."""

    async def report(step: RunStep) -> None:
        await call.progress(step.seq, _step_text(step))

    if seconds:
        await brief_follow(brief_id, seconds=seconds, on_step=report)
    brief = await in_thread(brief_of)(owner=call.caller.user, brief_id=brief_id)
    return brief_answer(brief, caller=call.caller)


async def ask(call: ToolCall) -> ToolAnswer:
    args = arguments_clean(AskInput, call.arguments)
    # Left out, the language is the reader's default, as on the dashboard.
    language = args["language"] or await in_thread(owner_language)(call.caller.user)
    brief = await in_thread(brief_ask)(
        owner=call.caller.user,
        question=args["question"],
        offline=args["offline"],
        language=language,
    )
    return await brief_awaited(call, brief.pk, seconds=args["wait_seconds"])


async def follow_up(call: ToolCall) -> ToolAnswer:
    args = arguments_clean(FollowUpInput, call.arguments)
    brief = await in_thread(brief_follow_up)(
        owner=call.caller.user, brief_id=args["id"], question=args["question"]
    )
    return await brief_awaited(call, brief.pk, seconds=args["wait_seconds"])


async def get_brief(call: ToolCall) -> ToolAnswer:
    args = arguments_clean(BriefIdInput, call.arguments)
    brief = await in_thread(brief_of)(owner=call.caller.user, brief_id=args["id"])
    return brief_answer(brief, caller=call.caller)


def _briefs_listed(*, caller: Caller, query: str, outcome: str, limit: int) -> dict:
    briefs = briefs_search(owner=caller.user, text=query, outcome=outcome)[:limit]
    return {"briefs": [brief_row(b, caller=caller) for b in briefs]}


async def list_briefs(call: ToolCall) -> ToolAnswer:
    args = arguments_clean(ListBriefsInput, call.arguments)
    data = await in_thread(_briefs_listed)(
        caller=call.caller,
        query=args["query"],
        outcome=args.get("outcome", ""),
        limit=args["limit"],
    )
    return ToolAnswer(data=data)


BRIEF_TOOLS = (
    ToolSpec(
        name="ask",
        title="Ask for a fresh, cited brief",
        description=(
            "Answer a time-sensitive question (what is new on a site, the latest news on a "
            "subject, recent releases) from feeds fetched now. The service picks sources from a "
            "curated catalog of RSSHub routes, preferring healthy ones, falls back when one "
            "fails, and writes a brief in which every claim cites a fetched item as [n], with "
            "its link and publication time. Use it instead of your own knowledge for anything "
            "recent. It waits up to wait_seconds (default 60) and reports each decision step as "
            "progress; when the brief is not ready by then, it returns the brief's id and "
            "status: read it later with get_brief. " + OUTCOMES_TEXT + " Each call uses one of "
            "the day's briefs (quota)."
        ),
        input_schema=ASK_SCHEMA,
        run=ask,
        creates=True,
        open_world=True,
    ),
    ToolSpec(
        name="get_brief",
        title="Read a brief",
        description=(
            "Read one of your briefs by id: its status, and once finished the answer (markdown, "
            "claims cited as [n]), outcome, citations (title, link, source path, published "
            "time), coverage (the sources tried, which answered and which failed), as-of time "
            "and dashboard URL. Use it for a brief that ask or follow_up returned unfinished."
        ),
        input_schema=BRIEF_ID_ONLY_SCHEMA,
        run=get_brief,
    ),
    ToolSpec(
        name="list_briefs",
        title="List your briefs",
        description=(
            "Your briefs, newest first: id, question, status, outcome and times. Filter by text "
            "in the question or the answer (query) and by outcome. Use it to find an earlier "
            "answer before asking again."
        ),
        input_schema=LIST_BRIEFS_SCHEMA,
        run=list_briefs,
    ),
    ToolSpec(
        name="follow_up",
        title="Ask a follow-up question",
        description=(
            "Ask a follow-up to one of your briefs: a new brief in the same thread, whose "
            "earlier questions give the new one its context ('and yesterday?' keeps the "
            "subject). Use it to narrow or extend an answer, or to give the value a needs_input "
            "brief asked for. Runs offline when the brief it follows did. Waits and reports "
            "progress like ask, and uses one of the day's briefs too."
        ),
        input_schema=FOLLOW_UP_SCHEMA,
        run=follow_up,
        creates=True,
        open_world=True,
    ),
)
