"""Briefs: create, list, read, follow steps, cancel, rerun, delete. Only the caller's own:
every queryset here is filtered by owner, so another user's brief is a 404 on every verb."""

from django.urls import reverse
from django.utils import translation
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import (
    BODY_ERRORS,
    MAX_ID,
    ApiView,
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
from briefs.admission import brief_ask, brief_rerun
from briefs.api.brief_detail import BriefDetailOut, BriefUrlsOut, brief_detail_data, brief_urls
from briefs.api.outcome import DELTA_HELP, WATCH_HELP, DeltaOut, outcome_field, reason_field
from briefs.language import BRIEF_LANGUAGES, owner_language
from briefs.models import Brief, BriefOutcome, BriefStatus
from briefs.selectors import briefs_of, briefs_search
from briefs.services import brief_cancel, brief_delete
from briefs.steps import steps_after
from catalog.search_terms import MAX_QUESTION_CHARS

STEPS_LIMIT = 500
LIST_COLUMNS = (
    "id", "status", "outcome", "outcome_reason", "question", "mode", "offline", "follow_up_of_id",
    "error", "created_at", "started_at", "finished_at", "watch_id", "delta",
)  # fmt: skip


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


def brief_created_response(request: Request, brief: Brief) -> Response:
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
    watch = serializers.IntegerField(source="watch_id", allow_null=True, help_text=WATCH_HELP)
    delta = DeltaOut(source="delta_payload", allow_null=True, help_text=DELTA_HELP)
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
        "maxLength": MAX_QUESTION_CHARS,
        "description": (
            f"1 to {MAX_QUESTION_CHARS} characters once NFC-normalised and trimmed; no control "
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
            max_length=MAX_QUESTION_CHARS, trim_whitespace=False, allow_blank=True
        )
        follow_up_of = StrictIntegerField(
            required=False, allow_null=True, min_value=1, max_value=MAX_ID
        )
        offline = StrictBooleanField(required=False, default=False)
        language = serializers.ChoiceField(
            choices=BRIEF_LANGUAGES,
            required=False,
            help_text="The brief's language; without it, the default brief language of your "
            "profile, else the question's (English when the question shows neither).",
        )
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

    @api_schema(
        operation_id="briefs_create",
        request=BriefCreateInputSerializer,
        responses={202: BriefCreatedOut, **errors(*BODY_ERRORS)},
        summary="Ask a question: a queued brief, run by a worker",
    )
    def post(self, request):
        serializer = self.BriefCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        # Left out, the language is the reader's default, as on the dashboard.
        data["language"] = data.get("language") or owner_language(request.user)
        brief = brief_ask(owner=request.user, interface=translation.get_language(), **data)
        return brief_created_response(request, brief)

    @api_schema(
        operation_id="briefs_list",
        parameters=[FilterSerializer],
        responses={200: page_of("BriefPage", BriefListOut), **errors(400, 404)},
        summary="The caller's briefs, newest first; filter by status, outcome, time and text",
    )
    def get(self, request):
        params = query_params(self.FilterSerializer, request)
        briefs = briefs_search(
            owner=request.user,
            text=params.get("search", ""),
            status=params.get("status", ""),
            outcome=params.get("outcome", ""),
            created_after=params.get("created_after"),
            created_before=params.get("created_before"),
        ).only(*LIST_COLUMNS)
        return paginated(request, self, briefs, BriefListOut)


# --- Detail -------------------------------------------------------------------------------------
class BriefDetailApi(ApiView):
    @api_schema(
        operation_id="briefs_retrieve",
        responses={200: BriefDetailOut, **errors(404)},
        summary="One brief: status, answer, citations, coverage, usage, timings",
    )
    def get(self, request, brief_id: int):
        brief = briefs_of(request.user).get(pk=brief_id)
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
        brief = briefs_of(request.user).only("id", "status", "step_seq").get(pk=brief_id)
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
    @api_schema(
        operation_id="briefs_rerun",
        request=None,
        responses={202: BriefCreatedOut, **errors(404)},
        summary="Ask a brief's question again: a new brief (counts against the quota)",
    )
    def post(self, request, brief_id: int):
        brief = brief_rerun(owner=request.user, brief_id=brief_id)
        return brief_created_response(request, brief)
