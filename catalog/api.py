"""The catalog's API: the route catalog, read-only for everyone, with route health; staff may
enable, disable and prefer routes (the same services the admin uses). Reads go through
``catalog.selectors``, states through ``catalog.health``."""

from django.db.models import Count, Q
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response

from api.base import (
    ApiView,
    QuerySerializer,
    api_schema,
    errors,
    page_of,
    paginated,
    query_params,
    search_field,
    text_param,
)
from catalog.health import CircuitState, HealthState
from catalog.models import Route, UpstreamState
from catalog.search import SearchQuestionInvalid, search_catalog
from catalog.selectors import platforms_filtered, routes_filtered
from catalog.services import routes_prefer, routes_set_enabled

RANKED_LIMIT = 100


# --- Platforms ----------------------------------------------------------------------------------


class PlatformOut(serializers.Serializer):
    namespace = serializers.CharField()
    name = serializers.CharField()
    url = serializers.CharField()
    lang = serializers.CharField()
    categories = serializers.ListField(child=serializers.CharField())
    description = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    enabled = serializers.BooleanField()
    priority = serializers.IntegerField()
    upstream_state = serializers.ChoiceField(choices=UpstreamState.choices)
    routes = serializers.IntegerField(source="route_count")
    routes_enabled = serializers.IntegerField(source="route_enabled_count")


class PlatformListApi(ApiView):
    class FilterSerializer(QuerySerializer):
        search = search_field()
        enabled = serializers.BooleanField(required=False)
        lang = text_param(max_length=20)
        category = text_param(max_length=100)

    @api_schema(
        operation_id="catalog_platforms_list",
        parameters=[FilterSerializer],
        responses={200: page_of("PlatformPage", PlatformOut), **errors(400, 404)},
        summary="Platforms (RSSHub namespaces) with their route counts",
    )
    def get(self, request):
        params = query_params(self.FilterSerializer, request)
        platforms = platforms_filtered(**params).annotate(
            route_count=Count("routes"),
            route_enabled_count=Count("routes", filter=Q(routes__enabled=True)),
        )
        return paginated(request, self, platforms, PlatformOut)


# --- Routes -------------------------------------------------------------------------------------


class RouteHealthOut(serializers.Serializer):
    state = serializers.ChoiceField(choices=HealthState.values, source="health_state")
    attempts = serializers.IntegerField()
    successes = serializers.IntegerField()
    success_rate = serializers.FloatField(allow_null=True)
    consecutive_failures = serializers.IntegerField()
    latency_ms = serializers.FloatField(allow_null=True)
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    last_success_at = serializers.DateTimeField(allow_null=True)
    last_error_class = serializers.CharField()
    newest_item_at = serializers.DateTimeField(allow_null=True)
    circuit = serializers.ChoiceField(choices=CircuitState.choices)
    circuit_open_until = serializers.DateTimeField(allow_null=True)


class RouteOut(serializers.Serializer):
    id = serializers.IntegerField()
    platform = serializers.CharField(source="platform.namespace")
    path = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    example = serializers.CharField()
    url = serializers.CharField()
    categories = serializers.ListField(child=serializers.CharField())
    parameters = serializers.DictField(help_text="Parameter name -> description.")
    require_config = serializers.BooleanField()
    require_browser = serializers.BooleanField()
    anti_crawler = serializers.BooleanField()
    nsfw = serializers.BooleanField()
    enabled = serializers.BooleanField()
    priority = serializers.IntegerField()
    upstream_state = serializers.ChoiceField(choices=UpstreamState.choices)
    health = RouteHealthOut(source="*")


class RouteListApi(ApiView):
    class FilterSerializer(QuerySerializer):
        platform = text_param(max_length=100, help_text="A platform's namespace.")
        enabled = serializers.BooleanField(required=False)
        health = serializers.ChoiceField(choices=HealthState.values, required=False)
        search = search_field(help_text="A substring of the path, name or description.")
        q = search_field(help_text="Relevance search, as the agent ranks routes; best first.")

    @api_schema(
        operation_id="catalog_routes_list",
        parameters=[FilterSerializer],
        responses={200: page_of("RoutePage", RouteOut), **errors(400, 404)},
        summary="Routes with their health; filter by platform, state and health; search",
    )
    def get(self, request):
        params = query_params(self.FilterSerializer, request)
        question = params.pop("q", "")
        ranked = _relevance_ranked(question) if question else None
        routes = routes_filtered(**params, ranked=ranked).select_related("platform")
        return paginated(request, self, routes, RouteOut)


def _relevance_ranked(question: str) -> list[int]:
    """Route ids for a relevance search, best first, as the agent ranks them."""
    try:
        hits = search_catalog(question, limit=RANKED_LIMIT).routes
    except SearchQuestionInvalid as exc:
        raise serializers.ValidationError({"q": [str(exc)]}) from None
    return [hit.route_id for hit in hits]


class RouteDetailApi(ApiView):
    @api_schema(
        operation_id="catalog_routes_retrieve",
        responses={200: RouteOut, **errors(404)},
        summary="One route with its health",
    )
    def get(self, request, route_id: int):
        route = Route.objects.select_related("platform").get(pk=route_id)
        return Response(RouteOut(route).data)


class StaffOnly(IsAdminUser):
    message = "Only staff may change the catalog."


class RouteCurateApi(ApiView):
    """Staff only: ``action`` is set per URL (enable, disable, prefer)."""

    permission_classes = [IsAuthenticated, StaffOnly]
    action: str = ""

    @api_schema(
        request=None,
        responses={200: RouteOut, **errors(404)},
        summary="Staff: change a route's curation",
    )
    def post(self, request, route_id: int):
        route = Route.objects.only("id").get(pk=route_id)
        if self.action == "prefer":
            routes_prefer(route_ids=[route.pk])
        else:
            routes_set_enabled(route_ids=[route.pk], enabled=self.action == "enable")
        route = Route.objects.select_related("platform").get(pk=route.pk)
        return Response(RouteOut(route).data)


class RouteEnableApi(RouteCurateApi):
    action = "enable"


class RouteDisableApi(RouteCurateApi):
    action = "disable"


class RoutePreferApi(RouteCurateApi):
    action = "prefer"
