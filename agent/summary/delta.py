"""The one seam between the summarize node and what reruns a question (``watches``).

A watch's run says what is new since its previous run and writes only about that. The agent
knows nothing of watches (apps import downward): the watches app registers one function here at
start-up (``WatchesConfig.ready``), and the summarize node calls ``delta_apply`` once, after the
items are chosen and before anything is written. For an ordinary brief, a dry run, a brief that
is not written from items (no data, off topic, needs input), or when nothing is registered, the
plan passes through unchanged.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from agent.context import RunContext
from agent.summary.answer import AnswerPlan
from agent.summary.draft import Draft


@dataclass(frozen=True)
class Delta:
    """What to write: ``plan`` (for a watch, its new items only), said after ``lead``; or, when
    ``draft`` is set, that brief as it is (nothing new: the lead line alone)."""

    plan: AnswerPlan
    lead: str = ""
    draft: Draft | None = None


DeltaHook = Callable[[RunContext, AnswerPlan, datetime], Delta | None]
_hook: DeltaHook | None = None


def delta_hook_set(hook: DeltaHook | None) -> None:
    global _hook
    _hook = hook


def delta_apply(ctx: RunContext, plan: AnswerPlan, *, as_of: datetime) -> Delta:
    """The registered hook's delta for this run (sync: it reads the database), else the plan."""
    if _hook is None or ctx.memory_steps is not None or not plan.verdict.written:
        return Delta(plan)
    return _hook(ctx, plan, as_of) or Delta(plan)
