"""The conversation with the model: ask, validate, repair once, or give up with a reason.

Each HTTP call goes through the breaker and the budget first, and is accounted for after.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

import openai
from django.conf import settings
from django.utils import timezone
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice

from briefs.llm.breaker import (
    breaker_admit,
    breaker_key,
    breaker_record_failure,
    breaker_record_success,
    breaker_release_probe,
)
from briefs.llm.budget import budget_reserve, budget_settle, estimate_tokens
from briefs.llm.endpoint import EndpointStalled, client_for, endpoint_url, redact
from briefs.llm.prompts import ITEMS_ARE_DATA

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

log = logging.getLogger(__name__)

Role = Literal["router", "writer"]

MAX_TOKENS = {"router": 1000, "writer": 2000}
# Routing must be reproducible; writing stays close to the items but need not be byte-identical.
TEMPERATURE = {"router": 0.0, "writer": 0.2}
COMPLETE_FINISH_REASONS = frozenset({"stop", "tool_calls", "function_call"})
FUNCTION_NAME = "answer"

REASON_NOT_CONFIGURED = "not configured"
REASON_BREAKER_OPEN = "breaker open"
REASON_BUDGET_SPENT = "daily token budget spent"
REASON_TIMEOUT = "timeout"
REASON_RATE_LIMITED = "rate limited"
REASON_CONNECTION = "connection error"
REASON_SERVER_ERROR = "server error"
REASON_REJECTED = "request rejected"
REASON_MALFORMED = "malformed response"
REASON_INVALID_OUTPUT = "invalid output"


@dataclass(frozen=True)
class LLMUsage:
    """One answer received from the model. Tokens are estimates when the endpoint reported none."""

    node: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    latency_ms: int
    truncated: bool

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_payload(self) -> dict[str, Any]:
        """The payload of the ``llm_usage`` run step."""
        return asdict(self)


@dataclass(frozen=True)
class LLMResult:
    """A validated answer: ``value`` is what ``validate`` returned; ``repaired`` if it took two."""

    value: Any
    usage: list[LLMUsage]
    repaired: bool


class LLMUnavailable(Exception):
    """The model gave no usable answer; the caller uses its offline method for this node."""

    def __init__(self, reason: str, detail: str = "", usage: list[LLMUsage] | None = None):
        self.reason = reason
        self.detail = redact(detail)
        self.usage = list(usage or [])
        super().__init__(f"{reason}: {self.detail}" if self.detail else reason)


# --- entry points -------------------------------------------------------------------------------


def llm_configured() -> bool:
    """True when an API key is set; without one, every node runs its offline method."""
    return bool(settings.OPENAI_API_KEY)


def llm_mode_label() -> str:
    """``"offline"``, or the model names for the brief's ``mode`` field (no URL, no key)."""
    if not llm_configured():
        return "offline"
    router, writer = settings.OPENAI_ROUTER_MODEL, settings.OPENAI_WRITER_MODEL
    return router if router == writer else f"{router} / {writer}"


def llm_choose(
    *,
    user: AbstractBaseUser | int,
    node: str,
    system: str,
    prompt: str,
    schema: dict[str, Any],
    validate: Callable[[dict[str, Any]], Any],
    role: Role = "router",
    max_tokens: int | None = None,
) -> LLMResult:
    """Ask for a structured choice: a forced function call whose arguments follow ``schema``.

    A JSON object in the message content is accepted too (servers that ignore ``tools``). The
    parsed object goes to ``validate``; a rejected, unparsable or cut-off answer gets one repair
    turn. ``user`` is a user or a user id (for the token budget). Raises ``LLMUnavailable``.
    """
    tool = {
        "type": "function",
        "function": {
            "name": FUNCTION_NAME,
            "description": f"Give the answer of the {node} step.",
            "parameters": schema,
        },
    }
    spec = _Spec(
        user_id=_user_id(user),
        node=node,
        role=role,
        max_tokens=max_tokens or MAX_TOKENS[role],
        extra={
            "tools": [tool],
            "tool_choice": {"type": "function", "function": {"name": FUNCTION_NAME}},
        },
        parse=lambda reply: validate(_reply_object(reply)),
        repair=_repair_choice,
    )
    return _converse(spec, _opening(system, prompt))


def llm_write(
    *,
    user: AbstractBaseUser | int,
    node: str,
    system: str,
    prompt: str,
    validate: Callable[[str], Any],
    role: Role = "writer",
    max_tokens: int | None = None,
) -> LLMResult:
    """Ask for free text (markdown). ``validate`` checks it (e.g. citations are only given item
    numbers); a rejected or cut-off text gets one repair turn. Raises ``LLMUnavailable``.
    """
    spec = _Spec(
        user_id=_user_id(user),
        node=node,
        role=role,
        max_tokens=max_tokens or MAX_TOKENS[role],
        extra={},
        parse=lambda reply: validate(_reply_text(reply)),
        repair=_repair_text,
    )
    return _converse(spec, _opening(system, prompt))


# --- the conversation: one call, and at most one repair turn ----------------------------------


@dataclass(frozen=True)
class _Reply:
    message: ChatCompletionMessage
    truncated: bool


@dataclass
class _Spec:
    """One node's request: who pays, which model, how to read and how to repair an answer."""

    user_id: int
    node: str
    role: Role
    max_tokens: int
    extra: dict[str, Any]
    parse: Callable[[_Reply], Any]
    repair: Callable[[_Reply, str], list[dict[str, Any]]]
    usage: list[LLMUsage] = field(default_factory=list)

    @property
    def model(self) -> str:
        if self.role == "router":
            return settings.OPENAI_ROUTER_MODEL
        return settings.OPENAI_WRITER_MODEL


def _opening(system: str, prompt: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": f"{system.strip()}\n\n{ITEMS_ARE_DATA}"},
        {"role": "user", "content": prompt},
    ]


def _converse(spec: _Spec, messages: list[dict[str, Any]]) -> LLMResult:
    """Ask, validate, and on a bad answer send the error back once; then give up."""
    if not llm_configured():
        raise LLMUnavailable(REASON_NOT_CONFIGURED, "no OPENAI_API_KEY")
    error = ""
    for attempt in range(2):
        reply = _call(spec, messages)
        try:
            if reply.truncated:
                raise ValueError("the answer was cut off at the output limit; answer more briefly")
            value = spec.parse(reply)
        except (ValueError, TypeError, KeyError) as exc:
            error = _short(str(exc) or type(exc).__name__, 500)
            log.info("LLM %s answer rejected (attempt %d): %s", spec.node, attempt + 1, error)
            messages = [*messages, *spec.repair(reply, error)]
            continue
        return LLMResult(value=value, usage=list(spec.usage), repaired=attempt > 0)
    raise LLMUnavailable(REASON_INVALID_OUTPUT, error, spec.usage)


def _reply_object(reply: _Reply) -> dict[str, Any]:
    """The JSON object of a function call's arguments, or of the content as a fallback."""
    calls = reply.message.tool_calls or []
    raw = calls[0].function.arguments if calls else _strip_fence(reply.message.content or "")
    if not raw.strip():
        raise ValueError(f"no answer: call the function {FUNCTION_NAME} with the arguments")
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"the arguments are not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("the arguments must be a JSON object")
    return data


def _strip_fence(content: str) -> str:
    match = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", content, flags=re.DOTALL)
    return match.group(1) if match else content


def _reply_text(reply: _Reply) -> str:
    content = (reply.message.content or "").strip()
    if not content:
        raise ValueError("the answer was empty")
    return content


def _repair_choice(reply: _Reply, error: str) -> list[dict[str, Any]]:
    """The repair turn for a choice: the protocol wants a tool message per tool call."""
    calls = reply.message.tool_calls or []
    retry = (
        f"That answer was rejected: {error}. Call {FUNCTION_NAME} again with a corrected answer."
    )
    if not calls:
        return [
            {"role": "assistant", "content": reply.message.content or ""},
            {"role": "user", "content": retry},
        ]
    call = calls[0]
    call_id = call.id or "call_0"
    echoed = {
        "id": call_id,
        "type": "function",
        "function": {"name": call.function.name, "arguments": call.function.arguments},
    }
    return [
        {"role": "assistant", "content": None, "tool_calls": [echoed]},
        {"role": "tool", "tool_call_id": call_id, "content": retry},
    ]


def _repair_text(reply: _Reply, error: str) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": reply.message.content or ""},
        {
            "role": "user",
            "content": f"That answer was rejected: {error}. Write the whole answer again, fixed.",
        },
    ]


# --- one HTTP call: breaker, budget, request, accounting --------------------------------------


def _call(spec: _Spec, messages: list[dict[str, Any]]) -> _Reply:
    """One chat completion behind the breaker and the budget; records usage on ``spec``."""
    model = spec.model
    base_url = endpoint_url()
    key = breaker_key(base_url, model)
    now = timezone.now()
    if not breaker_admit(key, now=now):
        raise LLMUnavailable(REASON_BREAKER_OPEN, f"{model} failed repeatedly", spec.usage)
    request = {
        "model": model,
        "messages": messages,
        "temperature": TEMPERATURE[spec.role],
        "max_tokens": spec.max_tokens,
        **spec.extra,
    }
    prompt_estimate = estimate_tokens(request)
    estimate = prompt_estimate + spec.max_tokens
    if not budget_reserve(user_id=spec.user_id, tokens=estimate, day=now.date()):
        breaker_release_probe(key, claimed_at=now)
        limit = settings.LLM_DAILY_TOKEN_BUDGET
        raise LLMUnavailable(REASON_BUDGET_SPENT, f"{limit} tokens a day", spec.usage)
    return _send(spec, key, request, estimate=(prompt_estimate, estimate), day=now.date())


def _send(
    spec: _Spec, key: str, request: dict[str, Any], *, estimate: tuple[int, int], day: date
) -> _Reply:
    """POST the request; settle the budget and the breaker whatever happens."""
    prompt_estimate, reserved = estimate
    started = time.monotonic()
    try:
        client = client_for(endpoint_url(), settings.OPENAI_API_KEY, settings.OPENAI_TIMEOUT)
        completion = client.chat.completions.create(**request)
        reply, usage = _read(spec, completion, started, prompt_estimate=prompt_estimate)
    except (openai.OpenAIError, ValueError) as exc:
        reason, detail, endpoint_fault = _classify(exc)
        budget_settle(user_id=spec.user_id, day=day, reserved=reserved, spent=0)
        if endpoint_fault:
            breaker_record_failure(key, error=f"{reason}: {detail}")
        else:
            breaker_record_success(key)
        log.warning("LLM %s call failed: %s (%s)", spec.node, reason, redact(detail))
        raise LLMUnavailable(reason, detail, spec.usage) from None
    budget_settle(user_id=spec.user_id, day=day, reserved=reserved, spent=usage.total_tokens)
    breaker_record_success(key)
    spec.usage.append(usage)
    return reply


class _Malformed(ValueError):
    """The body parsed, but it is not a chat completion we can read."""


def _read(
    spec: _Spec, completion: Any, started: float, *, prompt_estimate: int
) -> tuple[_Reply, LLMUsage]:
    """Check the completion's shape (the SDK does not validate it) and account for it."""
    if not isinstance(completion, ChatCompletion):
        raise _Malformed("the body is not a chat completion")
    choices = completion.choices if isinstance(completion.choices, list) else []
    if not choices or not isinstance(choices[0], Choice):
        raise _Malformed("the completion has no choices")
    choice = choices[0]
    if not isinstance(choice.message, ChatCompletionMessage):
        raise _Malformed("the completion has no message")
    reply = _Reply(choice.message, truncated=choice.finish_reason not in COMPLETE_FINISH_REASONS)
    return reply, _usage(spec, completion, reply, started, prompt_estimate)


def _usage(
    spec: _Spec, completion: ChatCompletion, reply: _Reply, started: float, prompt_estimate: int
) -> LLMUsage:
    reported = completion.usage
    details = getattr(reported, "prompt_tokens_details", None)
    if reported is not None and isinstance(reported.prompt_tokens, int):
        prompt, answer = reported.prompt_tokens, _int(reported.completion_tokens)
    else:  # some compatible servers report no usage: charge an estimate rather than nothing
        prompt = prompt_estimate
        answer = estimate_tokens(reply.message.model_dump(exclude_none=True))
    model = completion.model if isinstance(completion.model, str) and completion.model else None
    return LLMUsage(
        node=spec.node,
        model=model or spec.model,
        prompt_tokens=prompt,
        completion_tokens=answer,
        cached_tokens=_int(getattr(details, "cached_tokens", 0)),
        latency_ms=int((time.monotonic() - started) * 1000),
        truncated=reply.truncated,
    )


def _classify(exc: Exception) -> tuple[str, str, bool]:
    """(reason, detail, whether the endpoint is at fault and the breaker should count it)."""
    if isinstance(exc, EndpointStalled | openai.APITimeoutError):
        return REASON_TIMEOUT, f"no answer within {settings.OPENAI_TIMEOUT:g} s", True
    if isinstance(exc, openai.APIConnectionError):
        return REASON_CONNECTION, "could not reach the endpoint", True
    if isinstance(exc, openai.RateLimitError):
        return REASON_RATE_LIMITED, _status_detail(exc), True
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code >= 500:
            return REASON_SERVER_ERROR, _status_detail(exc), True
        # 400/422 concern this request; 401/403/404 mean every request will fail the same way.
        return REASON_REJECTED, _status_detail(exc), exc.status_code in (401, 403, 404)
    if isinstance(exc, _Malformed):
        return REASON_MALFORMED, str(exc), True
    if isinstance(exc, ValueError | openai.APIResponseValidationError):
        return REASON_MALFORMED, "the body is not valid JSON", True
    return REASON_REJECTED, type(exc).__name__, False


def _status_detail(exc: openai.APIStatusError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body)
    message = error.get("message") if isinstance(error, dict) else None
    return f"HTTP {exc.status_code}" + (f": {_short(str(message), 200)}" if message else "")


# --- small helpers ----------------------------------------------------------------------------


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else 0


def _user_id(user: AbstractBaseUser | int) -> int:
    return user if isinstance(user, int) else user.pk
