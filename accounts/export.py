"""A person's data as a zip: their briefs (with citations) and watches, as JSON and markdown.

The JSON of a brief and of a watch is the API's (``briefs.api.brief_detail``,
``watches.api.watch_data``): one shape for a brief wherever it leaves the site. Each brief's
markdown is its export from the page (``briefs.markdown.brief_markdown_export``). Only rows the
user owns are read: every query below filters on them.
"""

from __future__ import annotations

import io
import json
import zipfile

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest

from briefs.api.brief_detail import brief_detail_data
from briefs.markdown import brief_markdown_export, citations_read
from briefs.models import Brief
from watches.api import watch_data
from watches.models import Watch

EXPORT_BATCH = 200


def export_filename(user: AbstractBaseUser) -> str:
    return f"rsshub-agent-{user.get_username()}.zip"


def _json(value) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2) + "\n"


def _watches_markdown(watches: list[Watch]) -> str:
    lines = ["# Watches", ""]
    for w in watches:
        when = w.time_of_day.strftime("%H:%M")
        state = "active" if w.active else "paused"
        lines.append(f"- {' '.join(w.question.split())} — {w.schedule} at {when} {w.timezone}"
                     f" ({state})")  # fmt: skip
    return "\n".join(lines) + "\n"


def account_export(*, user: AbstractBaseUser, request: HttpRequest) -> bytes:
    """The zip's bytes: ``briefs.json``, ``briefs/<id>.md``, ``watches.json``, ``watches.md``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        briefs = []
        for brief in (
            Brief.objects.filter(owner=user)
            .order_by("created_at", "id")
            .iterator(chunk_size=EXPORT_BATCH)
        ):
            briefs.append(brief_detail_data(request, brief))
            text = brief_markdown_export(
                question=brief.question, body=brief.body, citations=citations_read(brief.citations)
            )
            archive.writestr(f"briefs/{brief.pk}.md", text)
        archive.writestr("briefs.json", _json(briefs))
        watches = list(Watch.objects.filter(owner=user).order_by("created_at", "id"))
        archive.writestr("watches.json", _json([watch_data(request, w) for w in watches]))
        archive.writestr("watches.md", _watches_markdown(watches))
    return buffer.getvalue()
