"""Fixtures for housekeeping: a route with health counters of its own."""

import pytest

from catalog.models import Platform, Route


@pytest.fixture
def route(db) -> Route:
    platform = Platform.objects.create(namespace="housekeeping-test", name="Housekeeping test")
    return Route.objects.create(
        platform=platform,
        key="/a",
        path="/housekeeping-test/a",
        name="a",
        attempts=7,
        successes=5,
        consecutive_failures=2,
    )
