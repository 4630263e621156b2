"""The OpenAPI schema's settings and the browsable docs page (Swagger UI).

Swagger UI's files come from drf-spectacular-sidecar (served as static files: the app must be
in ``INSTALLED_APPS``), never from a CDN, so the page works without internet access.
"""

from drf_spectacular.views import SpectacularSwaggerView

TITLE = "RSSHub Agent API"
DESCRIPTION = """Ask time-sensitive questions and get cited briefs built from RSSHub feeds.

Authenticate with `Authorization: Bearer <token>` (a token from the dashboard's token page or
`manage.py issue_token`); the dashboard's session cookie works too, with its CSRF token on
writes. Every error has the shape `{"message": "...", "extra": {...}}`; a 400 names each
offending field in `extra.fields`; a 429 carries `Retry-After`.

Webhooks receive `brief.finished` events signed with HMAC-SHA256 over
`"{X-RSSHub-Agent-Timestamp}.{raw body}"` in `X-RSSHub-Agent-Signature: sha256=<hex>`.
"""


def schema_settings() -> dict:
    """drf-spectacular settings for this API's schema (also fit for ``SPECTACULAR_SETTINGS``)."""
    return {
        "TITLE": TITLE,
        "DESCRIPTION": DESCRIPTION,
        "VERSION": "1.0.0",
        "COMPONENT_SPLIT_REQUEST": True,
        "SCHEMA_PATH_PREFIX": r"/api/v1",
        "PATH_CONVERTER_OVERRIDES": {
            "api_id": {"type": "integer", "minimum": 1, "maximum": 999_999_999_999_999_999}
        },
        "ENUM_NAME_OVERRIDES": {
            "BriefStatusEnum": "briefs.models.BriefStatus",
            "DeliveryStatusEnum": "briefs.models.DeliveryStatus",
        },
    }


class ApiDocsView(SpectacularSwaggerView):
    title = TITLE

    @staticmethod
    def _swagger_ui_resource(filename: str) -> str:
        from django.templatetags.static import static

        return static(f"drf_spectacular_sidecar/swagger-ui-dist/{filename}")

    @staticmethod
    def _swagger_ui_favicon() -> str:
        from django.templatetags.static import static

        return static("drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32.png")
