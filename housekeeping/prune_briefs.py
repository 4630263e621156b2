"""Housekeeping of what briefs write: step logs, webhook deliveries, daily usage and quota rows.

Briefs themselves, their bodies, citations and coverage are kept until a person deletes them.
A finished brief's step log goes after ``HOUSEKEEP_STEP_DAYS``; in the same transaction the brief
gets ``steps_summary`` (how many steps of each kind, fetch outcomes, first and last step time)
and ``steps_pruned_at``, so its page can say the log expired and what it held.
"""

from collections.abc import Iterator
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Max, Min, Q, QuerySet
from django.db.models.fields.json import KT

from briefs.models import (
    FINISHED_STATUSES,
    Brief,
    BriefQuotaDay,
    DeliveryStatus,
    RunStep,
    TokenUsage,
    WebhookDelivery,
)
from housekeeping.batches import Pass, Step, by_age

# About how many steps one run writes: sizes the batch of briefs so a batch deletes about
# HOUSEKEEP_BATCH_SIZE steps.
STEPS_PER_BRIEF = 25
# Briefs read per statement while collecting cited items.
CITED_SCAN_BRIEFS = 5000


def _briefs_due(run: Pass) -> QuerySet:
    """Finished briefs past the step age whose steps are still there."""
    return Brief.objects.filter(
        steps_pruned_at__isnull=True,
        status__in=FINISHED_STATUSES,
        finished_at__lt=run.days_ago(settings.HOUSEKEEP_STEP_DAYS),
    )


def steps_pending(run: Pass) -> int:
    return RunStep.objects.filter(brief__in=_briefs_due(run)).count()


def steps_prune(run: Pass) -> Iterator[int]:
    per_batch = max(1, run.batch_size // STEPS_PER_BRIEF)
    while True:
        brief_ids = list(_briefs_due(run).order_by().values_list("pk", flat=True)[:per_batch])
        if not brief_ids:
            return
        yield steps_summarise_and_delete(brief_ids=brief_ids, now=run.now)


def steps_summarise_and_delete(*, brief_ids: list[int], now: datetime) -> int:
    """Summarise the briefs' steps, then delete them and write the summaries in one transaction.

    The summaries are read first, outside it: a finished brief's steps no longer change. Inside,
    the steps go first and the briefs are written last, so a brief's row is locked only for the
    final UPDATE and the commit (a person writing to it meanwhile barely waits). A concurrent run
    waits on the deleted steps' row locks, then deletes nothing and, its UPDATE matching only
    briefs not yet pruned, writes nothing."""
    summaries = steps_summaries(brief_ids)
    marked = [
        Brief(pk=pk, steps_pruned_at=now, steps_summary=summaries.get(pk, _summary_empty()))
        for pk in brief_ids
    ]
    with transaction.atomic():
        deleted, _ = RunStep.objects.filter(brief_id__in=brief_ids).delete()
        unpruned = Brief.objects.filter(steps_pruned_at__isnull=True)
        unpruned.bulk_update(marked, ["steps_pruned_at", "steps_summary"])
    return deleted


def steps_summaries(brief_ids: list[int]) -> dict[int, dict]:
    """Per brief: ``{steps, kinds: {kind: n}, fetch_outcomes: {outcome: n}, first_at, last_at}``."""
    steps = RunStep.objects.filter(brief_id__in=brief_ids).order_by()
    summaries: dict[int, dict] = {}
    kinds = steps.values("brief_id", "kind").annotate(
        n=Count("id"), first=Min("created_at"), last=Max("created_at")
    )
    for row in kinds:
        summary = summaries.setdefault(row["brief_id"], _summary_empty())
        summary["steps"] += row["n"]
        summary["kinds"][row["kind"]] = row["n"]
        summary["first_at"] = min(filter(None, [summary["first_at"], row["first"].isoformat()]))
        summary["last_at"] = max(filter(None, [summary["last_at"], row["last"].isoformat()]))
    fetches = (
        steps.filter(kind="fetch_result")
        .values("brief_id", outcome=KT("payload__outcome"))
        .annotate(n=Count("id"))
    )
    for row in fetches:
        outcomes = summaries[row["brief_id"]]["fetch_outcomes"]
        outcomes[str(row["outcome"] or "unknown")[:30]] = row["n"]
    return summaries


def _summary_empty() -> dict:
    return {"steps": 0, "kinds": {}, "fetch_outcomes": {}, "first_at": None, "last_at": None}


def _deliveries_old(run: Pass) -> QuerySet:
    """Deliveries that ended (delivered or given up) past their age; pending ones stay."""
    ended = Q(status__in=[DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED])
    cutoff = run.days_ago(settings.HOUSEKEEP_DELIVERY_DAYS)
    return WebhookDelivery.objects.filter(ended, created_at__lt=cutoff)


def _usage_days_old(model: type[TokenUsage] | type[BriefQuotaDay]):
    def rows(run: Pass) -> QuerySet:
        return model.objects.filter(day__lt=run.days_ago(settings.HOUSEKEEP_USAGE_DAYS).date())

    return rows


def brief_steps() -> list[Step]:
    return [
        Step("briefs_runstep", steps_pending, steps_prune),
        by_age("briefs_webhookdelivery", _deliveries_old),
        by_age("briefs_tokenusage", _usage_days_old(TokenUsage)),
        by_age("briefs_briefquotaday", _usage_days_old(BriefQuotaDay)),
    ]


# --- what kept briefs cite -----------------------------------------------------------------------

_CITED_SQL = {
    "postgresql": """
        SELECT DISTINCT c.value ->> 'item_id'
        FROM {table} b CROSS JOIN LATERAL jsonb_array_elements(
            CASE WHEN jsonb_typeof(b.citations) = 'array' THEN b.citations ELSE '[]'::jsonb END
        ) AS c(value)
        WHERE b.id > %s AND b.id <= %s AND jsonb_typeof(c.value) = 'object'
    """,
    "sqlite": """
        SELECT DISTINCT json_extract(c.value, '$.item_id')
        FROM {table} b, json_each(
            CASE WHEN json_type(b.citations) = 'array' THEN b.citations ELSE '[]' END
        ) AS c
        WHERE b.id > %s AND b.id <= %s AND c.type = 'object'
    """,
}


def cited_item_ids() -> frozenset[int]:
    """The ids of every item some existing brief cites, read from the briefs' citations in
    slices of ``CITED_SCAN_BRIEFS`` briefs (short statements, no lock on anyone's rows).

    The citations are JSON on the brief (their title, link and time are copied there), so this
    is a scan of kept briefs: a daily cost linear in them, paid once per run."""
    sql = _CITED_SQL[connection.vendor].format(
        table=connection.ops.quote_name(Brief._meta.db_table)
    )
    top = Brief.objects.aggregate(top=Max("pk"))["top"] or 0
    cited: set[int] = set()
    with connection.cursor() as cursor:
        for low in range(0, top, CITED_SCAN_BRIEFS):
            cursor.execute(sql, [low, low + CITED_SCAN_BRIEFS])
            cited.update(_as_id(value) for (value,) in cursor.fetchall())
    cited.discard(None)
    return frozenset(cited)


def _as_id(value: object) -> int | None:
    """An item id as citations hold it; anything else (a hand-edited brief) is no id."""
    text = str(value)
    return int(text) if text.isdigit() and len(text) <= 18 else None
