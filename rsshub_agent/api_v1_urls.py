"""The API's v1 paths, one view per path: each app's endpoints, put together here.

Ids in paths are 1 to 18 digits: anything else (negative, zero, garbage, past a bigint) is not a
route, and so the catch-all's 404 in the API's error shape (``rsshub_agent.api_urls``) rather
than a database error.
"""

from django.urls import include, path, register_converter

from briefs.api import briefs, quota, webhooks
from briefs.api.translate import BriefTranslateApi
from briefs.tokens import api as tokens
from catalog import api as catalog_api
from rsshub_agent import api_status as status
from sharing.api import BriefShareApi
from watches.api_urls import watch_paths


class IdConverter:
    regex = "[1-9][0-9]{0,17}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "api_id")

v1_urlpatterns = [
    path("briefs", briefs.BriefCollectionApi.as_view(), name="api-briefs"),
    path("briefs/<api_id:brief_id>", briefs.BriefDetailApi.as_view(), name="api-brief-detail"),
    path("briefs/<api_id:brief_id>/steps", briefs.BriefStepsApi.as_view(), name="api-brief-steps"),
    path(
        "briefs/<api_id:brief_id>/cancel",
        briefs.BriefCancelApi.as_view(),
        name="api-brief-cancel",
    ),
    path("briefs/<api_id:brief_id>/rerun", briefs.BriefRerunApi.as_view(), name="api-brief-rerun"),
    path(
        "briefs/<api_id:brief_id>/translate",
        BriefTranslateApi.as_view(),
        name="api-brief-translate",
    ),
    path("briefs/<api_id:brief_id>/share", BriefShareApi.as_view(), name="api-brief-share"),
    path("catalog/platforms", catalog_api.PlatformListApi.as_view(), name="api-catalog-platforms"),
    path("catalog/routes", catalog_api.RouteListApi.as_view(), name="api-catalog-routes"),
    path(
        "catalog/routes/<api_id:route_id>",
        catalog_api.RouteDetailApi.as_view(),
        name="api-catalog-route",
    ),
    path(
        "catalog/routes/<api_id:route_id>/enable",
        catalog_api.RouteEnableApi.as_view(),
        name="api-catalog-route-enable",
    ),
    path(
        "catalog/routes/<api_id:route_id>/disable",
        catalog_api.RouteDisableApi.as_view(),
        name="api-catalog-route-disable",
    ),
    path(
        "catalog/routes/<api_id:route_id>/prefer",
        catalog_api.RoutePreferApi.as_view(),
        name="api-catalog-route-prefer",
    ),
    path("webhooks", webhooks.WebhookCollectionApi.as_view(), name="api-webhooks"),
    path(
        "webhooks/<api_id:webhook_id>",
        webhooks.WebhookDetailApi.as_view(),
        name="api-webhook-detail",
    ),
    path(
        "webhooks/<api_id:webhook_id>/deliveries",
        webhooks.WebhookDeliveriesApi.as_view(),
        name="api-webhook-deliveries",
    ),
    path("tokens", tokens.TokenListApi.as_view(), name="api-tokens"),
    path("tokens/<api_id:token_id>", tokens.TokenRevokeApi.as_view(), name="api-token-revoke"),
    path("quota", quota.QuotaApi.as_view(), name="api-quota"),
    path("status", status.StatusApi.as_view(), name="api-status"),
    *watch_paths(),
]

# What the schema documents: the v1 paths, at their full path.
schema_patterns = [path("api/v1/", include(v1_urlpatterns))]
