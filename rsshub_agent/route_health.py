"""The route health page, for staff: every tried route's health (``fetching.health_selectors``),
RSSHub's egress, and the housekeeping card. It shows what several apps hold, so the project puts
it together, as it does the status endpoint (``rsshub_agent.api_status``)."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from catalog.forms import RouteHealthFilterForm
from fetching import health_selectors
from fetching.egress import egress_outage_everywhere
from housekeeping.selectors import housekeeping_status


@login_required
@require_GET
def route_health(request: HttpRequest) -> HttpResponse:
    """Staff only: every tried route's health, with charts of the last days."""
    if not request.user.is_staff:
        raise PermissionDenied
    form = RouteHealthFilterForm(request.GET or None)
    filters = form.cleaned_data if form.is_valid() else {}
    filtered = bool(filters.get("state") or filters.get("q"))
    routes = health_selectors.routes_for_health(
        state=filters.get("state", ""), text=filters.get("q", "")
    )
    page = Paginator(routes, health_selectors.ROUTES_PER_PAGE).get_page(request.GET.get("page"))
    series = health_selectors.health_series(route_ids=[r.pk for r in page.object_list])
    overall = (
        health_selectors.health_series(route_ids=None).get(None) or health_selectors.series_empty()
    )
    on_instances = health_selectors.instance_health_by_route([r.pk for r in page.object_list])
    rows = [
        (route, series.get(route.pk) or health_selectors.series_empty(), on_instances.get(route.pk))
        for route in page.object_list
    ]
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "rows": rows,
        "summary": health_selectors.health_summary(),
        "overall": overall,
        "changes": health_selectors.circuit_changes_recent(routes=routes if filtered else None),
        "filtered": filtered,
        "egress_outage": egress_outage_everywhere(),
        "days": health_selectors.HEALTH_DAYS,
        "query": query.urlencode(),
        **_housekeeping_context(),
    }
    return render(request, "catalog/route_health.html", context)


def _housekeeping_context() -> dict:
    """The housekeeping card: each growing table with what the last run removed from it."""
    status = housekeeping_status()
    removed = (status["last_run"] or {}).get("removed") or {}
    tables = [{**size, "removed": removed.get(size["table"])} for size in status["tables"]]
    return {"housekeeping_run": status["last_run"], "housekeeping_tables": tables}
