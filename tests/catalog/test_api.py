"""The catalog through the API: read-only with health, filters and search; staff curation."""

import pytest
from django.utils import timezone

from catalog.models import CircuitState, Platform, Route
from catalog.services import PREFERRED_PRIORITY
from tests.api.conftest import api, api_for, api_settings, error_of, staff_api

pytestmark = pytest.mark.django_db
# The API's clients and settings, as every API test has them (tests/api/conftest.py).
FIXTURES = (api, api_for, api_settings, staff_api)

ROUTES = "/api/v1/catalog/routes"
PLATFORMS = "/api/v1/catalog/platforms"


def a_route(**health) -> Route:
    route = Route.objects.filter(enabled=True, platform__namespace="github").order_by("path")[0]
    if health:
        Route.objects.filter(pk=route.pk).update(**health)
        route.refresh_from_db()
    return route


def test_it_lists_platforms_with_route_counts(api):
    body = api.get(PLATFORMS, {"search": "github", "page_size": 100}).json()
    github = next(p for p in body["results"] if p["namespace"] == "github")
    assert github["routes"] == Route.objects.filter(platform__namespace="github").count()
    assert github["routes_enabled"] <= github["routes"]


def test_it_filters_platforms(api):
    Platform.objects.filter(namespace="github").update(enabled=False)
    body = api.get(PLATFORMS, {"enabled": "false", "page_size": 100}).json()
    assert "github" in [p["namespace"] for p in body["results"]]
    assert all(p["enabled"] is False for p in body["results"])


def test_it_lists_routes_with_health(api):
    route = a_route(attempts=10, successes=9, last_error_class="timeout", last_error="x key=s3cr3t")
    body = api.get(ROUTES, {"platform": "github", "search": route.path}).json()
    row = next(r for r in body["results"] if r["id"] == route.pk)
    assert row["health"]["state"] == "healthy"
    assert row["health"]["success_rate"] == 0.9
    assert row["health"]["last_error_class"] == "timeout"
    assert "s3cr3t" not in str(body), "a route's raw last error reached the API"


@pytest.mark.parametrize(
    ("state", "health"),
    [
        ("open", {"circuit": CircuitState.OPEN, "attempts": 5, "consecutive_failures": 5}),
        ("failing", {"attempts": 5, "successes": 4, "consecutive_failures": 1}),
        ("degraded", {"attempts": 10, "successes": 5}),
        ("healthy", {"attempts": 10, "successes": 10}),
    ],
)
def test_it_filters_routes_by_health_as_the_model_names_it(api, state, health):
    route = a_route(**health)
    assert route.health_state == state
    body = api.get(ROUTES, {"health": state, "page_size": 100}).json()
    assert [r["id"] for r in body["results"]] == [route.pk]


def test_unknown_health_is_every_untried_route(api):
    a_route(attempts=1, successes=1)
    count = api.get(ROUTES, {"health": "unknown"}).json()["count"]
    assert count == Route.objects.filter(attempts=0, circuit=CircuitState.CLOSED).count()


def test_it_ranks_routes_by_relevance(api):
    body = api.get(ROUTES, {"q": "github trending"}).json()
    assert body["results"], "the relevance search found nothing"
    assert body["results"][0]["platform"] == "github"


def test_it_refuses_a_search_with_control_characters(api):
    response = api.get(ROUTES, {"q": "github\x01"})
    assert response.status_code == 400
    assert "q" in error_of(response)["extra"]["fields"]


def test_it_shows_one_route(api):
    route = a_route()
    body = api.get(f"{ROUTES}/{route.pk}").json()
    assert body["path"] == route.path and body["platform"] == "github"


def test_an_unknown_route_is_a_404(api):
    response = api.get(f"{ROUTES}/{Route.objects.order_by('-pk')[0].pk + 1}")
    assert response.status_code == 404
    assert error_of(response)["message"] == "No such route."


@pytest.mark.parametrize("action", ["enable", "disable", "prefer"])
def test_only_staff_may_curate(api, action):
    route = a_route()
    response = api.post(f"{ROUTES}/{route.pk}/{action}")
    assert response.status_code == 403, response.content
    assert error_of(response)["message"] == "Only staff may change the catalog."
    assert Route.objects.get(pk=route.pk).updated_at == route.updated_at


def test_staff_disable_and_enable_a_route(staff_api):
    route = a_route()
    body = staff_api.post(f"{ROUTES}/{route.pk}/disable").json()
    assert body["enabled"] is False and not Route.objects.get(pk=route.pk).enabled
    body = staff_api.post(f"{ROUTES}/{route.pk}/enable").json()
    assert body["enabled"] is True and Route.objects.get(pk=route.pk).enabled


def test_staff_prefer_a_route(staff_api):
    route = a_route()
    before = timezone.now()
    body = staff_api.post(f"{ROUTES}/{route.pk}/prefer").json()
    assert body["priority"] == PREFERRED_PRIORITY
    assert Route.objects.get(pk=route.pk).updated_at >= before


def test_the_catalog_is_read_only_for_everyone(staff_api):
    response = staff_api.generic("DELETE", f"{ROUTES}/{a_route().pk}")
    assert response.status_code == 405


@pytest.mark.parametrize("value", ["", "maybe", "2"])
def test_it_refuses_a_filter_that_is_not_a_boolean(api, value):
    response = api.get(ROUTES, {"enabled": value})
    assert response.status_code == 400, response.content
    assert "enabled" in error_of(response)["extra"]["fields"]
