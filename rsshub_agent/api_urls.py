"""The integration API under /api/: ``v1/`` (``rsshub_agent.api_v1_urls``), the OpenAPI schema
and its docs, and the catch-all 404 in the API's error shape.
"""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView

from api.base import NotFoundView
from rsshub_agent.api_docs import ApiDocsView
from rsshub_agent.api_schema import ApiSchemaGenerator
from rsshub_agent.api_v1_urls import v1_urlpatterns

urlpatterns = [
    path("v1/", include(v1_urlpatterns)),
    path(
        "schema/",
        SpectacularAPIView.as_view(
            generator_class=ApiSchemaGenerator,
            authentication_classes=[],
            permission_classes=[],
        ),
        name="api-schema",
    ),
    path("docs/", ApiDocsView.as_view(url_name="api-schema"), name="api-docs"),
    # [\s\S], not ".": a path may hold an encoded newline, and must still get the JSON 404.
    re_path(r"^[\s\S]*$", NotFoundView.as_view(), name="api-not-found"),
]
