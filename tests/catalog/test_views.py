"""The route health page: staff only, each tried route with its charts, filters, the egress
banner, and a bounded number of queries whatever the page holds."""

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from catalog.models import CircuitChange, CircuitState, Route
from fetching.instances import instances_read
from fetching.models import FetchAttempt, RSSHubEgress
from tests.briefs.test_views import Tags, page

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def rsshub_nowhere(settings):
    settings.RSSHUB_URL = "http://127.0.0.1:9"  # nothing listens
    instances_read()  # seeded before any page counts its queries


def test_route_health_is_for_staff(owner_client):
    assert owner_client.get(reverse("route-health")).status_code == 403


def attempts_for(route: Route, outcomes: list[str], *, hours_ago: int = 1) -> None:
    at = timezone.now() - timedelta(hours=hours_ago)
    FetchAttempt.objects.bulk_create(
        FetchAttempt(
            path=route.path, route=route, outcome=o, latency_ms=100 + i * 50, created_at=at
        )
        for i, o in enumerate(outcomes)
    )


def test_route_health_shows_each_tried_route_visually(staff_client):
    route = Route.objects.get(path="/test/:id/:params?")
    Route.objects.filter(pk=route.pk).update(
        attempts=10,
        successes=6,
        latency_ms=420,
        last_error_class="timeout",
        last_error="no answer <b>in</b> 20 s",
        circuit=CircuitState.OPEN,
        last_attempt_at=timezone.now(),
        consecutive_failures=3,
    )
    attempts_for(route, ["ok", "ok", "timeout"], hours_ago=2)
    attempts_for(route, ["ok", "upstream_error"], hours_ago=50)
    CircuitChange.objects.create(route=route, from_state="closed", to_state="open", reason="3 x")
    body = page(staff_client.get(reverse("route-health")))
    tags = Tags(body)
    row = tags.find("tr", data_route=str(route.pk))
    assert row, "the tried route has a row"
    assert "RSSHub Test" in body and "<code>test</code>" in body
    assert reverse("admin:catalog_route_change", args=[route.pk]) in body
    assert reverse("admin:catalog_platform_change", args=[route.platform_id]) in body
    assert "60%" in body and "420 ms" in body
    assert "no answer &lt;b&gt;in&lt;/b&gt; 20 s" in body
    assert body.count('class="spark spark-success"') >= 2, "overall and per-route success charts"
    assert 'class="spark spark-latency"' in body
    assert '<rect x="0.0" y="27" width="4.0" height="1" class="tone-none"/>' in body, (
        "a bucket without attempts is a faint tick"
    )
    assert 'class="tone-warn"/>' in body, "2 of 3 fetches ok: an amber column"
    assert 'class="bar"' in body
    assert "Recent circuit changes" in body
    assert Route.objects.filter(attempts=0).first().path not in body, "untried routes are left out"


def test_route_health_says_since_when_rsshub_cannot_reach_the_internet(staff_client, settings):
    assert 'id="egress-banner"' not in page(staff_client.get(reverse("route-health")))
    since = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    RSSHubEgress.objects.create(base_url=settings.RSSHUB_URL.rstrip("/"), down_since=since)
    body = page(staff_client.get(reverse("route-health")))
    banner = Tags(body).find("section", id="egress-banner")
    assert banner, "no egress banner on the route health page"
    assert "RSSHub cannot reach the internet since" in body
    assert 'datetime="2026-11-30T08:00:00+00:00"' in body
    assert "not counted against routes" in body


def test_route_health_filters_by_state(staff_client):
    healthy = Route.objects.get(path="/test/:id/:params?")
    Route.objects.filter(pk=healthy.pk).update(attempts=10, successes=10)
    failing = Route.objects.exclude(platform__namespace="test").first()
    Route.objects.filter(pk=failing.pk).update(attempts=4, successes=0, consecutive_failures=4)
    body = page(staff_client.get(reverse("route-health"), {"state": "failing"}))
    assert f'data-route="{failing.pk}"' in body and f'data-route="{healthy.pk}"' not in body


def test_route_health_runs_bounded_queries(staff_client, django_assert_max_num_queries):
    def queries(n: int) -> int:
        routes = list(Route.objects.order_by("pk")[:n])
        Route.objects.filter(pk__in=[r.pk for r in routes]).update(attempts=3, successes=2)
        for route in routes:
            attempts_for(route, ["ok", "timeout"])
        # 15: the nav's unread count; the per-instance column reads the page's routes on every
        # instance in one query; the egress banner reads the instances, then their egress rows.
        with django_assert_max_num_queries(15) as captured:
            assert staff_client.get(reverse("route-health")).status_code == 200
        return len(captured)

    assert queries(2) == queries(30)


def tried(path: str, **fields) -> Route:
    route = Route.objects.get(path=path)
    Route.objects.filter(pk=route.pk).update(**({"attempts": 4, "successes": 2} | fields))
    return route


def test_a_filter_that_matches_nothing_says_so(staff_client):
    tried("/test/:id/:params?")
    body = page(staff_client.get(reverse("route-health"), {"q": "no-such-route-anywhere"}))
    assert "No route matches these filters." in body
    assert "No route has been tried yet." not in body


def test_with_no_route_tried_and_no_filter_it_says_none_was_tried(staff_client):
    body = page(staff_client.get(reverse("route-health")))
    assert "No route has been tried yet." in body
    assert "No route matches these filters." not in body


def test_recent_circuit_changes_follow_the_filter(staff_client):
    shown = tried("/test/:id/:params?", circuit=CircuitState.OPEN)
    other = tried("/36kr/hot-list/:category?", circuit=CircuitState.OPEN)
    for route in (shown, other):
        CircuitChange.objects.create(route=route, from_state="closed", to_state="open")

    def changed(params: dict) -> set[str]:
        body = page(staff_client.get(reverse("route-health"), params))
        section = body.split('id="circuit-changes"', 1)[1] if "circuit-changes" in body else ""
        hrefs = {reverse("admin:catalog_route_change", args=[r.pk]): r.path for r in (shown, other)}
        return {path for href, path in hrefs.items() if f'href="{href}"' in section}

    assert changed({}) == {shown.path, other.path}
    assert changed({"q": "36kr"}) == {other.path}
    assert changed({"q": "no-such-route-anywhere"}) == set()


def test_the_path_column_has_room_and_breaks_only_at_slashes(staff_client):
    tried("/36kr/hot-list/:category?")
    body = page(staff_client.get(reverse("route-health")))
    assert '<td class="route-cell">' in body
    assert "/<wbr>36kr/<wbr>hot-list/<wbr>:category?" in body
    css = (Path(settings.BASE_DIR) / "static" / "dashboard" / "dashboard.css").read_text()
    assert re.search(r"table\.health \.route-cell \{ min-width: 240px; \}", css)
