"""The step log of a run: every kind of ``RunStep`` and its payload, documented in one place.

A step is appended in its own short transaction that takes the next ``seq`` under a row lock on
the brief, so seqs are gapless and unique even when two writers race. The watchers' doorbell
(``briefs.doorbell``; not the step itself: the row is the truth) is a ``NOTIFY`` inside that
transaction on PostgreSQL without Redis, and a message to the brief's channel group after it.

Kinds and payloads (every payload is JSON; times are ISO 8601 UTC strings):

- ``brief_queued``     {offline, follow_up_of, refresh_limited?, translation_of?}: written with
                        the brief when it is handed to a worker, so its page shows a first step
                        before any worker has it; ``refresh_limited``: the forced refresh asked
                        was refused (the hourly budget, ``briefs.admission``), sources come from
                        the window; ``translation_of``: a retelling of that brief in another
                        language (``briefs.translation``), which fetches nothing
- ``run_started``      {attempt, mode: model | offline, budget, fetch_retry, models?}
- ``run_resumed``      {attempt, reason}: a worker picked up a brief whose previous worker died
- ``query_rewritten``  {query, language, keywords, window: {label, start, end}, method}: method
                        ``stored`` for a retelling (read from the brief it retells)
- ``step_started``     {step, budget, node}: one unit of the router budget is spent
- ``candidates``       {node, items: [{namespace | path, name, score}]}
- ``choice``           {node, chosen: [namespace | path], reason, method}
- ``choice_rejected``  {node, value, reason}: a choice failed validation; nothing was sent
- ``fetch_result``     {path, outcome, transient, http_status, items_new, items_seen,
                        latency_ms, message, fetch_age_s, instance, failed_over,
                        refresh_limited}: ``instance``
                        names the RSSHub instance that answered ("" when none did),
                        ``failed_over`` the ones that failed on their own before it;
                        ``refresh_limited``: a forced refresh refused, served from the window
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

from briefs import doorbell
from briefs.models import Brief, RunStep
from briefs.webhooks import webhooks_brief_finished

log = logging.getLogger(__name__)

STEP_KINDS = frozenset(
    {
        "brief_queued", "run_started", "run_resumed", "query_rewritten", "step_started",
        "candidates", "choice", "choice_rejected", "fetch_result", "router", "llm_usage",
        "llm_fallback", "brief_ready", "run_failed", "run_cancelled", "claims_dropped",
    }
)  # fmt: skip
STEP_MESSAGE_TYPE = "step.new"
# The kinds that record a brief's end: their commit also queues the owner's webhooks.
FINISH_KINDS = frozenset({"brief_ready", "run_failed", "run_cancelled"})


def step_append(*, brief_id: int, kind: str, payload: dict[str, Any]) -> RunStep:
    """Append the next numbered step of a brief and ring its watchers' doorbell."""
    return steps_append(brief_id=brief_id, steps=[(kind, payload)])[0]


def steps_append(*, brief_id: int, steps: list[tuple[str, dict[str, Any]]]) -> list[RunStep]:
    """Append steps that come together (a node's candidates and its choice) as one write: one
    transaction, one seq taken for all, one INSERT, one doorbell. Their seqs are consecutive,
    in the order given."""
    if not steps:
        return []
    unknown = [kind for kind, _ in steps if kind not in STEP_KINDS]
    if unknown:
        raise ValueError(f"unknown step kind {unknown[0]!r}")
    with transaction.atomic():
        with connection.cursor() as cursor:
            commit_without_flush_wait(cursor)
            doorbell.ring_in_transaction(cursor, brief_id)
            last = _seq_take(cursor, brief_id, len(steps))
        first = last - len(steps) + 1
        rows = RunStep.objects.bulk_create(
            RunStep(brief_id=brief_id, seq=first + n, kind=kind, payload=payload)
            for n, (kind, payload) in enumerate(steps)
        )
        transaction.on_commit(lambda: step_notify(brief_id=brief_id, seq=last))
        if any(kind in FINISH_KINDS for kind, _ in steps):
            # Every finish path (worker, cancel, failure) appends one of these after writing the
            # final status, so this is the one place that sees them all.
            transaction.on_commit(lambda: webhooks_brief_finished(brief_id))
    return rows


def commit_without_flush_wait(cursor=None) -> None:
    """Let the current transaction commit without waiting for PostgreSQL's WAL flush.

    For writes a run makes along the way: its steps, and the token accounting of its model calls
    (``agent.llm``). A step is progress, not an outcome, and a reservation is settled within
    the run: losing the last few of them in a database crash is harmless, and the run's final
    status UPDATE commits synchronously, which makes every earlier write durable (the WAL is
    flushed in order). The flush wait was ~5.6 ms of each ~8 ms step write (bench/run.py)."""
    if connection.vendor != "postgresql":
        return
    if cursor is None:
        with connection.cursor() as own:
            own.execute("SET LOCAL synchronous_commit TO OFF")
    else:
        cursor.execute("SET LOCAL synchronous_commit TO OFF")


# Brief's table (``Brief._meta.db_table``), named as a literal so the statement is a constant.
SEQ_TAKE_SQL = "UPDATE briefs_brief SET step_seq = step_seq + %s WHERE id = %s RETURNING step_seq"


def _seq_take(cursor, brief_id: int, count: int) -> int:
    """Take the brief's next ``count`` seqs; the last of them, in one statement (PostgreSQL and
    SQLite 3.35+ both return it). The UPDATE locks the brief's row until commit: two writers
    get consecutive ranges."""
    cursor.execute(SEQ_TAKE_SQL, [count, brief_id])
    row = cursor.fetchone()
    if row is None:
        raise Brief.DoesNotExist(f"brief {brief_id} is gone")
    return row[0]


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
