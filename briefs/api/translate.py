"""``POST /briefs/{id}/translate``: a brief told again in another language, from its stored
items, without fetching (``briefs.translation``)."""

from rest_framework import serializers

from api.base import BODY_ERRORS, ApiView, InputSerializer, api_schema, errors
from briefs.api.briefs import BriefCreatedOut, brief_created_response
from briefs.language import BRIEF_LANGUAGES
from briefs.translation import brief_translate


class BriefTranslateApi(ApiView):
    class BriefTranslateInputSerializer(InputSerializer):
        language = serializers.ChoiceField(
            choices=BRIEF_LANGUAGES, help_text="The language to tell the brief in."
        )

    @api_schema(
        operation_id="briefs_translate",
        request=BriefTranslateInputSerializer,
        responses={202: BriefCreatedOut, **errors(404, *BODY_ERRORS)},
        summary="Tell a finished brief in another language, without fetching again",
        description="The brief's retelling in `language`: a new brief written from the items, "
        "coverage and time of this one (offline, its own texts in that language; with a model, "
        "its sentences written in it and foreign titles translated). A second request gets the "
        "same retelling, and a brief already in `language` is given back as it is. Does not "
        "count against the daily quota.",
    )
    def post(self, request, brief_id: int):
        serializer = self.BriefTranslateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        brief = brief_translate(
            owner=request.user, brief_id=brief_id, language=serializer.validated_data["language"]
        )
        return brief_created_response(request, brief)
