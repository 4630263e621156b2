"""The LLM backend of the agent: structured choices and written briefs from any OpenAI-compatible
endpoint, with validation, one repair turn, a shared circuit breaker and a per-user token budget.

Contract for the agent. Everything here is **sync** (the budget and the breaker are ORM work):
call it through ``sync_to_async`` or ``asyncio.to_thread``, outside any open transaction (a
budget reservation must commit at once to count for other workers).

- ``llm_choose(...)`` / ``llm_write(...)`` return an ``LLMResult`` whose ``value`` is what the
  caller's ``validate`` returned, or raise ``LLMUnavailable``. On ``LLMUnavailable`` the node uses
  its offline method and records ``llm_fallback {node, reason}``; it still records ``exc.usage``
  (tokens already spent on answers that failed validation).
- ``validate`` raises ``ValueError`` (``TypeError``/``KeyError`` count the same) with a message
  the model can act on; it is sent back once as the repair turn. A cut-off answer
  (``finish_reason`` ``length`` or ``content_filter``) is flagged ``truncated`` and repaired the
  same. An answer still invalid after the repair counts against the endpoint's breaker.
- ``deadline`` (a ``time.monotonic()`` value) bounds a run's model time: no call starts after
  it, and a call's timeout is cut to what is left.
- Every answer received is one ``LLMUsage``; ``as_payload()`` is the ``llm_usage`` step payload.
- ``LLMUnavailable.reason`` is one of the ``REASON_*`` strings; ``detail`` says a little more.
  Neither, nor any log line, contains the API key.
- Item text goes into prompts only through ``fenced_items`` (any ``FencedItem``); every system
  prompt gets ``ITEMS_ARE_DATA`` appended. ``SYSTEM_REWRITE``/``SYSTEM_ROUTER``/``SYSTEM_WRITER``
  are base prompts; ``now_text()`` is the current date, time and zone every prompt carries.

Modules: ``calls`` (the conversation, endpoint failover), ``transport`` (one call: budget,
request, accounting), ``replies`` (reading any server's reply), ``endpoint`` (endpoints, the SDK
client and its bounds), ``breaker`` (shared circuit breaker), ``budget`` (daily token budget),
``prompts`` (system prompts, fencing).
"""

from agent.llm.calls import (
    LLMResult,
    Role,
    llm_choose,
    llm_configured,
    llm_mode_label,
    llm_write,
)
from agent.llm.prompts import (
    ITEMS_ARE_DATA,
    SYSTEM_REWRITE,
    SYSTEM_ROUTER,
    SYSTEM_WRITER,
    FencedItem,
    PromptItem,
    fenced_items,
    now_text,
    window_text,
)
from agent.llm.transport import (
    REASON_BREAKER_OPEN,
    REASON_BUDGET_SPENT,
    REASON_CONNECTION,
    REASON_DEADLINE,
    REASON_INVALID_OUTPUT,
    REASON_MALFORMED,
    REASON_NOT_CONFIGURED,
    REASON_RATE_LIMITED,
    REASON_REJECTED,
    REASON_SERVER_ERROR,
    REASON_TIMEOUT,
    LLMUnavailable,
    LLMUsage,
)

__all__ = [
    "ITEMS_ARE_DATA",
    "REASON_BREAKER_OPEN",
    "REASON_BUDGET_SPENT",
    "REASON_CONNECTION",
    "REASON_DEADLINE",
    "REASON_INVALID_OUTPUT",
    "REASON_MALFORMED",
    "REASON_NOT_CONFIGURED",
    "REASON_RATE_LIMITED",
    "REASON_REJECTED",
    "REASON_SERVER_ERROR",
    "REASON_TIMEOUT",
    "SYSTEM_REWRITE",
    "SYSTEM_ROUTER",
    "SYSTEM_WRITER",
    "FencedItem",
    "LLMResult",
    "LLMUnavailable",
    "LLMUsage",
    "PromptItem",
    "Role",
    "fenced_items",
    "llm_choose",
    "llm_configured",
    "llm_mode_label",
    "llm_write",
    "now_text",
    "window_text",
]
