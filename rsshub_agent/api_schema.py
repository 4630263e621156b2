"""The published OpenAPI schema: its settings and its generator.

Kept apart from the docs view: ``SPECTACULAR_SETTINGS`` names the generator, and drf-spectacular
imports it while defining its own views, so this module must not import them.
"""

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.settings import patched_settings

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


class ApiSchemaGenerator(SchemaGenerator):
    """The published schema: the v1 paths, with this API's settings.

    Also ``SPECTACULAR_SETTINGS["DEFAULT_GENERATOR_CLASS"]``, so that ``check --deploy`` builds
    exactly the schema clients get, rather than one of every view under /api/ (the docs page,
    the schema view and the JSON 404 are not API operations and have no schema of their own).
    """

    def __init__(self, *args, patterns: list | None = None, **kwargs) -> None:
        if patterns is None:
            from rsshub_agent.api_v1_urls import schema_patterns  # imports every endpoint

            patterns = schema_patterns
        super().__init__(*args, patterns=patterns, **kwargs)

    def get_schema(self, request=None, public: bool = False) -> dict:
        with patched_settings(schema_settings()):
            return super().get_schema(request=request, public=public)
