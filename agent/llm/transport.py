"""One HTTP call to one endpoint: budget reservation, request, reading, accounting.

Whatever happens between reserving the budget and reading the reply (an SDK error, a body that
is not JSON, JSON nested a thousand deep, a bug), the reservation is settled in a ``finally``
and the failure reaches the caller as ``LLMUnavailable`` with one of the ``REASON_*`` strings.
The breaker hears here only about failures of the endpoint itself; whether an answer was good
is for the conversation (``calls``) to say.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import asdict, dataclass
from datetime import date, datetime
from typing import Any

import openai
from django.conf import settings

from agent.llm.admission import REFUSED_BREAKER, REFUSED_BUDGET, call_admit
from agent.llm.breaker import breaker_record_failure
from agent.llm.budget import budget_reserve, budget_settle, estimate_tokens
from agent.llm.endpoint import Endpoint, EndpointStalled, redact
from agent.llm.replies import Malformed, Reply, reply_parse

log = logging.getLogger(__name__)

REASON_NOT_CONFIGURED = "not configured"
REASON_BREAKER_OPEN = "breaker open"
REASON_BUDGET_SPENT = "daily token budget spent"
REASON_DEADLINE = "model deadline passed"
REASON_TIMEOUT = "timeout"
REASON_RATE_LIMITED = "rate limited"
REASON_CONNECTION = "connection error"
REASON_SERVER_ERROR = "server error"
REASON_REJECTED = "request rejected"
REASON_MALFORMED = "malformed response"
REASON_INVALID_OUTPUT = "invalid output"


@dataclass(frozen=True)
class LLMUsage:
    """One answer received from the model. Tokens are estimates when the endpoint reported none;
    ``endpoint`` is the name of the endpoint that answered."""

    node: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    latency_ms: int
    truncated: bool
    endpoint: str = ""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_payload(self) -> dict[str, Any]:
        """The payload of the ``llm_usage`` run step."""
        return asdict(self)


class LLMUnavailable(Exception):
    """The model gave no usable answer; the caller uses its offline method for this node.

    ``endpoint`` names the endpoint that failed last; ``status`` is the HTTP status of a refused
    request (else 0)."""

    def __init__(
        self,
        reason: str,
        detail: str = "",
        usage: list[LLMUsage] | None = None,
        *,
        endpoint: str = "",
        status: int = 0,
    ):
        self.reason = reason
        self.detail = redact(detail)
        self.usage = list(usage or [])
        self.endpoint = endpoint
        self.status = status
        super().__init__(f"{reason}: {self.detail}" if self.detail else reason)


@dataclass
class Request:
    """One chat completion to send: where, for whom, within how long."""

    endpoint: Endpoint
    breaker: str
    user_id: int
    node: str
    day: date
    timeout: float
    body: dict[str, Any]
    # The first call of a conversation with this endpoint: its breaker is asked together with
    # the budget, at this moment (``agent.llm.admission``). None: already admitted.
    admit_at: datetime | None = None


def send(request: Request, max_tokens: int) -> tuple[Reply, LLMUsage]:
    """Reserve the budget (and, on a first call, pass the breaker), POST, read the reply; the
    reservation is settled whatever happens."""
    prompt_estimate = estimate_tokens(request.body)
    reserved = prompt_estimate + max_tokens
    _admit(request, reserved)
    spent, started = 0, time.monotonic()
    try:
        reply = _post(request)
        usage = _usage(request, reply, started, prompt_estimate)
        spent = usage.total_tokens
        return reply, usage
    except Exception as exc:
        raise _failure(request, exc) from None
    finally:
        budget_settle(user_id=request.user_id, day=request.day, reserved=reserved, spent=spent)


def _admit(request: Request, tokens: int) -> None:
    if request.admit_at is None:
        refused = (
            ""
            if budget_reserve(user_id=request.user_id, tokens=tokens, day=request.day)
            else REFUSED_BUDGET
        )
    else:
        refused = call_admit(
            key=request.breaker, user_id=request.user_id, tokens=tokens, day=request.day,
            now=request.admit_at,
        )  # fmt: skip
        request.admit_at = None  # once per conversation: a retry of this request is admitted
    if refused == REFUSED_BREAKER:
        model = request.body["model"]
        raise LLMUnavailable(
            REASON_BREAKER_OPEN, f"{model} failed repeatedly", endpoint=request.endpoint.name
        )
    if refused == REFUSED_BUDGET:
        limit = settings.LLM_DAILY_TOKEN_BUDGET
        raise LLMUnavailable(REASON_BUDGET_SPENT, f"{limit} tokens a day")


def _post(request: Request) -> Reply:
    client = request.endpoint.client(float(settings.OPENAI_TIMEOUT))
    raw = client.chat.completions.with_raw_response.create(**request.body, timeout=request.timeout)
    return reply_parse(raw.http_response.content)


def _failure(request: Request, exc: Exception) -> LLMUnavailable:
    reason, detail, endpoint_fault = _classify(exc, request.timeout)
    if endpoint_fault:
        breaker_record_failure(request.breaker, error=f"{reason}: {detail}")
    log.warning(
        "LLM %s call to %s failed: %s (%s)",
        request.node,
        request.endpoint.name,
        reason,
        redact(detail),
    )
    status = exc.status_code if isinstance(exc, openai.APIStatusError) else 0
    return LLMUnavailable(reason, detail, endpoint=request.endpoint.name, status=status)


def _usage(request: Request, reply: Reply, started: float, prompt_estimate: int) -> LLMUsage:
    tokens = reply.usage
    if tokens["reported"]:
        prompt, answer = tokens["prompt_tokens"], tokens["completion_tokens"]
    else:  # some compatible servers report no usage: charge an estimate rather than nothing
        prompt = prompt_estimate
        answer = estimate_tokens([reply.content, reply.tool_call and asdict(reply.tool_call)])
    return LLMUsage(
        node=request.node,
        model=reply.model or request.body["model"],
        prompt_tokens=prompt,
        completion_tokens=answer,
        cached_tokens=tokens["cached_tokens"],
        latency_ms=int((time.monotonic() - started) * 1000),
        truncated=reply.truncated,
        endpoint=request.endpoint.name,
    )


def _classify(exc: Exception, timeout: float) -> tuple[str, str, bool]:
    """(reason, detail, whether the endpoint is at fault and the breaker should count it)."""
    if isinstance(exc, EndpointStalled | openai.APITimeoutError):
        return REASON_TIMEOUT, f"no answer within {timeout:g} s", True
    if isinstance(exc, openai.APIConnectionError):
        return REASON_CONNECTION, "could not reach the endpoint", True
    if isinstance(exc, openai.RateLimitError):
        return REASON_RATE_LIMITED, _status_detail(exc), True
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code >= 500:
            return REASON_SERVER_ERROR, _status_detail(exc), True
        # 400/422 concern this request; 401/403/404 mean every request will fail the same way.
        return REASON_REJECTED, _status_detail(exc), exc.status_code in (401, 403, 404)
    if isinstance(exc, Malformed):
        return REASON_MALFORMED, str(exc), True
    if isinstance(exc, ValueError | RecursionError | openai.APIResponseValidationError):
        return REASON_MALFORMED, "the body is not a readable chat completion", True
    log.error("LLM call failed unexpectedly", exc_info=exc)
    return REASON_MALFORMED, type(exc).__name__, True


def _status_detail(exc: openai.APIStatusError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body)
    message = error.get("message") if isinstance(error, dict) else None
    if not message:
        return f"HTTP {exc.status_code}"
    text = str(message)
    return f"HTTP {exc.status_code}: " + (text if len(text) <= 200 else text[:199] + "…")


# Endpoints (breaker keys) that refused a strict schema: later calls send it without ``strict``.
_strict_refused: set[str] = set()
_strict_lock = threading.Lock()


def strict_refusal(exc: LLMUnavailable) -> bool:
    """Whether a refused request reads as a refusal of ``strict`` (or of the strict schema)."""
    words = ("strict", "schema", "additionalproperties", "tool")
    return exc.status in (400, 422) and any(w in exc.detail.lower() for w in words)


def strict_refused(key: str) -> bool:
    with _strict_lock:
        return key in _strict_refused


def strict_refused_remember(key: str) -> None:
    with _strict_lock:
        _strict_refused.add(key)


def strict_refusals_forget() -> None:
    """Forget every endpoint's refusal (the next call tries ``strict`` again): for a process that
    starts anew with other endpoints, such as each test."""
    with _strict_lock:
        _strict_refused.clear()
