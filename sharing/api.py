"""A brief's share link in the API: ``GET``, ``POST`` and ``DELETE /api/v1/briefs/{id}/share``.

Only the caller's own briefs: another user's brief is the same 404 as a missing one.
"""

from django.urls import reverse
from rest_framework import serializers, status
from rest_framework.response import Response

from api.base import ApiView, api_schema, errors
from sharing import selectors, services
from sharing.models import BriefShare


class ShareOut(serializers.Serializer):
    url = serializers.URLField(help_text="Opens the brief read-only, without signing in.")
    created_at = serializers.DateTimeField()


def share_data(request, share: BriefShare) -> dict:
    url = request.build_absolute_uri(reverse("shared-brief", args=[share.secret]))
    return {"url": url, "created_at": share.created_at}


class BriefShareApi(ApiView):
    @api_schema(
        operation_id="briefs_share_retrieve",
        responses={200: ShareOut, **errors(404)},
        summary="The brief's live share link (404 when it has none)",
    )
    def get(self, request, brief_id: int):
        share = selectors.brief_share_live(owner=request.user, brief_id=brief_id)
        if share is None:
            selectors.brief_owned(owner=request.user, brief_id=brief_id)
            raise BriefShare.DoesNotExist
        return Response(ShareOut(share_data(request, share)).data)

    @api_schema(
        operation_id="briefs_share_create",
        request=None,
        responses={200: ShareOut, 201: ShareOut, **errors(400, 404)},
        summary="Share a finished brief: 201 with a new link, 200 with the live one",
    )
    def post(self, request, brief_id: int):
        share, created = services.brief_share_create(owner=request.user, brief_id=brief_id)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(ShareOut(share_data(request, share)).data, status=code)

    @api_schema(
        operation_id="briefs_share_destroy",
        responses={204: None, **errors(404)},
        summary="Revoke the brief's share link: it opens nothing from now on",
    )
    def delete(self, request, brief_id: int):
        services.brief_share_revoke(owner=request.user, brief_id=brief_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
