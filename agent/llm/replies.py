"""Reading what an OpenAI-compatible server sent back, whatever shape it has.

The body is parsed here, not by the SDK (which builds its models without validating them, so a
list where a string belongs reaches the caller as-is). Servers differ:

- OpenAI, vLLM, DeepSeek: tool calls whose ``arguments`` is a JSON string;
- some servers send ``arguments`` as an object, or ``content`` as a list of parts
  (``{"type": "text", "text": ...}``), or put the JSON in ``content`` (no tool support), bare or
  fenced as ```json, sometimes after a ``<think>`` block;
- reasoning models add ``reasoning_content`` beside the content: ignored, never the answer;
- ``finish_reason`` may be ``stop``, ``tool_calls``, ``null``, ``eos``, ``end_turn``...: only
  ``length`` and ``content_filter`` mean the answer was cut off.

Anything else (not JSON, nested past ``MAX_DEPTH``, no choices, no message) raises
``Malformed``: the call failed as a ``malformed response``. Nothing here raises anything else.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

TRUNCATED_FINISH_REASONS = frozenset({"length", "content_filter"})
MAX_DEPTH = 64  # deeper JSON is hostile or broken; json itself would recurse far past this
MAX_BODY_BYTES = 4 * 1024 * 1024
_FENCED = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)


class Malformed(ValueError):
    """The body is not a chat completion this module can read."""


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # always text: an object sent as such is re-encoded


@dataclass(frozen=True)
class Reply:
    """The first choice of a completion, read into plain values."""

    content: str
    tool_call: ToolCall | None
    finish_reason: str | None
    model: str
    usage: dict[str, int]

    @property
    def truncated(self) -> bool:
        return self.finish_reason in TRUNCATED_FINISH_REASONS


def reply_parse(body: bytes) -> Reply:
    """The ``Reply`` of a raw response body; ``Malformed`` for anything unreadable."""
    data = json_load(body[: MAX_BODY_BYTES + 1], what="the body")
    if len(body) > MAX_BODY_BYTES:
        raise Malformed("the body is too large")
    if not isinstance(data, dict):
        raise Malformed("the body is not a chat completion")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise Malformed("the completion has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise Malformed("the completion has no message")
    finish = choices[0].get("finish_reason")
    return Reply(
        content=_content_text(message.get("content")),
        tool_call=_first_tool_call(message.get("tool_calls")),
        finish_reason=finish if isinstance(finish, str) else None,
        model=data["model"] if isinstance(data.get("model"), str) else "",
        usage=_usage(data.get("usage")),
    )


def json_load(raw: str | bytes, *, what: str) -> Any:
    """``json.loads`` that fails only with ``Malformed``, also on absurd nesting."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if _depth_exceeds(text, MAX_DEPTH):
            raise Malformed(f"{what} is nested too deeply")
        return json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        if isinstance(exc, Malformed):
            raise
        raise Malformed(f"{what} is not valid JSON") from None


def _depth_exceeds(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` (a linear scan, no recursion)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _content_text(content: Any) -> str:
    """A string content, or the text parts of a list content joined; anything else is empty."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(_part_text(part) for part in content)


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    is_text = isinstance(part, dict) and part.get("type", "text") in ("text", "output_text")
    return part["text"] if is_text and isinstance(part.get("text"), str) else ""


def _first_tool_call(calls: Any) -> ToolCall | None:
    if not isinstance(calls, list) or not calls or not isinstance(calls[0], dict):
        return None
    call = calls[0]
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    arguments = function.get("arguments")
    if isinstance(arguments, dict | list):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return ToolCall(
        id=call["id"] if isinstance(call.get("id"), str) and call["id"] else "call_0",
        name=function["name"] if isinstance(function.get("name"), str) else "",
        arguments=arguments if isinstance(arguments, str) else "",
    )


def _usage(usage: Any) -> dict[str, int]:
    """Reported token counts (0 when absent or not a non-negative int)."""
    usage = usage if isinstance(usage, dict) else {}
    details = usage.get("prompt_tokens_details")
    details = details if isinstance(details, dict) else {}
    return {
        "prompt_tokens": _count(usage.get("prompt_tokens")),
        "completion_tokens": _count(usage.get("completion_tokens")),
        "cached_tokens": _count(details.get("cached_tokens")),
        "reported": int(isinstance(usage.get("prompt_tokens"), int)),
    }


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def reply_object(reply: Reply, *, function: str) -> dict[str, Any]:
    """The JSON object of the answer: the tool call's arguments, else one found in the content
    (bare, fenced, or the outermost braces, after any ``<think>`` block). ``ValueError`` (a
    repairable answer) when there is none."""
    raw = reply.tool_call.arguments if reply.tool_call else _json_in_content(reply.content)
    if not raw.strip():
        raise ValueError(f"no answer: call the function {function} with the arguments")
    try:
        data = json_load(raw, what="the arguments")
    except Malformed as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(data, dict):
        raise ValueError("the arguments must be a JSON object")
    return data


def _json_in_content(content: str) -> str:
    text = _THINK.sub("", content).strip()
    if fenced := _FENCED.search(text):
        return fenced.group(1).strip()
    if text.startswith("{"):
        return text
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


def reply_text(reply: Reply) -> str:
    """The free-text answer (after any ``<think>`` block); ``ValueError`` when empty."""
    text = _THINK.sub("", reply.content).strip()
    if not text:
        raise ValueError("the answer was empty")
    return text
