"""Briefs: create, list, read, follow steps, cancel, rerun, delete. Only the caller's own:
every queryset here is filtered by owner, so another user's brief is a 404 on every verb."""

from datetime import datetime

from django.db.models import Q, QuerySet
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response

from briefs.api.base import (
    BODY_ERRORS,
    MAX_ID,
    ApiView,
    BriefCreateThrottle,
    InputSerializer,
    QuerySerializer,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    api_schema,
    errors,
    page_of,
    paginated,
    query_params,
    search_field,
)
from briefs.api.outcome import NeedOut, outcome_field, reason_field
from briefs.models import QUESTION_MAX_LENGTH, Brief, BriefOutcome, BriefStatus
from briefs.quotas import brief_create_limited, brief_rerun_limited
from briefs.services import brief_cancel, brief_delete
from briefs.steps import steps_after

STEPS_LIMIT = 500
LIST_COLUMNS = (
    "id", "status", "outcome", "outcome_reason", "question", "mode", "offline", "follow_up_of_id",
    "error", "created_at", "started_at", "finished_at",
)  # fmt: skip


def own_briefs(user) -> QuerySet[Brief]:
    return Brief.objects.filter(owner=user)


def brief_urls(request, brief_id: int) -> dict[str, str]:
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


class StepOut(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField(help_text="One of the kinds documented in briefs.steps.")
    payload = serializers.DictField()
    created_at = serializers.DateTimeField()


class BriefCreatedOut(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=BriefStatus.choices)
    urls = BriefUrlsOut()
    steps = StepOut(
        many=True,
        help_text="The steps so far: the queued brief's first, `brief_queued`, before any "
        "worker has it. Follow the others after its seq.",
    )


def brief_created_response(request, brief: Brief) -> Response:
    data = {
        "id": brief.pk,
        "status": brief.status,
        "urls": brief_urls(request, brief.pk),
        "steps": steps_after(brief_id=brief.pk),
    }
    return Response(BriefCreatedOut(data).data, status=status.HTTP_202_ACCEPTED)


class BriefListOut(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=BriefStatus.choices)
    outcome = serializers.SerializerMethodField()
    reason = serializers.SerializerMethodField()
    question = serializers.CharField()
    mode = serializers.CharField()
    offline = serializers.BooleanField()
    follow_up_of = serializers.IntegerField(source="follow_up_of_id", allow_null=True)
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.SerializerMethodField()

    @extend_schema_field(outcome_field())
    def get_outcome(self, brief: Brief) -> str | None:
        return brief.outcome or None

    @extend_schema_field(reason_field())
    def get_reason(self, brief: Brief) -> str | None:
        return brief.outcome_reason or None

    def get_url(self, brief: Brief) -> str:
        request = self.context["request"]
        return request.build_absolute_uri(reverse("api-brief-detail", args=[brief.pk]))


@extend_schema_field(
    {
        "type": "string",
        "format": "question",
        "minLength": 1,
        "maxLength": QUESTION_MAX_LENGTH,
        "description": (
            f"1 to {QUESTION_MAX_LENGTH} characters once NFC-normalised and trimmed; no control "
            "characters but tab and newline, no private-use characters."
        ),
    }
)
class QuestionField(StrictCharField):
    """Checked by ``briefs.services.question_clean``, which names what is wrong. Its rule is
    the custom format ``question``: a JSON Schema pattern cannot exclude private-use characters
    outside the Basic Multilingual Plane in a form generators and validators agree on."""


class BriefCollectionApi(ApiView):
    """``/briefs``: GET lists, POST creates. One path is one DRF view, so the two operations
    share a class; each keeps its own nested serializer."""

    class BriefCreateInputSerializer(InputSerializer):
        question = QuestionField(
            max_length=QUESTION_MAX_LENGTH, trim_whitespace=False, allow_blank=True
        )
        follow_up_of = StrictIntegerField(
            required=False, allow_null=True, min_value=1, max_value=MAX_ID
        )
        offline = StrictBooleanField(required=False, default=False)
        refresh = StrictBooleanField(
            required=False,
            default=False,
            help_text="Fetch every source anew, even one fetched within its freshness window.",
        )

    class FilterSerializer(QuerySerializer):
        status = serializers.ChoiceField(choices=BriefStatus.choices, required=False)
        outcome = serializers.ChoiceField(choices=BriefOutcome.choices, required=False)
        created_after = serializers.DateTimeField(required=False)
        created_before = serializers.DateTimeField(required=False)
        search = search_field()

    def get_throttles(self):
        throttles = super().get_throttles()
        if self.request.method == "POST":
            throttles.append(BriefCreateThrottle())
        return throttles

    @api_schema(
        operation_id="briefs_create",
        request=BriefCreateInputSerializer,
        responses={202: BriefCreatedOut, **errors(*BODY_ERRORS)},
        summary="Ask a question: a queued brief, run by a worker",
    )
    def post(self, request):
        serializer = self.BriefCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        brief = brief_create_limited(owner=request.user, **serializer.validated_data)
        return brief_created_response(request, brief)

    @api_schema(
        operation_id="briefs_list",
        parameters=[FilterSerializer],
        responses={200: page_of("BriefPage", BriefListOut), **errors(400, 404)},
        summary="The caller's briefs, newest first; filter by status, outcome, time and text",
    )
    def get(self, request):
        params = query_params(self.FilterSerializer, request)
        briefs = briefs_filtered(own_briefs(request.user), **params).only(*LIST_COLUMNS)
        return paginated(request, self, briefs, BriefListOut)


def briefs_filtered(
    briefs: QuerySet[Brief],
    *,
    status: str | None = None,
    outcome: str | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    search: str = "",
    **_page,
) -> QuerySet[Brief]:
    if status:
        briefs = briefs.filter(status=status)
    if outcome:
        briefs = briefs.filter(outcome=outcome)
    if created_after:
        briefs = briefs.filter(created_at__gte=created_after)
    if created_before:
        briefs = briefs.filter(created_at__lt=created_before)
    if search:
        briefs = briefs.filter(
            Q(question__icontains=search) | Q(query__icontains=search) | Q(body__icontains=search)
        )
    return briefs.order_by("-created_at", "-id")


# --- Detail -------------------------------------------------------------------------------------


class CitationOut(serializers.Serializer):
    n = serializers.IntegerField()
    title = serializers.CharField()
    link = serializers.CharField()
    path = serializers.CharField(help_text="The RSSHub path the item was fetched from.")
    source = serializers.CharField()
    published_at = serializers.DateTimeField(allow_null=True)
    item_id = serializers.IntegerField(allow_null=True)


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
    body = serializers.CharField(help_text="Markdown with [n] citations.")
    citations = CitationOut(many=True)
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


def brief_detail_data(request, brief: Brief) -> dict:
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
        "body": brief.body,
        "citations": [_citation(c) for c in brief.citations or [] if isinstance(c, dict)],
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


class BriefDetailApi(ApiView):
    @api_schema(
        operation_id="briefs_retrieve",
        responses={200: BriefDetailOut, **errors(404)},
        summary="One brief: status, answer, citations, coverage, usage, timings",
    )
    def get(self, request, brief_id: int):
        brief = own_briefs(request.user).get(pk=brief_id)
        return Response(BriefDetailOut(brief_detail_data(request, brief)).data)

    @api_schema(
        operation_id="briefs_destroy",
        responses={204: None, **errors(404)},
        summary="Delete a brief (a running one is cancelled first)",
    )
    def delete(self, request, brief_id: int):
        brief_delete(owner=request.user, brief_id=brief_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Steps, cancel, rerun -----------------------------------------------------------------------


class StepsOut(serializers.Serializer):
    brief_status = serializers.ChoiceField(choices=BriefStatus.choices)
    finished = serializers.BooleanField(help_text="The brief is finished and no step follows.")
    next_after = serializers.IntegerField(help_text="Pass as `after` to get the next steps.")
    steps = StepOut(many=True)


class BriefStepsApi(ApiView):
    class FilterSerializer(serializers.Serializer):
        after = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**31)
        limit = serializers.IntegerField(
            required=False, default=STEPS_LIMIT, min_value=1, max_value=STEPS_LIMIT
        )

    @api_schema(
        operation_id="briefs_steps_list",
        parameters=[FilterSerializer],
        responses={200: StepsOut, **errors(400, 404)},
        summary="A brief's run steps after seq `after`, oldest first",
    )
    def get(self, request, brief_id: int):
        params = query_params(self.FilterSerializer, request)
        brief = own_briefs(request.user).only("id", "status", "step_seq").get(pk=brief_id)
        steps = steps_after(brief_id=brief.pk, after=params["after"], limit=params["limit"])
        next_after = steps[-1].seq if steps else params["after"]
        data = {
            "brief_status": brief.status,
            "finished": brief.is_finished and next_after >= brief.step_seq,
            "next_after": next_after,
            "steps": steps,
        }
        return Response(StepsOut(data).data)


class BriefStateOut(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=BriefStatus.choices)
    cancel_requested = serializers.BooleanField()


class BriefCancelApi(ApiView):
    @api_schema(
        operation_id="briefs_cancel",
        request=None,
        responses={200: BriefStateOut, **errors(404)},
        summary="Cancel a brief: at once when queued, at the next step when running",
    )
    def post(self, request, brief_id: int):
        brief = brief_cancel(owner=request.user, brief_id=brief_id)
        return Response(BriefStateOut(brief).data)


class BriefRerunApi(ApiView):
    throttle_classes = [*ApiView.throttle_classes, BriefCreateThrottle]

    @api_schema(
        operation_id="briefs_rerun",
        request=None,
        responses={202: BriefCreatedOut, **errors(404)},
        summary="Ask a brief's question again: a new brief (counts against the quota)",
    )
    def post(self, request, brief_id: int):
        brief = brief_rerun_limited(owner=request.user, brief_id=brief_id)
        return brief_created_response(request, brief)
