"""The caller's webhooks: register (the secret is shown once), list, read, delete, and each
one's delivery log. ``briefs.webhooks`` documents events, signatures and delivery."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response

from api.base import (
    BODY_ERRORS,
    ApiView,
    InputSerializer,
    QuerySerializer,
    StrictCharField,
    api_schema,
    errors,
    page_of,
    paginated,
    query_params,
)
from briefs.models import DeliveryStatus, Webhook, WebhookDelivery
from briefs.webhooks import (
    DESCRIPTION_MAX_LENGTH,
    EVENT_BRIEF_FINISHED,
    URL_MAX_LENGTH,
    webhook_create,
    webhook_delete,
)

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser


def own_webhooks(user: AbstractBaseUser) -> QuerySet[Webhook]:
    return Webhook.objects.filter(owner=user)


class WebhookOut(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    description = serializers.CharField()
    active = serializers.BooleanField()
    events = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    def get_events(self, webhook) -> list[str]:
        return [EVENT_BRIEF_FINISHED]


class WebhookCreatedOut(WebhookOut):
    secret = serializers.CharField(
        help_text="The HMAC-SHA256 signing secret. Shown only in this answer: keep it."
    )


@extend_schema_field(
    {
        "type": "string",
        "format": "uri",
        "maxLength": URL_MAX_LENGTH,
        "pattern": r"^https?://[^\s@/?#]+([/?#]\S*)?$",
        "description": "http(s); its host must resolve to public addresses only.",
    }
)
class WebhookUrlField(StrictCharField):
    """Checked by ``briefs.webhooks``: whether it is accepted also depends on what its host
    resolves to at the time, which no schema can say (a refusal is a 400 naming ``url``)."""


class WebhookCollectionApi(ApiView):
    """``/webhooks``: GET lists, POST registers (one path, one DRF view)."""

    class WebhookCreateInputSerializer(InputSerializer):
        url = WebhookUrlField(max_length=URL_MAX_LENGTH, trim_whitespace=False)
        description = StrictCharField(
            required=False, default="", allow_blank=True, max_length=DESCRIPTION_MAX_LENGTH
        )

    @api_schema(
        operation_id="webhooks_list",
        parameters=[QuerySerializer],
        responses={200: page_of("WebhookPage", WebhookOut), **errors(400, 404)},
        summary="The caller's webhooks",
    )
    def get(self, request):
        query_params(QuerySerializer, request)
        return paginated(request, self, own_webhooks(request.user), WebhookOut)

    @api_schema(
        operation_id="webhooks_create",
        request=WebhookCreateInputSerializer,
        responses={201: WebhookCreatedOut, **errors(*BODY_ERRORS)},
        summary="Register a webhook for brief.finished events (http(s), public addresses)",
    )
    def post(self, request):
        serializer = self.WebhookCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        webhook = webhook_create(owner=request.user, **serializer.validated_data)
        return Response(WebhookCreatedOut(webhook).data, status=status.HTTP_201_CREATED)


class WebhookDetailApi(ApiView):
    @api_schema(
        operation_id="webhooks_retrieve",
        responses={200: WebhookOut, **errors(404)},
        summary="One of the caller's webhooks",
    )
    def get(self, request, webhook_id: int):
        return Response(WebhookOut(own_webhooks(request.user).get(pk=webhook_id)).data)

    @api_schema(
        operation_id="webhooks_destroy",
        responses={204: None, **errors(404)},
        summary="Delete a webhook and its delivery log",
    )
    def delete(self, request, webhook_id: int):
        webhook_delete(owner=request.user, webhook_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveryOut(serializers.Serializer):
    id = serializers.IntegerField()
    event = serializers.CharField()
    event_id = serializers.UUIDField()
    brief_id = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=DeliveryStatus.choices)
    attempts = serializers.IntegerField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    created_at = serializers.DateTimeField()
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    next_attempt_at = serializers.DateTimeField(
        allow_null=True, help_text="When the next attempt is due (pending deliveries)."
    )
    delivered_at = serializers.DateTimeField(allow_null=True)


class WebhookDeliveriesApi(ApiView):
    @api_schema(
        operation_id="webhooks_deliveries_list",
        parameters=[QuerySerializer],
        responses={200: page_of("DeliveryPage", DeliveryOut), **errors(400, 404)},
        summary="A webhook's delivery log, newest first",
    )
    def get(self, request, webhook_id: int):
        query_params(QuerySerializer, request)
        webhook = own_webhooks(request.user).only("id").get(pk=webhook_id)
        deliveries = WebhookDelivery.objects.filter(webhook=webhook).defer("body")
        return paginated(request, self, deliveries, DeliveryOut)
