"""The caller's watches: create, list, read, change, delete, run now. Every queryset here is
filtered by owner, so another user's watch is a 404 on every verb. ``watches.services`` checks
the input and names the offending field (a 400)."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response

from api.base import (
    BODY_ERRORS,
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
)
from briefs.api.briefs import QuestionField
from catalog.search_terms import MAX_QUESTION_CHARS
from sharing.models import secret_hint
from watches.models import Schedule, Watch
from watches.schedules import ZONE_NAME_MAX_LENGTH
from watches.selectors import watch_of, watches_of
from watches.services import (
    watch_create,
    watch_delete,
    watch_feed_rotate,
    watch_run_now,
    watch_update,
)

TIME_HELP = 'Local time "HH:MM" (24-hour) of a daily or weekly run; hourly runs use its minute.'
WEEKDAY_HELP = "ISO weekday of a weekly run: 1 (Monday) to 7 (Sunday); null otherwise."
ZONE_HELP = "IANA time zone of the schedule, such as Asia/Shanghai (default UTC)."


@extend_schema_field(
    {
        "type": "string",
        "pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$",
        "example": "08:00",
        "description": TIME_HELP,
    }
)
class TimeTextField(StrictCharField):
    """Checked by ``watches.services.time_clean``."""


@extend_schema_field(
    {
        "type": "string",
        "minLength": 1,
        "maxLength": ZONE_NAME_MAX_LENGTH,
        "example": "Asia/Shanghai",
        "description": ZONE_HELP + " One of the names of the IANA time zone database.",
    }
)
class ZoneNameField(StrictCharField):
    """Checked by ``watches.services.timezone_clean`` against the zone database."""


def watch_data(request, watch: Watch, *, feed_secret: str = "") -> dict:
    """The watch as the API shows it; ``feed_url`` only in the answer that made the address."""
    feed_url = feed_secret and request.build_absolute_uri(reverse("watch-feed", args=[feed_secret]))
    return {
        "id": watch.pk,
        "question": watch.question,
        "schedule": watch.schedule,
        "time": watch.time_of_day.strftime("%H:%M"),
        "weekday": watch.weekday,
        "timezone": watch.timezone,
        "active": watch.active,
        "offline": watch.offline,
        "notify_email": watch.notify_email,
        "notify_only_new": watch.notify_only_new,
        "failing": watch.failing,
        "no_data_streak": watch.no_data_streak,
        "last_run_at": watch.last_run_at,
        "next_run_at": watch.next_run_at if watch.active else None,
        "created_at": watch.created_at,
        "updated_at": watch.updated_at,
        "feed_url": feed_url or None,
        "feed_hint": secret_hint(watch.feed_hint) if watch.feed_digest else None,
        "urls": {
            "self": request.build_absolute_uri(reverse("api-watch-detail", args=[watch.pk])),
            "run": request.build_absolute_uri(reverse("api-watch-run", args=[watch.pk])),
            "rotate_feed": request.build_absolute_uri(
                reverse("api-watch-rotate-feed", args=[watch.pk])
            ),
            "page": request.build_absolute_uri(reverse("watch-detail", args=[watch.pk])),
        },
    }


class WatchUrlsOut(serializers.Serializer):
    self = serializers.URLField()
    run = serializers.URLField(help_text="POST to run the watch now.")
    rotate_feed = serializers.URLField(help_text="POST to give the feed a new secret URL.")
    page = serializers.URLField(help_text="The watch's dashboard page and history.")


class WatchOut(serializers.Serializer):
    id = serializers.IntegerField()
    question = serializers.CharField()
    schedule = serializers.ChoiceField(choices=Schedule.choices)
    time = serializers.CharField(help_text=TIME_HELP)
    weekday = serializers.IntegerField(allow_null=True, help_text=WEEKDAY_HELP)
    timezone = serializers.CharField(help_text=ZONE_HELP)
    active = serializers.BooleanField(help_text="false: paused, it does not run.")
    offline = serializers.BooleanField()
    notify_email = serializers.BooleanField()
    notify_only_new = serializers.BooleanField(
        help_text="Notify only when a run found something new."
    )
    failing = serializers.BooleanField(help_text="Its last runs in a row ended no_data.")
    no_data_streak = serializers.IntegerField()
    last_run_at = serializers.DateTimeField(allow_null=True)
    next_run_at = serializers.DateTimeField(allow_null=True, help_text="null while paused.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    feed_url = serializers.URLField(
        allow_null=True,
        help_text="The watch's private Atom feed (no sign-in: keep it secret). Only in the answer "
        "of POST .../rotate-feed, which makes it: it is shown once, null everywhere else.",
    )
    feed_hint = serializers.CharField(
        allow_null=True,
        help_text="The first characters of the feed's secret, to tell addresses apart; null "
        "while the watch has no feed address.",
    )
    urls = WatchUrlsOut()


class WatchListOut(WatchOut):
    def to_representation(self, watch):
        return super().to_representation(watch_data(self.context["request"], watch))


class WatchInputSerializer(InputSerializer):
    """The fields of a watch as a request gives them; types only (``watches.services`` checks
    the values against each other)."""

    question = QuestionField(max_length=MAX_QUESTION_CHARS, trim_whitespace=False, allow_blank=True)
    schedule = serializers.ChoiceField(choices=Schedule.choices, required=False)
    time = TimeTextField(required=False, max_length=5)
    weekday = StrictIntegerField(
        required=False, allow_null=True, min_value=1, max_value=7, help_text=WEEKDAY_HELP
    )
    timezone = ZoneNameField(required=False, max_length=ZONE_NAME_MAX_LENGTH)
    offline = StrictBooleanField(required=False)
    notify_email = StrictBooleanField(required=False)
    notify_only_new = StrictBooleanField(required=False)


class WatchUpdateInputSerializer(WatchInputSerializer):
    question = QuestionField(
        required=False, max_length=MAX_QUESTION_CHARS, trim_whitespace=False, allow_blank=True
    )
    active = StrictBooleanField(required=False, help_text="false pauses the watch.")


class WatchCollectionApi(ApiView):
    """``/watches``: GET lists, POST creates (one path, one DRF view)."""

    @api_schema(
        operation_id="watches_list",
        parameters=[QuerySerializer],
        responses={200: page_of("WatchPage", WatchListOut), **errors(400, 404)},
        summary="The caller's watches, newest first",
    )
    def get(self, request):
        query_params(QuerySerializer, request)
        return paginated(request, self, watches_of(request.user), WatchListOut)

    @api_schema(
        operation_id="watches_create",
        request=WatchInputSerializer,
        responses={201: WatchOut, **errors(*BODY_ERRORS)},
        summary="Watch a question: it reruns on its schedule and says what changed",
    )
    def post(self, request):
        serializer = WatchInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        watch = watch_create(owner=request.user, **serializer.validated_data)
        return Response(WatchOut(watch_data(request, watch)).data, status=status.HTTP_201_CREATED)


class WatchDetailApi(ApiView):
    @api_schema(
        operation_id="watches_retrieve",
        responses={200: WatchOut, **errors(404)},
        summary="One of the caller's watches",
    )
    def get(self, request, watch_id: int):
        watch = watch_of(owner=request.user, watch_id=watch_id)
        return Response(WatchOut(watch_data(request, watch)).data)

    @api_schema(
        operation_id="watches_partial_update",
        request=WatchUpdateInputSerializer,
        responses={200: WatchOut, **errors(404, *BODY_ERRORS)},
        summary="Change a watch: its question, schedule, flags; active=false pauses it",
    )
    def patch(self, request, watch_id: int):
        watch_of(owner=request.user, watch_id=watch_id)  # a 404 before any field error
        serializer = WatchUpdateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        watch = watch_update(owner=request.user, watch_id=watch_id, **serializer.validated_data)
        return Response(WatchOut(watch_data(request, watch)).data)

    @api_schema(
        operation_id="watches_destroy",
        responses={204: None, **errors(404)},
        summary="Delete a watch (its briefs stay)",
    )
    def delete(self, request, watch_id: int):
        watch_delete(owner=request.user, watch_id=watch_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WatchRunOut(serializers.Serializer):
    brief_id = serializers.IntegerField()
    brief_url = serializers.URLField()


class WatchRunApi(ApiView):
    @api_schema(
        operation_id="watches_run",
        request=None,
        responses={202: WatchRunOut, **errors(404)},
        summary="Run a watch now: a queued brief (counts against the daily quota)",
    )
    def post(self, request, watch_id: int):
        brief = watch_run_now(owner=request.user, watch_id=watch_id)
        data = {
            "brief_id": brief.pk,
            "brief_url": request.build_absolute_uri(reverse("api-brief-detail", args=[brief.pk])),
        }
        return Response(WatchRunOut(data).data, status=status.HTTP_202_ACCEPTED)


class WatchFeedRotateApi(ApiView):
    @api_schema(
        operation_id="watches_rotate_feed",
        request=None,
        responses={200: WatchOut, **errors(404)},
        summary="Give the watch's feed a new secret URL (shown in this answer only); the old "
        "one and the unsubscribe links already sent stop working",
    )
    def post(self, request, watch_id: int):
        watch, secret = watch_feed_rotate(owner=request.user, watch_id=watch_id)
        response = Response(WatchOut(watch_data(request, watch, feed_secret=secret)).data)
        response["Cache-Control"] = "no-store"
        return response
