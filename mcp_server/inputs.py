"""Tool arguments: checked by the REST API's own input fields, so a wrong type, a value out of
range or an unknown argument is refused with the API's message (``"wait_seconds: Ensure this
value is less than or equal to 120."``), and nothing is coerced (``"12"`` is not 12, 1 is not
true).

Each tool's JSON schema (``input_schema``) is built from the same constants, so what a client is
told and what the server checks cannot drift apart.
"""

from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from api.base import (
    MAX_ID,
    MAX_PAGE_SIZE,
    SEARCH_MAX_LENGTH,
    InputSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    text_param_validate,
)
from briefs.api.briefs import QuestionField
from briefs.language import BRIEF_LANGUAGES
from briefs.models import BriefOutcome
from catalog.search import MAX_QUESTION_CHARS

WAIT_DEFAULT = 60
WAIT_MAX = 120
LIST_DEFAULT = 20
ROUTES_DEFAULT = 10
ROUTES_MAX = 100
PATH_MAX_LENGTH = 600  # catalog.models.Route.path


def arguments_clean(serializer_class: type[serializers.Serializer], arguments: Any) -> dict:
    """The validated arguments, or ``ValidationError`` naming the first offending one."""
    serializer = serializer_class(data={} if arguments is None else arguments)
    if not serializer.is_valid():
        raise ValidationError(serializer.errors)
    return dict(serializer.validated_data)


def _question() -> QuestionField:
    return QuestionField(max_length=MAX_QUESTION_CHARS, trim_whitespace=False, allow_blank=True)


def _wait() -> StrictIntegerField:
    return StrictIntegerField(required=False, default=WAIT_DEFAULT, min_value=0, max_value=WAIT_MAX)


def _brief_id() -> StrictIntegerField:
    return StrictIntegerField(min_value=1, max_value=MAX_ID)


class StrictTextField(StrictCharField):
    """Text, never a number or a list, without control characters."""

    def __init__(self, **kwargs):
        super().__init__(validators=[text_param_validate], **kwargs)


class AskInput(InputSerializer):
    question = _question()
    offline = StrictBooleanField(required=False, default=False)
    language = serializers.ChoiceField(choices=BRIEF_LANGUAGES, required=False, default="")
    wait_seconds = _wait()


class BriefIdInput(InputSerializer):
    id = _brief_id()


class ListBriefsInput(InputSerializer):
    query = StrictTextField(
        required=False, default="", allow_blank=True, max_length=SEARCH_MAX_LENGTH
    )
    outcome = serializers.ChoiceField(choices=BriefOutcome.choices, required=False)
    limit = StrictIntegerField(
        required=False, default=LIST_DEFAULT, min_value=1, max_value=MAX_PAGE_SIZE
    )


class FollowUpInput(InputSerializer):
    id = _brief_id()
    question = _question()
    wait_seconds = _wait()


class SearchRoutesInput(InputSerializer):
    # Its length and characters are checked by the search itself (the API's ``q`` is too).
    query = StrictCharField(trim_whitespace=False, allow_blank=True)
    limit = StrictIntegerField(
        required=False, default=ROUTES_DEFAULT, min_value=1, max_value=ROUTES_MAX
    )


class RouteHealthInput(InputSerializer):
    path_or_namespace = StrictTextField(max_length=PATH_MAX_LENGTH)


# --- The schemas clients see ----------------------------------------------------------------------

QUESTION_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_QUESTION_CHARS,
    "description": "The question in plain words, in any language, e.g. 'What is new on 36kr "
    "today?' or 'latest news on the Kirin 9050'. Name the site or subject and, if it matters, "
    "the time window ('today', 'this week').",
}
WAIT_SCHEMA = {
    "type": "integer",
    "minimum": 0,
    "maximum": WAIT_MAX,
    "default": WAIT_DEFAULT,
    "description": f"How long to wait for the brief, in seconds (0 to {WAIT_MAX}). When it is "
    "not ready by then, the result gives its id and status: read it later with get_brief.",
}
BRIEF_ID_SCHEMA = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_ID,
    "description": "The id of one of your briefs (from ask, follow_up or list_briefs).",
}


def object_schema(properties: dict, required: list[str]) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


ASK_SCHEMA = object_schema(
    {
        "question": QUESTION_SCHEMA,
        "offline": {
            "type": "boolean",
            "default": False,
            "description": "Route and write without the language model (rules only): faster, "
            "plainer, and it spends no model tokens.",
        },
        "language": {
            "type": "string",
            "enum": list(BRIEF_LANGUAGES),
            "description": "The brief's language (en or zh-hans); without it, the default brief "
            "language of your profile, else the question's.",
        },
        "wait_seconds": WAIT_SCHEMA,
    },
    ["question"],
)
BRIEF_ID_ONLY_SCHEMA = object_schema({"id": BRIEF_ID_SCHEMA}, ["id"])
LIST_BRIEFS_SCHEMA = object_schema(
    {
        "query": {
            "type": "string",
            "maxLength": SEARCH_MAX_LENGTH,
            "description": "Only briefs whose question or answer contains this text.",
        },
        "outcome": {
            "type": "string",
            "enum": list(BriefOutcome.values),
            "description": "Only briefs with this outcome.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_PAGE_SIZE,
            "default": LIST_DEFAULT,
            "description": "How many briefs, newest first.",
        },
    },
    [],
)
FOLLOW_UP_SCHEMA = object_schema(
    {
        "id": {**BRIEF_ID_SCHEMA, "description": "The brief this question follows up."},
        "question": {
            **QUESTION_SCHEMA,
            "description": "The follow-up question, e.g. 'and what about yesterday?', or the "
            "question again with the value a needs_input brief asked for.",
        },
        "wait_seconds": WAIT_SCHEMA,
    },
    ["id", "question"],
)
SEARCH_ROUTES_SCHEMA = object_schema(
    {
        "query": {
            "type": "string",
            "minLength": 1,
            "description": "A question or a few words: a site, a subject, a kind of feed.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": ROUTES_MAX,
            "default": ROUTES_DEFAULT,
            "description": "How many routes, best first.",
        },
    },
    ["query"],
)
ROUTE_HEALTH_SCHEMA = object_schema(
    {
        "path_or_namespace": {
            "type": "string",
            "minLength": 1,
            "maxLength": PATH_MAX_LENGTH,
            "description": "A route path as search_routes gives it (e.g. '/36kr/newsflashes' "
            "or '/github/issue/:user/:repo/:state?'), or a platform's namespace (e.g. '36kr').",
        }
    },
    ["path_or_namespace"],
)
