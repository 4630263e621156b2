"""Housekeeping of what fetching writes: attempts, circuit changes, item text, item rows, feeds.

Route health is data on the ``Route`` row (attempts, successes, latency...), so removing old
``FetchAttempt`` rows changes no counter; the route health page charts ``HEALTH_DAYS`` of
attempts, which ``HOUSEKEEP_ATTEMPT_DAYS`` always exceeds.

Items go in two stages, and never while a brief cites them:
1. their text (``summary``) is cleared once their feed has not listed them for
   ``HOUSEKEEP_ITEM_BODY_DAYS`` (``Item.last_seen_at``, refreshed by the ingest);
2. their row goes once their feed has not been fetched for ``HOUSEKEEP_ITEM_ROW_DAYS``
   (``Feed.last_fetched_at``). While a feed is fetched, every ``(feed, guid_hash)`` key it ever
   listed stays, so a re-fetch counts nothing old as new and "what changed" stays true.
A feed left without items after that goes too.

A path's shared answer (``PathFetch``, ``fetching.flight``) serves for seconds to an hour; its
row goes with the attempts of its age, unless a run holds its claim right now.
"""

from collections.abc import Iterator

from django.conf import settings
from django.db.models import Exists, OuterRef, Q, QuerySet

from catalog.models import CircuitChange
from fetching.models import Feed, FetchAttempt, InstanceCircuitChange, Item, PathFetch
from housekeeping.batches import Pass, Step, by_age, delete_in_batches


def _attempts_old(run: Pass) -> QuerySet:
    return FetchAttempt.objects.filter(created_at__lt=run.days_ago(settings.HOUSEKEEP_ATTEMPT_DAYS))


def _path_answers_old(run: Pass) -> QuerySet:
    unclaimed = Q(claim_until__isnull=True) | Q(claim_until__lt=run.now)
    cutoff = run.days_ago(settings.HOUSEKEEP_ATTEMPT_DAYS)
    return PathFetch.objects.filter(unclaimed, answered_at__lt=cutoff)


def _circuit_changes_old(run: Pass) -> QuerySet:
    return CircuitChange.objects.filter(
        created_at__lt=run.days_ago(settings.HOUSEKEEP_CIRCUIT_CHANGE_DAYS)
    )


def _instance_circuit_changes_old(run: Pass) -> QuerySet:
    return InstanceCircuitChange.objects.filter(
        created_at__lt=run.days_ago(settings.HOUSEKEEP_CIRCUIT_CHANGE_DAYS)
    )


def _texts_old(run: Pass) -> QuerySet:
    """Items with text that their feed has not listed for the text age (cited ones included)."""
    cutoff = run.days_ago(settings.HOUSEKEEP_ITEM_BODY_DAYS)
    return Item.objects.filter(last_seen_at__lt=cutoff).exclude(summary="")


def _uncited_batches(rows: QuerySet, run: Pass) -> Iterator[list[int]]:
    """Ids of ``rows`` no brief cites, a batch at a time, walking the ids upward so the cited
    rows (which stay) are read once."""
    after = 0
    while True:
        ids = list(rows.filter(pk__gt=after).order_by("pk").values_list("pk", flat=True)[
            : run.batch_size
        ])  # fmt: skip
        if not ids:
            return
        after = ids[-1]
        uncited = [pk for pk in ids if pk not in run.cited]
        if uncited:
            yield uncited


def texts_pending(run: Pass) -> int:
    return sum(len(ids) for ids in _uncited_batches(_texts_old(run), run))


def texts_clear(run: Pass) -> Iterator[int]:
    """Clear the text of old uncited items; the statement re-checks the age, so an item its feed
    listed again meanwhile keeps its text."""
    rows = _texts_old(run)
    for ids in _uncited_batches(rows, run):
        yield rows.filter(pk__in=ids).update(summary="")


def _feeds_stale(run: Pass) -> Q:
    """Feeds RSSHub has not answered for within the item row age."""
    cutoff = run.days_ago(settings.HOUSEKEEP_ITEM_ROW_DAYS)
    never = Q(last_fetched_at__isnull=True, created_at__lt=cutoff)
    return Q(last_fetched_at__lt=cutoff) | never


def _items_of_stale_feeds(run: Pass) -> QuerySet:
    return Item.objects.filter(feed__in=Feed.objects.filter(_feeds_stale(run)))


def items_pending(run: Pass) -> int:
    return sum(len(ids) for ids in _uncited_batches(_items_of_stale_feeds(run), run))


def items_prune(run: Pass) -> Iterator[int]:
    """Delete uncited items of feeds no longer fetched; the delete re-checks the feed, so a feed
    fetched again meanwhile keeps its keys."""
    rows = _items_of_stale_feeds(run)
    for ids in _uncited_batches(rows, run):
        deleted, _ = rows.filter(pk__in=ids).delete()
        yield deleted


def _feeds_empty(run: Pass) -> QuerySet:
    has_items = Exists(Item.objects.filter(feed=OuterRef("pk")))
    return Feed.objects.filter(_feeds_stale(run)).filter(~has_items)


def feeds_pending(run: Pass) -> int:
    return _feeds_empty(run).count()


def feeds_prune(run: Pass) -> Iterator[int]:
    yield from delete_in_batches(_feeds_empty(run), run.batch_size)


def fetching_steps() -> list[Step]:
    return [
        by_age("fetching_fetchattempt", _attempts_old),
        by_age("catalog_circuitchange", _circuit_changes_old),
        by_age("fetching_instancecircuitchange", _instance_circuit_changes_old),
        by_age("fetching_pathfetch", _path_answers_old),
        Step("fetching_item (text cleared)", texts_pending, texts_clear),
        Step("fetching_item", items_pending, items_prune),
        Step("fetching_feed", feeds_pending, feeds_prune),
    ]
