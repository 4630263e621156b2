"""The one error shape of the API: ``{"message": str, "extra": {...}}`` for every failure.

Domain errors become HTTP ones here, so views and services never build error responses. This
module imports no app: an app registers the errors it raises (``api_error_register``, from its
``AppConfig.ready``) with the shape each takes here:

- ``ValidationError`` and every field error (``field_invalid``: ``briefs.errors.FieldInvalid``,
  brief, token, webhook input): 400, with ``extra = {"fields": {name: [messages]}}``; the
  message names the first offending field (``"question: The question is empty."``).
- ``ObjectDoesNotExist``, ``Http404``: 404 ("No such brief.").
- a spent quota (``QuotaSpent``: ``briefs.quotas.QuotaExceeded``): 429, ``extra`` = quota,
  limit, used, resets_at, retry_after.
- ``Throttled``: 429, ``extra = {"retry_after": seconds}``.
- any other ``APIException`` (401, 403, 405, 413, 415...): its own status, ``extra = {}``.
- anything else: 500, ``{"message": "Internal server error.", "extra": {}}``; the traceback
  goes to the log, never to the client.

``Retry-After`` goes with every 429 and ``WWW-Authenticate`` with every 401 (DRF sets both).
"""

import logging
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

log = logging.getLogger(__name__)

NON_FIELD_KEYS = {"non_field_errors": "body"}


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


class QuotaSpent(exceptions.Throttled):
    """A spent daily quota, as a 429 whose ``wait`` becomes ``Retry-After``."""

    default_code = "quota_exceeded"

    def __init__(self, exc: Any):  # briefs.quotas.QuotaExceeded
        super().__init__(wait=exc.retry_after, detail=exc.message)
        self.extra = {
            "quota": exc.quota,
            "limit": exc.limit,
            "used": exc.used,
            "resets_at": exc.resets_at.isoformat(),
            "retry_after": exc.retry_after,
        }


def field_invalid(exc: Any) -> exceptions.ValidationError:
    """An input error with ``field`` and ``message`` (``briefs.errors.FieldInvalid``) as a 400."""
    return exceptions.ValidationError({exc.field: [exc.message]})


# The errors apps raise, each with the API exception it stands for, in the order registered.
_REGISTERED: dict[type[Exception], Callable[[Any], exceptions.APIException]] = {}


def api_error_register(
    exc_type: type[Exception], to_api: Callable[[Any], exceptions.APIException]
) -> None:
    """Called by an app as Django starts: ``exc_type`` (and its subclasses) reach a client as
    ``to_api(exc)``."""
    _REGISTERED[exc_type] = to_api


def _object_name(exc: ObjectDoesNotExist) -> str:
    # ``Brief.DoesNotExist`` -> "brief"; a plain ObjectDoesNotExist -> "object".
    owner = type(exc).__qualname__.split(".")[0]
    if owner in ("ObjectDoesNotExist", "DoesNotExist"):
        return "object"
    return "".join(f" {c.lower()}" if c.isupper() else c for c in owner).strip()


def api_exception(exc: Exception) -> exceptions.APIException | None:
    """The DRF exception a domain error stands for; None for an unexpected error."""
    if isinstance(exc, exceptions.APIException):
        return exc
    for exc_type, to_api in _REGISTERED.items():
        if isinstance(exc, exc_type):
            return to_api(exc)
    if isinstance(exc, ObjectDoesNotExist):
        return exceptions.NotFound(f"No such {_object_name(exc)}.")
    if isinstance(exc, Http404):
        return exceptions.NotFound()
    return None


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    """``{"a": {"b": ["x"]}}`` -> ``{"a.b": ["x"]}``; list positions become indexes."""
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = NON_FIELD_KEYS.get(str(key), str(key)) if not prefix else f"{prefix}.{key}"
            out.update(_flatten(value, name))
        return out
    if isinstance(detail, list) and detail and not all(isinstance(d, str) for d in detail):
        out = {}
        for i, value in enumerate(detail):
            out.update(_flatten(value, f"{prefix}.{i}" if prefix else str(i)))
        return out
    messages = detail if isinstance(detail, list) else [detail]
    return {prefix or "body": [str(m) for m in messages]} if messages else {}


def error_body(exc: exceptions.APIException) -> dict:
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        name, messages = next(iter(fields.items()), ("body", ["Invalid input."]))
        return {"message": f"{name}: {messages[0]}", "extra": {"fields": fields}}
    extra = dict(getattr(exc, "extra", {}))
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        extra.setdefault("retry_after", int(exc.wait))
    return {"message": str(exc.detail), "extra": extra}


def api_exception_handler(exc: Exception, context: dict) -> Response:
    """DRF's ``EXCEPTION_HANDLER`` for the API views (set on their base class)."""
    api_exc = api_exception(exc)
    if api_exc is None:
        view = context.get("view")
        log.error("API error in %s", type(view).__name__, exc_info=exc)
        set_rollback()
        return Response(
            {"message": "Internal server error.", "extra": {}},
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    response = drf_exception_handler(api_exc, context)
    if response is None:  # cannot happen for an APIException; kept to satisfy the contract
        response = Response(status=api_exc.status_code)
    response.data = error_body(api_exc)
    return response
