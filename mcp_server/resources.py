"""Resources: each of the caller's briefs as markdown (``brief://{id}``), and the catalog's
namespaces (``catalog://namespaces``)."""

import json
import re

import mcp_types as types
from django.db.models import Count, Q

from briefs.markdown import brief_markdown_export, citations_read
from briefs.models import Brief
from briefs.selectors import brief_of, briefs_recent
from catalog.models import Platform
from mcp_server.caller import Caller

BRIEF_URI_TEMPLATE = "brief://{id}"
BRIEF_URI_RE = re.compile(r"brief://([1-9][0-9]{0,18})\Z")
NAMESPACES_URI = "catalog://namespaces"
RECENT_BRIEFS = 20
MARKDOWN = "text/markdown"
JSON = "application/json"


class ResourceUnknown(LookupError):
    """No resource has this URI (or not for this caller)."""


def brief_uri(brief_id: int) -> str:
    return BRIEF_URI_TEMPLATE.format(id=brief_id)


NAMESPACES_RESOURCE = types.Resource(
    uri=NAMESPACES_URI,
    name="namespaces",
    title="The catalog's namespaces",
    description="Every platform (RSSHub namespace) of the route catalog: namespace, name, "
    "language, whether it is enabled, and its count of routes.",
    mime_type=JSON,
)
BRIEF_TEMPLATE = types.ResourceTemplate(
    uri_template=BRIEF_URI_TEMPLATE,
    name="brief",
    title="A brief as markdown",
    description="One of your briefs as markdown: the question, the answer with [n] citations, "
    "then its sources with their links and times.",
    mime_type=MARKDOWN,
)


def resources_listed(*, caller: Caller) -> list[types.Resource]:
    """The namespaces, and the caller's latest briefs."""
    briefs = [
        types.Resource(
            uri=brief_uri(b.pk),
            name=f"brief-{b.pk}",
            title=b.question[:200],
            description=f"{b.status}, asked {b.created_at.isoformat()}",
            mime_type=MARKDOWN,
        )
        for b in briefs_recent(owner=caller.user, limit=RECENT_BRIEFS)
    ]
    return [NAMESPACES_RESOURCE, *briefs]


def _namespaces_json() -> str:
    platforms = (
        Platform.objects.order_by("namespace")
        .annotate(
            route_count=Count("routes"), enabled_count=Count("routes", Q(routes__enabled=True))
        )
        .values("namespace", "name", "lang", "enabled", "route_count", "enabled_count")
    )
    rows = [
        {
            "namespace": p["namespace"],
            "name": p["name"],
            "lang": p["lang"],
            "enabled": p["enabled"],
            "routes": p["route_count"],
            "routes_enabled": p["enabled_count"],
        }
        for p in platforms
    ]
    return json.dumps(rows, ensure_ascii=False)


def _brief_markdown(*, caller: Caller, brief_id: int) -> str:
    brief = brief_of(owner=caller.user, brief_id=brief_id)
    body = brief.body if brief.is_finished else f"(This brief is {brief.status}: not ready yet.)"
    return brief_markdown_export(
        question=brief.question, body=body, citations=citations_read(brief.citations)
    )


def resource_read(*, caller: Caller, uri: str) -> types.ReadResourceResult:
    """The resource's contents; ``ResourceUnknown`` for a URI this server does not serve, and
    ``Brief.DoesNotExist`` for a brief that is not the caller's."""
    if uri == NAMESPACES_URI:
        text, mime = _namespaces_json(), JSON
    elif match := BRIEF_URI_RE.match(uri):
        text, mime = _brief_markdown(caller=caller, brief_id=int(match.group(1))), MARKDOWN
    elif uri.startswith("brief://"):
        raise Brief.DoesNotExist(uri)
    else:
        raise ResourceUnknown(uri)
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
    )
