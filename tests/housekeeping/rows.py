"""Rows of every age: each builder writes what a run would have written that long ago."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from django.utils import timezone

from briefs.models import Brief, BriefStatus, RunStep
from catalog.models import CircuitChange, CircuitState, Route
from fetching.models import Feed, FetchAttempt, Item, Outcome


def ago(days: float) -> datetime:
    return timezone.now() - timedelta(days=days)


def brief_finished(owner, *, days: float, steps: int = 4, citations: list[Item] = ()) -> Brief:
    """A succeeded brief finished ``days`` ago, with a body, its citations and its step log."""
    at = ago(days)
    brief = Brief.objects.create(
        owner=owner,
        question=f"what happened {days} days ago?",
        status=BriefStatus.SUCCEEDED,
        body="Something happened [1].",
        citations=[_citation(n, item) for n, item in enumerate(citations, start=1)],
        coverage={"tried": 1, "succeeded": [{"path": "/test/a", "outcome": "ok", "items": 1}]},
        created_at=at,
        started_at=at,
        finished_at=at,
        step_seq=steps,
    )
    kinds = ["run_started", "fetch_result", "fetch_result", "brief_ready"]
    RunStep.objects.bulk_create(
        RunStep(
            brief=brief,
            seq=seq,
            kind=kinds[(seq - 1) % len(kinds)],
            payload={"outcome": "ok"} if kinds[(seq - 1) % len(kinds)] == "fetch_result" else {},
            created_at=at,
        )
        for seq in range(1, steps + 1)
    )
    return brief


def _citation(n: int, item: Item) -> dict:
    return {
        "n": n,
        "item_id": item.pk,
        "title": item.title,
        "link": item.link,
        "path": item.feed.path,
        "source": "Test",
        "published_at": None,
    }


def feed_at(path: str, *, fetched_days: float | None) -> Feed:
    fetched = None if fetched_days is None else ago(fetched_days)
    return Feed.objects.create(path=path, last_fetched_at=fetched, created_at=ago(400))


def item_at(feed: Feed, guid: str, *, seen_days: float, summary: str = "the item's text") -> Item:
    return Item.objects.create(
        feed=feed,
        guid_hash=hashlib.sha256(guid.encode()).hexdigest(),
        guid=guid,
        title=f"title {guid}",
        link=f"https://example.com/{guid}",
        summary=summary,
        first_seen_at=ago(seen_days),
        last_seen_at=ago(seen_days),
    )


def attempt_at(*, days: float, route: Route | None = None) -> FetchAttempt:
    return FetchAttempt.objects.create(
        path="/test/a", route=route, outcome=Outcome.OK, created_at=ago(days)
    )


def circuit_change_at(route: Route, *, days: float) -> CircuitChange:
    return CircuitChange.objects.create(
        route=route,
        from_state=CircuitState.CLOSED,
        to_state=CircuitState.OPEN,
        created_at=ago(days),
    )
