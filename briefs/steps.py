"""The step log of a run: every kind of ``RunStep`` and its payload, documented in one place.

A step is appended in its own short transaction that takes the next ``seq`` under a row lock on
the brief, so seqs are gapless and unique even when two writers race. After the commit, a
doorbell message (not the step itself: the row is the truth) goes to the brief's channel group.

Kinds and payloads (every payload is JSON; times are ISO 8601 UTC strings):

- ``run_started``      {attempt, mode: model | offline, budget, fetch_retry, models?}
- ``run_resumed``      {attempt, reason}: a worker picked up a brief whose previous worker died
- ``query_rewritten``  {query, language, keywords, window: {label, start, end}, method}
- ``step_started``     {step, budget, node}: one unit of the router budget is spent
- ``candidates``       {node, items: [{namespace | path, name, score}]}
- ``choice``           {node, chosen: [namespace | path], reason, method}
- ``choice_rejected``  {node, value, reason}: a choice failed validation; nothing was sent
- ``fetch_result``     {path, outcome, transient, http_status, items_new, items_seen,
                        latency_ms, message, fetch_age_s, instance, failed_over}: ``instance``
                        names the RSSHub instance that answered ("" when none did),
                        ``failed_over`` the ones that failed on their own before it
- ``router``           {decision: summarize | route | retry | platform | needs_input, reason,
                        step, budget}
- ``llm_usage``        {node, model, prompt_tokens, completion_tokens, cached_tokens,
                        truncated, latency_ms, endpoint}
- ``llm_fallback``     {node, reason}: the node used its offline method instead
- ``claims_dropped``   {produced, kept, <reason>: count...}: what the writer contract removed
                        (uncited, invalid_citation, date, heading, markup)
- ``brief_ready``      {status, outcome, reason, citations, items, as_of}: ``outcome`` and
                        ``reason`` as stored on the brief (``agent.summary.outcome``)
- ``run_failed``       {reason}
- ``run_cancelled``    {reason, step}: ``step`` (the budget steps used) when a run was stopped
"""

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, transaction
from django.db.models import F

from briefs.models import Brief, RunStep
from briefs.webhooks import webhooks_brief_finished

log = logging.getLogger(__name__)

STEP_KINDS = frozenset(
    {
        "run_started", "run_resumed", "query_rewritten", "step_started", "candidates", "choice",
        "choice_rejected", "fetch_result", "router", "llm_usage", "llm_fallback", "brief_ready",
        "run_failed", "run_cancelled", "claims_dropped",
    }
)  # fmt: skip
STEP_MESSAGE_TYPE = "step.new"
# The kinds that record a brief's end: their commit also queues the owner's webhooks.
FINISH_KINDS = frozenset({"brief_ready", "run_failed", "run_cancelled"})


def step_append(*, brief_id: int, kind: str, payload: dict[str, Any]) -> RunStep:
    """Append the next numbered step of a brief and ring its channel group after commit."""
    if kind not in STEP_KINDS:
        raise ValueError(f"unknown step kind {kind!r}")
    with transaction.atomic():
        _commit_without_flush_wait()
        # The UPDATE locks the brief's row until commit: two writers get consecutive seqs.
        if not Brief.objects.filter(pk=brief_id).update(step_seq=F("step_seq") + 1):
            raise Brief.DoesNotExist(f"brief {brief_id} is gone")
        seq = Brief.objects.values_list("step_seq", flat=True).get(pk=brief_id)
        step = RunStep.objects.create(brief_id=brief_id, seq=seq, kind=kind, payload=payload)
        transaction.on_commit(lambda: step_notify(brief_id=brief_id, seq=seq))
        if kind in FINISH_KINDS:
            # Every finish path (worker, cancel, failure) appends one of these after writing the
            # final status, so this is the one place that sees them all.
            transaction.on_commit(lambda: webhooks_brief_finished(brief_id))
    return step


def _commit_without_flush_wait() -> None:
    """Let this transaction commit without waiting for PostgreSQL's WAL flush.

    A step is progress, not an outcome: losing the last few steps in a database crash is
    harmless, and the run's final status UPDATE commits synchronously, which makes every earlier
    step durable. The flush wait was ~5.6 ms of each ~8 ms step write (bench/run.py)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def step_notify(*, brief_id: int, seq: int) -> None:
    """Tell listeners of a brief that step ``seq`` is committed. Never fails the run."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            Brief.group_name_of(brief_id),
            {"type": STEP_MESSAGE_TYPE, "brief_id": brief_id, "seq": seq},
        )
    except Exception:  # a dead Redis must not fail a run: clients fall back to replay
        log.warning("could not notify brief.%s of step %s", brief_id, seq, exc_info=True)


def steps_after(*, brief_id: int, after: int = 0, limit: int = 500) -> list[RunStep]:
    return list(RunStep.objects.filter(brief_id=brief_id, seq__gt=after).order_by("seq")[:limit])
