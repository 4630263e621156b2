"""The caller's daily quotas over the API (``briefs.quotas`` keeps them)."""

from rest_framework import serializers
from rest_framework.response import Response

from api.base import ApiView, api_schema, errors
from briefs.quotas import quota_state


class QuotaOut(serializers.Serializer):
    day = serializers.DateField()
    resets_at = serializers.DateTimeField()
    briefs_limit = serializers.IntegerField()
    briefs_used = serializers.IntegerField()
    llm_tokens_limit = serializers.IntegerField()
    llm_tokens_used = serializers.IntegerField()


class QuotaApi(ApiView):
    @api_schema(
        operation_id="quota_retrieve",
        responses={200: QuotaOut, **errors()},
        summary="The caller's daily quotas (UTC days) and what is used of them",
    )
    def get(self, request):
        return Response(QuotaOut(quota_state(user_id=request.user.pk)).data)
