"""Forced refreshes (``refresh``) have their own, smaller budget: one forced fetch of a path per
``FORCED_REFRESH_PATH_SECONDS`` across all users (``fetching.flight``), and
``FORCED_REFRESHES_PER_HOUR`` per user (``briefs.admission``). Past either, the path is served
from the freshness window and the result says so. Against a stand-in RSSHub on 127.0.0.1; time
moves by moving the stored times back."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.utils import timezone

from briefs.admission import brief_ask
from catalog.models import Route
from fetching.models import PathFetch
from fetching.services import fetch_path_sync, fetch_paths
from tests.feeds import feed_reply

pytestmark = pytest.mark.django_db

PATH = "/test/forced"


@pytest.fixture
def test_route(db) -> Route:
    return Route.objects.get(path="/test/:id/:params?")


def test_a_second_forced_refresh_within_the_period_is_served_from_the_window(
    rsshub_at_server, test_route
):
    rsshub_at_server.route(PATH, feed_reply(5))
    first = fetch_path_sync(PATH, refresh=True)
    second = fetch_path_sync(PATH, refresh=True)
    assert len(rsshub_at_server.requests_to(PATH)) == 1
    assert (first.refresh_limited, first.fetch_age_s) == (False, None)
    assert second.refresh_limited, "the result does not say the refresh was refused"
    assert second.fetch_age_s is not None and second.ok


def test_after_the_period_a_forced_refresh_fetches_again(rsshub_at_server, test_route, settings):
    rsshub_at_server.route(PATH, feed_reply(5))
    fetch_path_sync(PATH, refresh=True)
    past = timezone.now() - timedelta(seconds=settings.FORCED_REFRESH_PATH_SECONDS + 1)
    PathFetch.objects.filter(path=PATH).update(forced_at=past)
    again = fetch_path_sync(PATH, refresh=True)
    assert len(rsshub_at_server.requests_to(PATH)) == 2
    assert not again.refresh_limited and again.fetch_age_s is None


def test_another_path_has_its_own_period(rsshub_at_server, test_route):
    rsshub_at_server.route(PATH, feed_reply(5))
    rsshub_at_server.route("/test/other", feed_reply(3))
    fetch_path_sync(PATH, refresh=True)
    other = fetch_path_sync("/test/other", refresh=True)
    assert not other.refresh_limited
    assert len(rsshub_at_server.requests_to("/test/other")) == 1


def test_a_hundred_forced_refreshes_by_five_users_reach_rsshub_once(
    rsshub_at_server, test_route, settings
):
    settings.FORCED_REFRESHES_PER_HOUR = 100  # only the per-path budget is at stake here
    settings.API_CREATE_THROTTLE_RATE = "1000/minute"
    settings.API_BRIEFS_PER_DAY = 1000
    rsshub_at_server.route(PATH, feed_reply(5))
    users = [get_user_model().objects.create_user(f"reader{n}") for n in range(5)]
    briefs = []
    for _ in range(20):
        for user in users:
            briefs.append(brief_ask(owner=user, question="news", offline=True, refresh=True))
    assert all(b.refresh for b in briefs), "the users' own budgets refused some"

    async def round_of(batch):
        return await asyncio.gather(
            *(fetch_paths([PATH], brief_id=b.pk, refresh=b.refresh) for b in batch)
        )

    results = []
    for start in range(0, len(briefs), 5):
        results += [r for [r] in async_to_sync(round_of)(briefs[start : start + 5])]
    assert len(rsshub_at_server.requests_to(PATH)) == 1
    assert sum(r.refresh_limited for r in results) == 99
    assert all(r.ok for r in results)
