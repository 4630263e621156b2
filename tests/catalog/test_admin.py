"""The catalog admin: staff curate platforms and routes; nobody else gets in."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from catalog.models import CircuitChange, CircuitState, Platform, Route
from fetching.models import FetchAttempt

pytestmark = pytest.mark.django_db

ROUTE_LIST = reverse("admin:catalog_route_changelist")
PLATFORM_LIST = reverse("admin:catalog_platform_changelist")


def test_it_requires_login(client):
    response = client.get(ROUTE_LIST)
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_it_refuses_a_signed_in_non_staff_user(client, owner):
    client.force_login(owner)
    response = client.get(ROUTE_LIST)
    assert response.status_code == 302, "a non-staff user must be sent to the admin login"
    assert reverse("admin:login") in response["Location"]


def test_the_route_list_shows_health_columns(staff_client):
    Route.objects.filter(path="/36kr/hot-list/:category?").update(
        attempts=10, successes=7, latency_ms=830, last_error_class="timeout", last_error="slow"
    )
    response = staff_client.get(ROUTE_LIST, {"q": "36kr/hot-list"})
    body = response.content.decode()
    assert response.status_code == 200
    path = "/<wbr>36kr/<wbr>hot-list/<wbr>:category?"  # breaks after slashes only
    for expected in (path, "70%", "830 ms", "timeout: slow", "degraded"):
        assert expected in body, f"route list lacks {expected!r}"


@pytest.fixture
def routes_in_every_state(db):
    """At least one route in each health state and one removed upstream (the snapshot's routes
    are all unknown and present)."""
    paths = iter(Route.objects.order_by("path").values_list("path", flat=True)[:5])
    for fields in (
        {"attempts": 10, "successes": 10},  # healthy
        {"attempts": 10, "successes": 5},  # degraded
        {"attempts": 3, "successes": 1, "consecutive_failures": 2},  # failing
        {"attempts": 3, "consecutive_failures": 3, "circuit": CircuitState.OPEN},
        {"upstream_state": "removed"},
    ):
        Route.objects.filter(path=next(paths)).update(**fields)


# Each filter, and what a route it lists must be (read off the row, not through the filter).
ROUTE_FILTERS = {
    "enabled": ({"enabled__exact": "1"}, lambda r: r.enabled),
    **{
        f"health {state}": ({"health": state}, lambda r, state=state: r.health_state == state)
        for state in ("unknown", "healthy", "degraded", "failing", "open")
    },
    "needs config": ({"require_config__exact": "1"}, lambda r: r.require_config),
    "needs a browser": ({"require_browser__exact": "1"}, lambda r: r.require_browser),
    "anti-crawler": ({"anti_crawler__exact": "1"}, lambda r: r.anti_crawler),
    "nsfw": ({"nsfw__exact": "1"}, lambda r: r.nsfw),
    "category": ({"category": "programming"}, lambda r: "programming" in r.categories),
    "removed upstream": (
        {"upstream_state__exact": "removed"},
        lambda r: r.upstream_state == "removed",
    ),
}


@pytest.mark.usefixtures("routes_in_every_state")
@pytest.mark.parametrize(("params", "fits"), ROUTE_FILTERS.values(), ids=ROUTE_FILTERS.keys())
def test_each_route_filter_lists_exactly_the_routes_that_fit(staff_client, params, fits):
    changelist = staff_client.get(ROUTE_LIST, params).context["cl"]
    every = list(Route.objects.all())
    expected = sum(1 for route in every if fits(route))
    assert 0 < expected < len(every), "the data leaves the filter something to keep and to drop"
    assert changelist.result_count == expected, params
    assert all(fits(route) for route in changelist.result_list), params


def test_the_category_filter_narrows_the_list(staff_client):
    response = staff_client.get(ROUTE_LIST, {"category": "programming", "q": "github"})
    changelist = response.context["cl"]
    assert changelist.result_count > 0
    assert all("programming" in r.categories for r in changelist.result_list)


def test_the_health_filter_finds_an_open_circuit(staff_client):
    Route.objects.filter(path="/zhihu/hot/:category?").update(circuit=CircuitState.OPEN)
    changelist = staff_client.get(ROUTE_LIST, {"health": "open"}).context["cl"]
    assert [r.path for r in changelist.result_list] == ["/zhihu/hot/:category?"]


def run_action(client, action: str, route: Route):
    return client.post(ROUTE_LIST, {"action": action, "_selected_action": [route.pk]}, follow=True)


def test_staff_can_disable_and_enable_a_route(staff_client):
    route = Route.objects.get(path="/36kr/hot-list/:category?")
    staff_client.post(
        ROUTE_LIST,
        {"action": "disable", "_selected_action": [route.pk], "apply": "1", "note": "flaky"},
    )
    route.refresh_from_db()
    assert route.enabled is False
    run_action(staff_client, "enable", route)
    route.refresh_from_db()
    assert route.enabled is True


def test_staff_can_prefer_a_route(staff_client):
    route = Route.objects.get(path="/36kr/hot-list/:category?")
    run_action(staff_client, "prefer", route)
    route.refresh_from_db()
    assert route.priority == 10


def test_resetting_health_closes_the_circuit_and_records_it(staff_client):
    route = Route.objects.get(path="/36kr/hot-list/:category?")
    Route.objects.filter(pk=route.pk).update(
        attempts=5, consecutive_failures=5, circuit=CircuitState.OPEN, last_error_class="timeout"
    )
    run_action(staff_client, "reset_health", route)
    route.refresh_from_db()
    assert (route.attempts, route.consecutive_failures, route.circuit) == (0, 0, "closed")
    change = CircuitChange.objects.get(route=route)
    assert (change.from_state, change.to_state) == ("open", "closed")


def _platform_in_finance(platform: Platform) -> bool:
    return "finance" in platform.categories or any(
        "finance" in route.categories for route in platform.routes.all()
    )


PLATFORM_FILTERS = {
    "disabled": ({"enabled__exact": "0"}, lambda p: not p.enabled),
    "language": ({"lang": "zh-CN"}, lambda p: p.lang == "zh-CN"),
    "category, its own or its routes'": ({"category": "finance"}, _platform_in_finance),
    "present upstream": (
        {"upstream_state__exact": "present"},
        lambda p: p.upstream_state == "present",
    ),
    "search": (
        {"q": "bilibili"},
        lambda p: (
            "bilibili" in f"{p.namespace} {p.name} {p.url} {p.description} {p.aliases}".lower()
        ),
    ),
}


@pytest.mark.parametrize(("params", "fits"), PLATFORM_FILTERS.values(), ids=PLATFORM_FILTERS.keys())
def test_each_platform_filter_lists_exactly_the_platforms_that_fit(staff_client, params, fits):
    Platform.objects.filter(namespace__in=["zhihu", "36kr"]).update(enabled=False)
    Platform.objects.filter(namespace="ithome").update(upstream_state="removed")
    changelist = staff_client.get(PLATFORM_LIST, params).context["cl"]
    every = list(Platform.objects.prefetch_related("routes"))
    expected = sum(1 for platform in every if fits(platform))
    assert 0 < expected < len(every), "the data leaves the filter something to keep and to drop"
    assert changelist.result_count == expected, params
    assert all(fits(platform) for platform in changelist.result_list), params


def test_staff_edit_aliases_as_text(staff_client):
    platform = Platform.objects.get(namespace="ithome")
    url = reverse("admin:catalog_platform_change", args=[platform.pk])
    page = staff_client.get(url)
    assert page.status_code == 200
    assert "IT之家" in page.content.decode(), "the starting aliases are shown for editing"
    form = {
        "enabled": "on",
        "priority": "3",
        "aliases": "IT之家, 软媒\n IT之家",
        "note": "curated",
        "routes-TOTAL_FORMS": "0",
        "routes-INITIAL_FORMS": "0",
    }
    response = staff_client.post(url, form)
    assert response.status_code == 302, response.content.decode()[:500]
    platform.refresh_from_db()
    assert platform.aliases == ["IT之家", "软媒"], "aliases are split, stripped and de-duplicated"
    assert platform.priority == 3


def outage_world():
    """Four routes with dirty health; attempts an hour ago, during the outage, or a day ago."""
    now = timezone.now()
    names = ("failed", "failed_before", "succeeded", "excused")
    github = Route.objects.filter(platform__namespace="github").order_by("path")
    routes = dict(zip(names, github[:4], strict=True))
    Route.objects.filter(id__in=[r.pk for r in routes.values()]).update(
        attempts=9, successes=1, consecutive_failures=8, circuit=CircuitState.OPEN,
        circuit_open_until=now + timedelta(hours=1), last_error_class="upstream_error",
    )  # fmt: skip
    for name, outcome, when in [
        ("failed", "upstream_error", now - timedelta(hours=1)),
        ("failed_before", "upstream_error", now - timedelta(days=1)),
        ("succeeded", "ok", now - timedelta(hours=1)),
        ("excused", "rsshub_unavailable", now - timedelta(hours=1)),
    ]:
        FetchAttempt.objects.create(
            path=f"/{name}", route=routes[name], outcome=outcome, created_at=when
        )
    return routes, now


def outage_post(client, routes, **form):
    data = {"action": "reset_health_after_outage", "_selected_action": [r.pk for r in routes]}
    return client.post(ROUTE_LIST, {**data, **form}, follow=True)


def test_the_outage_repair_asks_for_the_time_range_first(staff_client):
    routes, _ = outage_world()
    response = outage_post(staff_client, routes.values())
    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="outage-form"' in body and 'type="datetime-local"' in body
    assert all(f'value="{r.pk}"' in body for r in routes.values()), "the selection is kept"
    assert Route.objects.filter(attempts=0, circuit=CircuitState.CLOSED).count() > 0
    assert Route.objects.get(pk=routes["failed"].pk).attempts == 9, "reset before applying"


def test_the_outage_repair_resets_only_routes_that_failed_in_the_range(staff_client):
    routes, now = outage_world()
    start, end = now - timedelta(hours=2), now - timedelta(minutes=30)
    response = outage_post(
        staff_client, routes.values(), apply="1",
        start=start.strftime("%Y-%m-%dT%H:%M"), end=end.strftime("%Y-%m-%dT%H:%M"),
    )  # fmt: skip
    assert response.status_code == 200
    assert "Health reset on 1 route that failed" in response.content.decode()
    health = {
        name: Route.objects.values_list("attempts", "circuit").get(pk=route.pk)
        for name, route in routes.items()
    }
    assert health == {
        "failed": (0, CircuitState.CLOSED),
        "failed_before": (9, CircuitState.OPEN),  # its failure is outside the range
        "succeeded": (9, CircuitState.OPEN),  # nothing failed in the range
        "excused": (9, CircuitState.OPEN),  # never counted in the first place
    }
    change = CircuitChange.objects.get(route=routes["failed"])
    assert change.to_state == CircuitState.CLOSED and change.reason.startswith("outage repair")


def test_the_outage_repair_refuses_a_range_that_ends_before_it_starts(staff_client):
    routes, now = outage_world()
    response = outage_post(
        staff_client, routes.values(), apply="1",
        start=now.strftime("%Y-%m-%dT%H:%M"),
        end=(now - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M"),
    )  # fmt: skip
    assert "The end of the range must be after its start." in response.content.decode()
    assert Route.objects.get(pk=routes["failed"].pk).attempts == 9
