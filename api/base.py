"""What every API view shares: authentication, strict JSON parsing, throttles, pagination, the
error handler and the error responses the schema documents.

Everything is set on ``ApiView`` itself rather than in ``REST_FRAMEWORK``, so the API behaves
the same whatever the project-wide DRF defaults are (the dashboard may use other ones). The
authentication classes are named in ``API_AUTHENTICATION_CLASSES`` (dotted paths, as DRF's own
setting): the token scheme belongs to the app that issues tokens, not to this foundation.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.validators import RegexValidator
from django.utils.module_loading import import_string
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import BaseParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from api.errors import PayloadTooLarge, api_exception_handler

DEFAULT_MAX_BODY_BYTES = 16 * 1024
DEFAULT_RATE = "240/minute"
PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MAX_ID = 2**63 - 1  # PostgreSQL bigint
SEARCH_MAX_LENGTH = 200


# --- Parsing ------------------------------------------------------------------------------------


def max_body_bytes() -> int:
    return getattr(settings, "API_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def _shown(name: str) -> str:
    return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in name)


def _bad_text_path(value: Any, path: str = "") -> str | None:
    """The dotted path of the first string (or key) holding a surrogate: undecodable bytes, or
    a lone ``\\udXXX`` escape. Neither can be stored or shown as text."""
    if isinstance(value, str):
        return (path or "body") if _has_surrogate(value) else None
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = f"{path}.{key}" if path else key
            if _has_surrogate(key):
                return _shown(name)
            found = _bad_text_path(item, name)
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _bad_text_path(item, f"{path}.{i}" if path else str(i))
            if found:
                return found
    return None


class StrictJSONParser(BaseParser):
    """JSON, UTF-8 only, at most ``API_MAX_BODY_BYTES``; errors name the field (or ``body``)."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        limit = max_body_bytes()
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH", "") if request is not None else ""
        if str(declared).isdigit() and int(declared) > limit:
            raise PayloadTooLarge(f"The request body is larger than {limit} bytes.")
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise PayloadTooLarge(f"The request body is larger than {limit} bytes.")
        text = raw.decode("utf-8", errors="surrogateescape")
        try:
            data = json.loads(text, parse_constant=_refuse_constant)
        except RecursionError:
            raise ValidationError({"body": ["The JSON is nested too deeply."]}) from None
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno} column {exc.colno}"
            raise ValidationError({"body": [f"Not valid JSON: {exc.msg} ({where})."]}) from None
        except ValueError as exc:
            raise ValidationError({"body": [f"Not valid JSON: {exc}."]}) from None
        bad = _bad_text_path(data)
        if bad is not None:
            raise ValidationError({bad: ["Not valid UTF-8 text."]})
        return data


class JSONOnlyNegotiation(DefaultContentNegotiation):
    """The API answers JSON whatever ``Accept`` says (no 406 to document or to surprise)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        renderer = renderers[0]
        return renderer, renderer.media_type


# --- Throttles ----------------------------------------------------------------------------------


class ApiRateThrottle(SimpleRateThrottle):
    """Requests per user (per address before authentication), ``API_THROTTLE_RATE``.

    Counts live in Django's default cache: with the default LocMemCache that is per process,
    so N web processes admit up to N times the rate; a shared cache (Redis) makes it global."""

    scope = "api"
    setting_name = "API_THROTTLE_RATE"
    default_rate = DEFAULT_RATE

    def get_rate(self) -> str | None:
        return getattr(settings, self.setting_name, self.default_rate)

    def get_cache_key(self, request, view) -> str:
        user = request.user
        ident = f"u{user.pk}" if user and user.is_authenticated else self.get_ident(request)
        return f"throttle_{self.scope}_{ident}"


@dataclass(frozen=True)
class _ThrottledCaller:
    """What the throttle reads of a request: its authenticated user, their cache key."""

    user: Any


def throttle_check(*, user) -> None:
    """The API's request throttle for a caller outside DRF (the MCP server): ``Throttled`` as
    DRF's ``check_throttles`` raises it. It counts the request, refused or not, as there. New
    briefs have their own throttle, every way in alike (``briefs.admission``)."""
    throttle = ApiRateThrottle()
    if not throttle.allow_request(_ThrottledCaller(user), None):
        raise Throttled(wait=throttle.wait())


# --- Views --------------------------------------------------------------------------------------


def _authentication_classes() -> list[type]:
    return [import_string(path) for path in settings.API_AUTHENTICATION_CLASSES]


class ApiView(APIView):
    authentication_classes = _authentication_classes()
    permission_classes = [IsAuthenticated]
    parser_classes = [StrictJSONParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnlyNegotiation
    throttle_classes = [ApiRateThrottle]
    metadata_class = None  # OPTIONS is a 405 like any other undocumented method
    schema = AutoSchema()

    def get_exception_handler(self):
        return api_exception_handler

    @property
    def allowed_methods(self) -> list[str]:
        return [m for m in super().allowed_methods if m != "OPTIONS"]


class NotFoundView(ApiView):
    """Any other path under /api/: a 404 in the API's error shape, for every method."""

    authentication_classes = []
    permission_classes = []
    throttle_classes = []

    def initial(self, request, *args, **kwargs):
        from rest_framework.exceptions import NotFound

        super().initial(request, *args, **kwargs)
        raise NotFound("No such API endpoint.")


# --- Input fields: no coercion ("12" is not 12, 1 is not true) ----------------------------------


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid": "Must be true or false."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class InputSerializer(serializers.Serializer):
    """A request body: a JSON object with only the declared fields."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


# No control characters (C0, DEL, C1): never part of a search, and PostgreSQL refuses NUL.
# "+": the schema offers blank as its own alternative (oneOf), which must not match this one too.
TEXT_PARAM_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]+$"
text_param_validate = RegexValidator(
    TEXT_PARAM_PATTERN, message="Must not contain control characters."
)


class QuerySerializer(serializers.Serializer):
    """Query parameters (strings by nature, so the usual parsing of numbers and booleans)."""

    page = serializers.IntegerField(required=False, min_value=1, max_value=1_000_000)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=MAX_PAGE_SIZE)


def query_params(serializer_class: type[serializers.Serializer], request) -> dict:
    """The validated query parameters, or a 400 naming the parameter. Unknown and repeated
    parameters are refused too: ``?stauts=queued`` must not list everything, and of
    ``?status=a&status=b`` neither value is more meant than the other."""
    known = set(serializer_class().fields)
    problems = {}
    for name, values in request.query_params.lists():
        if name not in known:
            problems[_shown(name) or "(empty)"] = ["Unknown parameter."]
        elif len(values) > 1:
            problems[name] = ["Give this parameter once."]
    if problems:
        raise ValidationError(problems)
    serializer = serializer_class(data=request.query_params.dict())
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class TextParamField(serializers.CharField):
    """Checks the pattern on the value as sent: trimming first would let a trailing control
    character (a vertical tab, say) through."""

    def run_validation(self, data=serializers.empty):
        if isinstance(data, str) and data:
            text_param_validate(data)
        return super().run_validation(data)


def text_param(*, max_length: int, help_text: str = "") -> serializers.CharField:
    """A free-text query parameter: bounded, no control characters, blank means unset."""
    return TextParamField(
        required=False,
        max_length=max_length,
        allow_blank=True,
        validators=[text_param_validate],
        help_text=help_text or None,
    )


def search_field(help_text: str = "") -> serializers.CharField:
    return text_param(max_length=SEARCH_MAX_LENGTH, help_text=help_text)


# --- Pagination ---------------------------------------------------------------------------------


class ApiPagination(PageNumberPagination):
    page_size = PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    invalid_page_message = "No such page."


def paginated(request, view, queryset, serializer_class) -> Any:
    """A page of ``queryset``; the view has validated ``page`` and ``page_size`` already."""
    from rest_framework.response import Response

    paginator = ApiPagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    data = serializer_class(page, many=True, context={"request": request}).data
    return Response(
        {
            "count": paginator.page.paginator.count,
            "next": paginator.get_next_link(),
            "previous": paginator.get_previous_link(),
            "results": data,
        }
    )


def page_of(name: str, item_serializer) -> serializers.Serializer:
    return inline_serializer(
        name=name,
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item_serializer(many=True),
        },
    )


# --- The schema ---------------------------------------------------------------------------------


def api_schema(**kwargs):
    """``extend_schema`` on top of drf-spectacular's AutoSchema whatever ``REST_FRAMEWORK``'s
    ``DEFAULT_SCHEMA_CLASS`` is (extend_schema takes the default unless the method names one)."""

    def decorator(method):
        method.schema = AutoSchema
        return extend_schema(**kwargs)(method)

    return decorator


# --- Errors in the schema -----------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    message = serializers.CharField()
    extra = serializers.DictField()


ERROR_DESCRIPTIONS = {
    400: "Invalid input; `extra.fields` names each offending field.",
    401: "Missing, malformed, expired or revoked token, or an inactive user.",
    403: "Not allowed (staff only, or a session request without its CSRF token).",
    404: "No such object (another user's object is also a 404), or no such page.",
    413: "The request body is too large.",
    415: "The request body is not JSON.",
    429: "A rate limit or a daily quota is exceeded; see the Retry-After header.",
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """Error responses for ``extend_schema``: 401, 403 and 429 always, plus ``codes``."""
    wanted = sorted({401, 403, 429, *codes})
    return {
        code: OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[code])
        for code in wanted
    }


BODY_ERRORS = (400, 413, 415)
