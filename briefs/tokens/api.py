"""The caller's own API tokens over the API: list and revoke.

Tokens are created only on the dashboard's token page and by ``manage.py issue_token``: a
token cannot mint more tokens, so revoking a leaked one is enough to shut it out.
"""

from django.utils import timezone
from rest_framework import serializers, status
from rest_framework.response import Response

from api.base import (
    ApiView,
    QuerySerializer,
    api_schema,
    errors,
    page_of,
    paginated,
    query_params,
)
from briefs.tokens.service import token_revoke, tokens_of


class TokenOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The first characters of the token.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    expired = serializers.SerializerMethodField()
    current = serializers.SerializerMethodField(help_text="The token of this request.")

    def get_expired(self, token) -> bool:
        return token.expires_at <= timezone.now()

    def get_current(self, token) -> bool:
        auth = self.context["request"].auth
        return getattr(auth, "pk", None) == token.pk


class TokenListApi(ApiView):
    @api_schema(
        operation_id="tokens_list",
        parameters=[QuerySerializer],
        responses={200: page_of("TokenPage", TokenOut), **errors(400, 404)},
        summary="The caller's API tokens that are not revoked (secrets are never shown again)",
    )
    def get(self, request):
        query_params(QuerySerializer, request)
        return paginated(request, self, tokens_of(request.user), TokenOut)


class TokenRevokeApi(ApiView):
    @api_schema(
        operation_id="tokens_destroy",
        responses={204: None, **errors(404)},
        summary="Revoke one of the caller's tokens (it may be the one in use)",
    )
    def delete(self, request, token_id: int):
        token_revoke(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
