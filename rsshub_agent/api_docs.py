"""The browsable API docs page (Swagger UI).

Swagger UI's files come from drf-spectacular-sidecar (served as static files: the app must be
in ``INSTALLED_APPS``), never from a CDN, so the page works without internet access. The page
runs under the Content-Security-Policy (no inline script or style): its start-up script is
served from a URL of its own (the split view) and the page's few styles from a static file.
"""

from drf_spectacular.views import SpectacularSwaggerSplitView

from rsshub_agent.api_schema import TITLE


class ApiDocsView(SpectacularSwaggerSplitView):
    title = TITLE
    template_name = "api/swagger_ui.html"

    @staticmethod
    def _swagger_ui_resource(filename: str) -> str:
        from django.templatetags.static import static

        return static(f"drf_spectacular_sidecar/swagger-ui-dist/{filename}")

    @staticmethod
    def _swagger_ui_favicon() -> str:
        from django.templatetags.static import static

        return static("drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32.png")
