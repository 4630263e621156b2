"""Counts read right in English and Chinese: one route, two routes; one item, five items."""

import pytest
from django.contrib.admin.sites import site
from django.test import RequestFactory
from django.utils import translation

from briefs.models import RunStep
from briefs.templatetags.steps import step_text
from catalog.admin import RouteAdmin
from catalog.models import Route

pytestmark = pytest.mark.django_db

ROUTE_LIST = "/admin/catalog/route/"


def text(kind: str, language: str = "en", **payload) -> str:
    with translation.override(language):
        return str(step_text(RunStep(kind=kind, payload=payload)))


def test_a_fetch_of_one_item_says_item():
    one = text("fetch_result", path="/a", outcome="ok", items_new=1, items_seen=0, latency_ms=5)
    many = text("fetch_result", path="/a", outcome="ok", items_new=2, items_seen=3, latency_ms=5)
    assert "1 item (1 new)" in one
    assert "5 items (2 new)" in many


def test_a_brief_ready_counts_citations_and_items_separately():
    one = text("brief_ready", outcome="answered", citations=1, items=1)
    many = text("brief_ready", outcome="answered", citations=3, items=5)
    assert "1 citation from 1 item" in one
    assert "3 citations from 5 items" in many
    assert "从 5 条内容中引用了 3 条" in text("brief_ready", "zh-hans", citations=3, items=5)


def test_a_run_with_a_budget_of_one_step():
    assert "budget of 1 step (" in text("run_started", mode="offline", budget=1, attempt=1)
    assert "budget of 8 steps" in text("run_started", mode="offline", budget=8, attempt=1)


ADMIN_MESSAGES = {
    "en": ["1 route enabled.", "2 routes enabled.", "Health reset on 1 route."],
    "zh-hans": ["已启用 1 条路由。", "已启用 2 条路由。", "已重置 1 条路由的健康状态。"],
}


@pytest.mark.parametrize("language", ADMIN_MESSAGES)
def test_the_admin_says_how_many_routes_changed(staff, language):
    routes = list(Route.objects.order_by("pk")[:2])
    admin = RouteAdmin(Route, site)
    sent: list[str] = []
    admin.message_user = lambda request, message, *a, **k: sent.append(str(message))
    request = RequestFactory().post(ROUTE_LIST)
    request.user = staff
    both = Route.objects.filter(pk__in=[r.pk for r in routes])
    with translation.override(language):
        both.update(enabled=False)  # the count is of the routes that changed
        admin.enable(request, Route.objects.filter(pk=routes[0].pk))
        both.update(enabled=False)
        admin.enable(request, both)
        admin.reset_health(request, Route.objects.filter(pk=routes[0].pk))
    assert sent == ADMIN_MESSAGES[language]
