"""The conversation with the model: ask, validate, repair once, or give up with a reason.

Endpoints are tried in order (``endpoint.endpoints_configured``): a conversation goes to the
first whose breaker admits it, and when that endpoint fails (timeout, connection, 5xx, 429, a
malformed body, a refused key) the next one takes over with the same messages. A budget
refusal, the run's model deadline and an answer still invalid after its repair turn end the
conversation at once: the caller goes offline.

The breaker of an endpoint hears about every conversation: a validated answer is a success; an
answer still invalid after the repair turn is a failure, like a timeout or a malformed body. A
request the endpoint merely refused (400/422) is neither.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal

from django.conf import settings
from django.utils import timezone

from agent.llm.breaker import (
    breaker_key,
    breaker_record_failure,
    breaker_record_success,
    breaker_release_probe,
)
from agent.llm.endpoint import Endpoint, endpoints_configured, redact
from agent.llm.prompts import ITEMS_ARE_DATA
from agent.llm.replies import Reply, reply_object, reply_text
from agent.llm.transport import (
    REASON_BUDGET_SPENT,
    REASON_DEADLINE,
    REASON_INVALID_OUTPUT,
    REASON_NOT_CONFIGURED,
    LLMUnavailable,
    LLMUsage,
    Request,
    send,
    strict_refusal,
    strict_refused,
    strict_refused_remember,
)

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

log = logging.getLogger(__name__)

Role = Literal["router", "writer"]

MAX_TOKENS = {"router": 1000, "writer": 2000}
# Routing must be reproducible; writing stays close to the items but need not be byte-identical.
TEMPERATURE = {"router": 0.0, "writer": 0.2}
FUNCTION_NAME = "answer"
# Reasons that end the conversation instead of handing it to the next endpoint.
FINAL_REASONS = frozenset({REASON_BUDGET_SPENT, REASON_DEADLINE, REASON_INVALID_OUTPUT})


@dataclass(frozen=True)
class LLMResult:
    """A validated answer: ``value`` is what ``validate`` returned; ``repaired`` if it took two;
    ``endpoint`` the name of the endpoint that gave it."""

    value: Any
    usage: list[LLMUsage]
    repaired: bool
    endpoint: str = ""


# --- entry points -------------------------------------------------------------------------------


def llm_configured() -> bool:
    """True when an endpoint with a key is set; without one, every node runs offline."""
    return bool(endpoints_configured())


def llm_mode_label() -> str:
    """``"offline"``, or the configured model names (no URL, no key), for status pages."""
    models: list[str] = []
    for endpoint in endpoints_configured():
        models += [endpoint.router_model, endpoint.writer_model]
    return " / ".join(dict.fromkeys(models)) or "offline"


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
    deadline: float | None = None,
) -> LLMResult:
    """Ask for a structured choice: a forced function call whose arguments follow ``schema``
    (sent as strict; without ``strict`` to an endpoint that refused it).

    A JSON object in the message content is accepted too (servers without tool support). The
    parsed object goes to ``validate``; a rejected, unparsable or cut-off answer gets one repair
    turn. ``user`` is a user or a user id (for the token budget); ``deadline`` a
    ``time.monotonic()`` past which no call starts. Raises ``LLMUnavailable``.
    """
    spec = _Spec(
        user_id=_user_id(user),
        node=node,
        role=role,
        max_tokens=max_tokens or MAX_TOKENS[role],
        schema=schema,
        parse=lambda reply: validate(reply_object(reply, function=FUNCTION_NAME)),
        repair=_repair_choice,
        deadline=deadline,
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
    deadline: float | None = None,
    bound: Callable[[str], str] | None = None,
) -> LLMResult:
    """Ask for free text (markdown). ``validate`` checks it (e.g. citations are only given item
    numbers); a rejected or cut-off text gets one repair turn. ``bound`` cuts the text to what
    the caller will read before anything else sees it (the repair turn's echo included); a text
    it cut counts as cut off. Raises ``LLMUnavailable``.
    """
    spec = _Spec(
        user_id=_user_id(user),
        node=node,
        role=role,
        max_tokens=max_tokens or MAX_TOKENS[role],
        schema=None,
        parse=lambda reply: validate(reply_text(reply)),
        repair=_repair_text,
        deadline=deadline,
        bound=bound,
    )
    return _converse(spec, _opening(system, prompt))


# --- the conversation: endpoints in order, one call and at most one repair turn on each -------


@dataclass
class _Spec:
    """One node's request: who pays, which role, how to read and how to repair an answer."""

    user_id: int
    node: str
    role: Role
    max_tokens: int
    schema: dict[str, Any] | None
    parse: Callable[[Reply], Any]
    repair: Callable[[Reply, str], list[dict[str, Any]]]
    deadline: float | None
    bound: Callable[[str], str] | None = None
    usage: list[LLMUsage] = field(default_factory=list)

    def extra(self, *, strict: bool) -> dict[str, Any]:
        """The tool fields of the request (none for free text)."""
        if self.schema is None:
            return {}
        function: dict[str, Any] = {
            "name": FUNCTION_NAME,
            "description": f"Give the answer of the {self.node} step.",
            "parameters": self.schema,
        }
        if strict:
            function["strict"] = True
        return {
            "tools": [{"type": "function", "function": function}],
            "tool_choice": {"type": "function", "function": {"name": FUNCTION_NAME}},
        }


def _opening(system: str, prompt: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": f"{system.strip()}\n\n{ITEMS_ARE_DATA}"},
        {"role": "user", "content": prompt},
    ]


def _converse(spec: _Spec, messages: list[dict[str, Any]]) -> LLMResult:
    """Each endpoint in turn until one gives a valid answer or a final reason ends it."""
    endpoints = endpoints_configured()
    if not endpoints:
        raise LLMUnavailable(REASON_NOT_CONFIGURED, "no OPENAI_API_KEY")
    failure: LLMUnavailable | None = None
    for endpoint in endpoints:
        try:
            return _converse_on(spec, endpoint, messages)
        except LLMUnavailable as exc:
            failure = exc
            if exc.reason in FINAL_REASONS:
                break
            log.info("LLM %s: endpoint %s failed (%s)", spec.node, endpoint.name, exc.reason)
    assert failure is not None
    raise LLMUnavailable(failure.reason, failure.detail, spec.usage, endpoint=failure.endpoint)


def _converse_on(spec: _Spec, endpoint: Endpoint, messages: list[dict[str, Any]]) -> LLMResult:
    """Ask one endpoint, validate, send the error back once; settle its breaker either way."""
    model = endpoint.model(spec.role)
    key = breaker_key(endpoint.base_url, model)
    # The breaker is asked with the first call's budget (agent.llm.admission): one round trip.
    claimed_at = timezone.now()
    error = ""
    for attempt in range(2):
        admit_at = claimed_at if attempt == 0 else None
        try:
            reply = _call(
                spec, endpoint, messages, key=key, day=claimed_at.date(), admit_at=admit_at
            )
        except LLMUnavailable:
            # A failure the breaker counted has already released the probe; any other (a
            # refused request, the budget, the deadline) gives back a probe this call claimed.
            breaker_release_probe(key, claimed_at=claimed_at)
            raise
        try:
            if reply.truncated:
                raise ValueError("the answer was cut off at the output limit; answer more briefly")
            value = spec.parse(reply)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            error = _short(str(exc) or type(exc).__name__, 500)
            log.info("LLM %s answer rejected (attempt %d): %s", spec.node, attempt + 1, error)
            messages = [*messages, *spec.repair(reply, error)]
            continue
        breaker_record_success(key)
        return LLMResult(value, list(spec.usage), repaired=attempt > 0, endpoint=endpoint.name)
    breaker_record_failure(key, error=f"{REASON_INVALID_OUTPUT}: {error}")
    raise LLMUnavailable(REASON_INVALID_OUTPUT, error, spec.usage, endpoint=endpoint.name)


def _call(
    spec: _Spec,
    endpoint: Endpoint,
    messages: list[dict[str, Any]],
    *,
    key: str,
    day: date,
    admit_at: datetime | None,
) -> Reply:
    """One chat completion within the deadline; a refused ``strict`` is dropped and retried."""
    model = endpoint.model(spec.role)
    strict = spec.schema is not None and not strict_refused(key)
    request = Request(
        endpoint=endpoint,
        breaker=key,
        user_id=spec.user_id,
        node=spec.node,
        day=day,
        timeout=_time_left(spec),
        admit_at=admit_at,
        body={
            "model": model,
            "messages": messages,
            "temperature": TEMPERATURE[spec.role],
            "max_tokens": spec.max_tokens,
            **spec.extra(strict=strict),
        },
    )
    try:
        try:
            reply, usage = send(request, spec.max_tokens)
        except LLMUnavailable as exc:
            if not (strict and strict_refusal(exc)):
                raise
            strict_refused_remember(key)
            request.body.update(spec.extra(strict=False))
            request.timeout = _time_left(spec)
            reply, usage = send(request, spec.max_tokens)
    except LLMUnavailable as exc:
        raise LLMUnavailable(exc.reason, exc.detail, spec.usage, endpoint=endpoint.name) from None
    reply, usage = _bounded(spec, reply, usage)
    spec.usage.append(usage)
    return reply


def _bounded(spec: _Spec, reply: Reply, usage: LLMUsage) -> tuple[Reply, LLMUsage]:
    """The reply cut to the caller's bound; cut, or longer than the ``max_tokens`` sent (a
    server that did not honour it), it counts as truncated, like ``finish_reason: length``."""
    content = spec.bound(reply.content) if spec.bound else reply.content
    unhonoured = bool(reply.usage["reported"]) and usage.completion_tokens > spec.max_tokens
    over = content != reply.content or unhonoured
    if not over:
        return reply, usage
    cut = replace(reply, content=content, finish_reason="length")
    return cut, replace(usage, truncated=True)


def _time_left(spec: _Spec) -> float:
    """Seconds this call may take: the per-call timeout, cut to what the deadline leaves."""
    timeout = float(settings.OPENAI_TIMEOUT)
    if spec.deadline is None:
        return timeout
    left = spec.deadline - time.monotonic()
    if left <= 0:
        raise LLMUnavailable(REASON_DEADLINE, "the run's model time is spent", spec.usage)
    return min(timeout, max(left, 1.0))


def _repair_choice(reply: Reply, error: str) -> list[dict[str, Any]]:
    """The repair turn for a choice: the protocol wants a tool message per tool call."""
    retry = (
        f"That answer was rejected: {error}. Call {FUNCTION_NAME} again with a corrected answer."
    )
    call = reply.tool_call
    if call is None:
        return [
            {"role": "assistant", "content": reply.content},
            {"role": "user", "content": retry},
        ]
    echoed = {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name or FUNCTION_NAME, "arguments": call.arguments},
    }
    return [
        {"role": "assistant", "content": None, "tool_calls": [echoed]},
        {"role": "tool", "tool_call_id": call.id, "content": retry},
    ]


def _repair_text(reply: Reply, error: str) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": reply.content},
        {
            "role": "user",
            "content": f"That answer was rejected: {error}. Write the whole answer again, fixed.",
        },
    ]


# --- small helpers ----------------------------------------------------------------------------


def _short(text: str, limit: int) -> str:
    text = redact(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _user_id(user: AbstractBaseUser | int) -> int:
    return user if isinstance(user, int) else user.pk
