"""One brief as the API shows it: its URLs, and its detail with the JSON columns in a fixed
shape (a queued brief has empty coverage and usage; older rows may lack keys)."""

from django.urls import reverse
from rest_framework import serializers
from rest_framework.request import Request

from briefs.agreements import tables_read
from briefs.api.outcome import (
    DELTA_HELP,
    WATCH_HELP,
    DeltaOut,
    NeedOut,
    outcome_field,
    reason_field,
)
from briefs.models import Brief, BriefStatus


def brief_urls(request: Request, brief_id: int) -> dict[str, str]:
    ws_scheme = "wss" if request.is_secure() else "ws"
    return {
        "self": request.build_absolute_uri(reverse("api-brief-detail", args=[brief_id])),
        "steps": request.build_absolute_uri(reverse("api-brief-steps", args=[brief_id])),
        "websocket": f"{ws_scheme}://{request.get_host()}/ws/briefs/{brief_id}/",
    }


class BriefUrlsOut(serializers.Serializer):
    self = serializers.URLField()
    steps = serializers.URLField()
    websocket = serializers.CharField(help_text="ws(s):// URL streaming the brief's steps.")


class CitationOut(serializers.Serializer):
    n = serializers.IntegerField()
    title = serializers.CharField()
    link = serializers.CharField()
    path = serializers.CharField(help_text="The RSSHub path the item was fetched from.")
    source = serializers.CharField()
    published_at = serializers.DateTimeField(allow_null=True)
    item_id = serializers.IntegerField(allow_null=True)
    title_translated = serializers.CharField(
        help_text="The title in the brief's language when the item's is another and a model "
        'translated it; "" otherwise (offline, or the title is already in it).'
    )


class CoverageRowOut(serializers.Serializer):
    path = serializers.CharField()
    outcome = serializers.CharField()
    ok = serializers.BooleanField()
    items = serializers.IntegerField()
    attempts = serializers.IntegerField()
    message = serializers.CharField()
    fetch_age_s = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Set when no request was made: the answer of a fetch this many seconds old.",
    )


class CoverageOut(serializers.Serializer):
    tried = serializers.ListField(child=serializers.CharField())
    succeeded = CoverageRowOut(many=True)
    failed = CoverageRowOut(many=True)


class NodeUsageOut(serializers.Serializer):
    calls = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    cached_tokens = serializers.IntegerField()


class UsageOut(serializers.Serializer):
    llm_calls = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    nodes = serializers.DictField(child=NodeUsageOut())
    fallbacks = serializers.ListField(child=serializers.CharField())
    claims_dropped = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Sentences of the model's brief removed by the writer contract, by reason.",
    )
    steps = serializers.IntegerField()
    budget = serializers.IntegerField(allow_null=True)


class FallbackOut(serializers.Serializer):
    node = serializers.CharField()
    reason = serializers.CharField()


class WindowOut(serializers.Serializer):
    label = serializers.CharField()
    start = serializers.DateTimeField(allow_null=True)
    end = serializers.DateTimeField(allow_null=True)


class AgreedOut(serializers.Serializer):
    kind = serializers.CharField(help_text='"number", "date" or "actor".')
    text = serializers.CharField(help_text="The fact as the first outlet stating it writes it.")
    items = serializers.ListField(child=serializers.IntegerField(), help_text="Citations.")


class SaidOut(serializers.Serializer):
    source = serializers.CharField(help_text="The outlet.")
    text = serializers.CharField(help_text="What it says.")
    items = serializers.ListField(child=serializers.IntegerField(), help_text="Its citations.")


class DifferenceOut(serializers.Serializer):
    kind = serializers.CharField(help_text='"number", "date" or "actor".')
    said = SaidOut(many=True)


class StoryTableOut(serializers.Serializer):
    items = serializers.ListField(
        child=serializers.IntegerField(), help_text="The story's citations."
    )
    agreements = AgreedOut(many=True)
    differences = DifferenceOut(many=True)


class BriefDetailOut(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=BriefStatus.choices)
    outcome = outcome_field()
    reason = reason_field()
    needs = NeedOut(
        many=True, help_text="For needs_input: the values to give in a follow-up question."
    )
    mode = serializers.CharField(
        help_text='"model" (every node used the model), "mixed" (some fell back: see '
        '`fallbacks`) or "offline" (none did).'
    )
    fallbacks = FallbackOut(many=True, help_text="The nodes that fell back offline, and why.")
    offline = serializers.BooleanField()
    refresh = serializers.BooleanField(help_text="Asked to fetch every source anew.")
    question = serializers.CharField()
    query = serializers.CharField()
    language = serializers.CharField()
    keywords = serializers.ListField(child=serializers.CharField())
    window = WindowOut()
    follow_up_of = serializers.IntegerField(allow_null=True)
    watch = serializers.IntegerField(allow_null=True, help_text=WATCH_HELP)
    delta = DeltaOut(allow_null=True, help_text=DELTA_HELP)
    body = serializers.CharField(help_text="Markdown with [n] citations.")
    citations = CitationOut(many=True)
    agreements = StoryTableOut(
        many=True,
        help_text="Per story told by two outlets or more: the facts they agree on and where "
        "they differ, with item numbers.",
    )
    coverage = CoverageOut()
    usage = UsageOut()
    timings = serializers.DictField(child=serializers.IntegerField(), help_text="Milliseconds.")
    as_of = serializers.DateTimeField(allow_null=True)
    error = serializers.CharField()
    cancel_requested = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    urls = BriefUrlsOut()


def _int(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _citation(c: dict) -> dict:
    return {
        "n": _int(c.get("n")),
        "title": str(c.get("title") or ""),
        "link": str(c.get("link") or ""),
        "path": str(c.get("path") or ""),
        "source": str(c.get("source") or ""),
        "published_at": c.get("published_at") or None,
        "item_id": c.get("item_id") if isinstance(c.get("item_id"), int) else None,
        "title_translated": str(c.get("title_translated") or ""),
    }


def _coverage_row(row: dict) -> dict:
    return {
        "path": str(row.get("path", "")),
        "outcome": str(row.get("outcome", "")),
        "ok": bool(row.get("ok")),
        "items": _int(row.get("items")),
        "attempts": _int(row.get("attempts")),
        "message": str(row.get("message", "")),
    }


def _usage(usage: dict) -> dict:
    nodes = {
        str(name): {key: _int(totals.get(key)) for key in NodeUsageOut().fields}
        for name, totals in (usage.get("nodes") or {}).items()
        if isinstance(totals, dict)
    }
    return {
        "llm_calls": _int(usage.get("llm_calls")),
        "prompt_tokens": sum(n["prompt_tokens"] for n in nodes.values()),
        "completion_tokens": sum(n["completion_tokens"] for n in nodes.values()),
        "nodes": nodes,
        "fallbacks": [str(f) for f in usage.get("fallbacks") or []],
        "claims_dropped": {
            str(reason): _int(n)
            for reason, n in (
                usage["claims_dropped"].items()
                if isinstance(usage.get("claims_dropped"), dict)
                else []
            )
        },
        "steps": _int(usage.get("steps")),
        "budget": usage.get("budget") if isinstance(usage.get("budget"), int) else None,
    }


def _fallbacks(usage: dict) -> list[dict]:
    rows = usage.get("fallback_reasons")
    rows = rows if isinstance(rows, list) else []
    return [
        {"node": str(r.get("node", "")), "reason": str(r.get("reason", ""))}
        for r in rows
        if isinstance(r, dict)
    ]


def brief_detail_data(request: Request, brief: Brief) -> dict:
    """The detail view of a brief, with the JSON columns in a fixed shape (a queued brief has
    empty coverage and usage; older rows may lack keys)."""
    coverage = brief.coverage or {}
    return {
        "id": brief.pk,
        "status": brief.status,
        **brief.outcome_payload(),
        "mode": brief.mode,
        "fallbacks": _fallbacks(brief.usage or {}),
        "offline": brief.offline,
        "refresh": brief.refresh,
        "question": brief.question,
        "query": brief.query,
        "language": brief.language,
        "keywords": [str(k) for k in brief.keywords or []],
        "window": {
            "label": brief.window_label,
            "start": brief.window_start,
            "end": brief.window_end,
        },
        "follow_up_of": brief.follow_up_of_id,
        "watch": brief.watch_id,
        "delta": brief.delta_payload(),
        "body": brief.body,
        "citations": [_citation(c) for c in brief.citations or [] if isinstance(c, dict)],
        "agreements": tables_read(brief.agreements),
        "coverage": {
            "tried": [str(p) for p in coverage.get("tried") or []],
            "succeeded": [_coverage_row(r) for r in coverage.get("succeeded") or []],
            "failed": [_coverage_row(r) for r in coverage.get("failed") or []],
        },
        "usage": _usage(brief.usage or {}),
        "timings": {str(k): _int(v) for k, v in (brief.timings or {}).items()},
        "as_of": brief.as_of,
        "error": brief.error,
        "cancel_requested": brief.cancel_requested,
        "created_at": brief.created_at,
        "started_at": brief.started_at,
        "finished_at": brief.finished_at,
        "urls": brief_urls(request, brief.pk),
    }
