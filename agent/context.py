"""The state one run carries from node to node, and how it records steps."""

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

from agent.question import Rewrite
from agent.reading import Reading, question_reading
from briefs.coverage import Attempted
from briefs.models import Brief
from briefs.steps import steps_append


class RunCancelled(Exception):
    """The brief's owner asked to stop; raised at a step boundary."""


@dataclass
class RunContext:
    brief: Brief
    owner: Any
    use_llm: bool
    budget: int
    fetch_retry: int
    thread: list[Brief] = field(default_factory=list)  # earlier briefs of a follow-up, oldest first
    rewrite: Rewrite | None = None
    _reading: Reading | None = field(default=None, repr=False)
    steps_used: int = 0
    platforms: list[str] = field(default_factory=list)  # chosen namespaces
    tried_namespaces: set[str] = field(default_factory=set)
    tried_routes: set[int] = field(default_factory=set)
    circuit_skipped: set[int] = field(default_factory=set)
    paths: list[tuple[str, int | None]] = field(default_factory=list)  # (path, route id) to fetch
    attempted: list[Attempted] = field(default_factory=list)
    fetched_item_ids: list[int] = field(default_factory=list)
    # The paths of the route choice whose fetch returned items: a failure among them makes
    # the outcome partial (a route given up on earlier does not).
    answer_paths: list[str] = field(default_factory=list)
    usage: dict[str, dict[str, int]] = field(default_factory=dict)
    timings: dict[str, int] = field(default_factory=dict)
    llm_fallbacks: list[str] = field(default_factory=list)
    # The model path's record: nodes the model answered, each fallback with its reason, the
    # writer's dropped sentences by reason, and the run's model deadline (time.monotonic()).
    llm_answered: list[str] = field(default_factory=list)
    fallback_reasons: list[dict[str, str]] = field(default_factory=list)
    claims_dropped: dict[str, int] = field(default_factory=dict)
    llm_deadline: float = field(
        default_factory=lambda: time.monotonic() + settings.LLM_RUN_DEADLINE
    )
    # What the question did not say: one entry per required subject parameter that no candidate
    # route could fill, {"parameter", "description", "format", "route", "source"}. A run that
    # fetched nothing and has needs ends with the outcome ``needs_input`` and asks for them.
    needs: list[dict[str, str]] = field(default_factory=list)
    # The router saw RSSHub's egress down (fetching.egress): nothing could be fetched, and the
    # brief says the network is down, not that the sources failed.
    egress_down: bool = False
    rsshub_down: bool = False  # RSSHub itself did not answer, retries included
    # The one route that fits the question needs setting up by staff ({"source", "route"}):
    # nothing else is read, and the brief says so (``agent.routes.setup``).
    setup_needed: list[dict[str, str]] = field(default_factory=list)
    # A dry run (``eval_routing``) has no saved brief: its steps are kept here, not in the log.
    memory_steps: list[tuple[str, dict]] | None = None
    # Steps held to be written with the next one (``step_hold``).
    held_steps: list[tuple[str, dict]] = field(default_factory=list)
    # The thread the run's model calls run in (``in_model_thread``), made by the first.
    model_thread: ThreadPoolExecutor | None = field(default=None, repr=False)

    @property
    def reading(self) -> Reading:
        """The question read once for the run (``agent.reading``), from its rewrite."""
        if self._reading is None or self._reading.query != self.rewrite.query:
            self._reading = question_reading(self.brief.question, self.rewrite)
        return self._reading

    @property
    def brief_id(self) -> int:
        return self.brief.pk

    @property
    def budget_left(self) -> int:
        return self.budget - self.steps_used

    async def step(self, kind: str, **payload: Any) -> None:
        """Write a step (with any held before it, in one write)."""
        self.held_steps.append((kind, payload))
        await self.steps_flush()

    def step_hold(self, kind: str, **payload: Any) -> None:
        """Keep a step to be written together with the next one: one write instead of two.

        Only for steps that come together, with nothing to wait for before the next (a node's
        candidates and its offline choice, a batch's fetch results and the router's decision):
        a step held over a model call or a fetch would reach the watcher late. A run that fails
        in between loses it; a cancel does not (``spend`` writes held steps first)."""
        self.held_steps.append((kind, payload))

    async def steps_flush(self) -> None:
        steps, self.held_steps = self.held_steps, []
        if not steps:
            return
        if self.memory_steps is not None:
            self.memory_steps.extend(steps)
            return
        await sync_to_async(steps_append)(brief_id=self.brief_id, steps=steps)

    async def in_model_thread(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` on the run's model thread, off the event loop. One thread per run, so the
        database connection its calls need (each call's breaker and budget) is opened by the
        first and kept for the others: a new one per call cost ~5 ms. A call that fails closes
        it (it may be what failed); ``model_thread_close`` closes it at the end."""

        def guarded():
            try:
                return fn()
            except BaseException:
                connections.close_all()
                raise

        if self.model_thread is None:
            self.model_thread = ThreadPoolExecutor(1, thread_name_prefix="run-model-calls")
        return await sync_to_async(guarded, thread_sensitive=False, executor=self.model_thread)()

    async def model_thread_close(self) -> None:
        """Close the model thread's database connection and let the thread go."""
        thread, self.model_thread = self.model_thread, None
        if thread is not None:
            await sync_to_async(connections.close_all, thread_sensitive=False, executor=thread)()
            thread.shutdown(wait=False)

    async def check_cancelled(self) -> None:
        cancelled = await Brief.objects.filter(pk=self.brief_id, cancel_requested=True).aexists()
        if cancelled:
            raise RunCancelled

    async def spend(self, node: str) -> None:
        """Spend one step of the router budget on ``node`` (platform, route or fetch)."""
        await self.steps_flush()
        await self.check_cancelled()
        self.steps_used += 1
        await self.step("step_started", step=self.steps_used, budget=self.budget, node=node)

    def usage_add(self, node: str, usage: Any) -> None:
        totals = self.usage.setdefault(
            node,
            {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0},
        )
        totals["calls"] += 1
        if getattr(usage, "endpoint", ""):
            endpoints = totals.setdefault("endpoints", {})
            endpoints[usage.endpoint] = endpoints.get(usage.endpoint, 0) + 1
        totals["prompt_tokens"] += usage.prompt_tokens
        totals["completion_tokens"] += usage.completion_tokens
        totals["cached_tokens"] += usage.cached_tokens
