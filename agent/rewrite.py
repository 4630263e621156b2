"""The rewrite node: a question (and the earlier turns of its thread) -> a self-contained query,
its language, keywords and the time window it asks about.

The model method answers in a strict schema and the answer is checked here: a query the catalog
search would refuse, a window not offered, keywords that are not text are refused. The offline
method is rules (``agent.question.rewrite_offline``), and it answers whenever the model cannot.
"""

from agent import llm
from agent.context import RunContext
from agent.mode import model_or_offline
from agent.question import (
    Rewrite,
    TimeWindow,
    keywords_of,
    named_window,
    rewrite_offline,
    time_window,
)
from catalog.search import MAX_QUESTION_CHARS, question_problem

WINDOW_LABELS = ["latest", "today", "yesterday", "this_week", "this_month", "last_24h"]

# Strict: every field required, nothing else allowed (window_hours is null when not asked).
REWRITE_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "the question made self-contained"},
        "language": {"type": "string", "enum": ["zh", "en", "other"]},
        "keywords": {"type": "array", "items": {"type": "string"}, "description": "at most 8"},
        "window": {"type": "string", "enum": WINDOW_LABELS},
        "window_hours": {
            "type": ["integer", "null"],
            "description": "hours back from now, 1 to 8784, when the question says so",
        },
    },
    "required": ["query", "language", "keywords", "window", "window_hours"],
    "additionalProperties": False,
}


def _rewrite_validate(value: dict, question: str) -> Rewrite:
    query = value.get("query")
    if not isinstance(query, str) or not query.strip() or len(query) > MAX_QUESTION_CHARS:
        raise ValueError(
            f"query must be a non-empty string of at most {MAX_QUESTION_CHARS} characters"
        )
    query = " ".join(query.split())
    if problem := question_problem(query):  # the catalog search would refuse it
        raise ValueError(f"query: {problem}")
    keywords = value.get("keywords")
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        raise ValueError("keywords must be a list of strings")
    if value.get("window") not in WINDOW_LABELS:
        raise ValueError(f"window must be one of {WINDOW_LABELS}")
    hours = value.get("window_hours")
    if isinstance(hours, int) and 1 <= hours <= 8784:
        window = time_window(f"past {hours} hours")
    elif value["window"] == "latest":
        window = TimeWindow("latest")
    else:
        window = named_window(value["window"])
    language = value.get("language") if value.get("language") in ("zh", "en") else "en"
    words = [k.strip()[:60] for k in keywords if k.strip()][:8] or keywords_of(query)
    return Rewrite(
        query=query,
        language=language,
        keywords=words,
        window=window,
        method="model",
    )


def _thread_prompt(thread: list) -> str:
    """The earlier turns of a follow-up. An earlier answer quotes feed items, so it goes in as
    fenced data (item n is the n-th earlier turn), like any item text."""
    if not thread:
        return ""
    questions = "\n".join(f"Earlier question {n}: {b.question}" for n, b in enumerate(thread, 1))
    answers = llm.fenced_items(
        llm.PromptItem(n=n, path=f"earlier answer {n}", title="", summary=b.body[:600])
        for n, b in enumerate(thread, 1)
    )
    return f"{questions}\n\nEarlier answers (excerpts):\n{answers}\n\n"


async def node_rewrite(ctx: RunContext) -> Rewrite:
    question = ctx.brief.question
    earlier = [b.question for b in ctx.thread]
    offline = lambda: rewrite_offline(question, thread=earlier)  # noqa: E731

    def call():
        prompt = (
            f"{llm.now_text()}\n\n{_thread_prompt(ctx.thread)}Question: {question}\n\n"
            "Rewrite the question as a self-contained search query for news feeds, with its "
            "language, topic keywords and the time window it asks about."
        )
        return llm.llm_choose(
            user=ctx.owner,
            node="rewrite",
            role="router",
            system=llm.SYSTEM_REWRITE,
            prompt=prompt,
            schema=REWRITE_SCHEMA,
            validate=lambda v: _rewrite_validate(v, question),
            deadline=ctx.llm_deadline,
        )

    rewrite, _method = await model_or_offline(ctx, "rewrite", call, offline)
    return rewrite
