"""A real HTTP server on 127.0.0.1 speaking OpenAI chat completions, with scripted answers.

Built on ``bench.support.httpserver.ScriptedServer`` (real socket, one thread per request).
Point the official ``openai`` client (or ``settings.OPENAI_BASE_URL``) at ``server.url``::

    from bench.support.llmserver import LLMServer, tool_call, json_content, text, rate_limited, ...

    with LLMServer() as server:
        server.script(rate_limited(retry_after=1), tool_call({"chosen": ["36kr"]}))
        ... settings.OPENAI_BASE_URL = server.url ...
        assert server.count == 2
        assert server.requests[0]["model"] == "gpt-4o-mini"

Answers are taken from the queue in order; when it is empty, ``responder(request_json)`` decides
(default: a 500 saying the script ran out, so a test that makes an unexpected call fails loudly).
An answer is a ``Reply`` or a callable ``(Request) -> Reply | None``; the helpers below build
every misbehaviour the LLM backend must survive:

- ``tool_call(arguments)``: a forced function call (``finish_reason="tool_calls"``)
- ``json_content(obj)`` / ``text(s)``: the answer in ``message.content``
- ``truncated(s)``: content cut off (``finish_reason="length"``)
- ``rate_limited(retry_after)``: 429 with ``Retry-After``; ``server_error(status)``: 5xx
- ``hang()``: never answers (until the client gives up and the server stops)
- ``garbage(body, content_type)``: a body that is not a chat completion
- ``delayed(answer, seconds)``: any answer, late; ``LLMServer(delay=...)`` delays every call

``usage(prompt, completion, cached)`` sets the token counts an answer reports.

``profile(family)`` is a responder that answers every node of a run validly, in the reply shape
of one family of servers (``PROFILES``); ``careless_writer(request)`` is a model that writes
everything a brief must not hold.
"""

from __future__ import annotations

import collections
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from bench.support.httpserver import Reply, Request, ScriptedServer

Answer = Reply | Callable[[Request], Reply | None]
COMPLETIONS_PATH = "/v1/chat/completions"
HANG_MAX_SECONDS = 120.0
_ids = itertools.count(1)


def usage(prompt: int = 120, completion: int = 30, cached: int | None = None) -> dict[str, Any]:
    """The ``usage`` object of a completion; ``cached`` adds ``prompt_tokens_details``."""
    data: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached is not None:
        data["prompt_tokens_details"] = {"cached_tokens": cached}
    return data


def completion(
    message: dict[str, Any], *, finish_reason: str, tokens: dict[str, Any] | None = None
) -> Callable[[Request], Reply]:
    """A 200 chat completion carrying ``message``; the model name echoes the request's."""

    def answer(request: Request) -> Reply:
        body = request.json() or {}
        return Reply.json(
            {
                "id": f"chatcmpl-{next(_ids)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "test-model"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
                "usage": tokens if tokens is not None else usage(),
            }
        )

    return answer


def tool_call(
    arguments: dict[str, Any] | str,
    *,
    name: str | None = None,
    tokens: dict[str, Any] | None = None,
    finish_reason: str = "tool_calls",
) -> Callable[[Request], Reply]:
    """A function call; ``arguments`` is JSON-encoded unless it is already a (maybe broken) string.

    The function name defaults to the one the request forced through ``tool_choice``.
    """
    encoded = arguments if isinstance(arguments, str) else json.dumps(arguments)

    def answer(request: Request) -> Reply:
        forced = ((request.json() or {}).get("tool_choice") or {}).get("function", {})
        call = {
            "id": f"call_{next(_ids)}",
            "type": "function",
            "function": {"name": name or forced.get("name", "answer"), "arguments": encoded},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return completion(message, finish_reason=finish_reason, tokens=tokens)(request)

    return answer


def text(
    content: str, *, tokens: dict[str, Any] | None = None, finish_reason: str = "stop"
) -> Callable[[Request], Reply]:
    """A plain assistant message in ``content``."""
    message = {"role": "assistant", "content": content}
    return completion(message, finish_reason=finish_reason, tokens=tokens)


def json_content(obj: Any, *, tokens: dict[str, Any] | None = None) -> Callable[[Request], Reply]:
    """The structured answer as JSON in ``content`` (JSON mode, or a server ignoring tools)."""
    return text(json.dumps(obj), tokens=tokens)


def truncated(content: str, *, tokens: dict[str, Any] | None = None) -> Callable[[Request], Reply]:
    """Content cut off at the output limit: ``finish_reason="length"``."""
    return text(content, tokens=tokens, finish_reason="length")


def _error_body(message: str, kind: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": kind, "code": None}}).encode()


def rate_limited(retry_after: float | None = 1) -> Reply:
    """429 with an OpenAI error body, and ``Retry-After`` (seconds) unless it is None."""
    headers = {"Content-Type": "application/json"}
    if retry_after is not None:
        headers["Retry-After"] = f"{retry_after:g}"
    return Reply(429, headers, _error_body("Rate limit reached", "rate_limit_exceeded"))


def server_error(status: int = 500, message: str = "The server had an error") -> Reply:
    """A 5xx (or any status) with an OpenAI error body."""
    return Reply(status, {"Content-Type": "application/json"}, _error_body(message, "server_error"))


def garbage(
    body: bytes = b"<html><body>502 Bad Gateway</body></html>",
    content_type: str = "application/json",
    status: int = 200,
) -> Reply:
    """A body that is not a chat completion (by default HTML labelled as JSON, with a 200)."""
    return Reply(status, {"Content-Type": content_type}, body)


def hang(max_seconds: float = HANG_MAX_SECONDS) -> Callable[[Request], None]:
    """Never answer: hold the connection until the server stops (or ``max_seconds``)."""

    def answer(request: Request) -> None:
        request.stopping.wait(max_seconds)

    return answer


def delayed(answer: Answer, seconds: float) -> Callable[[Request], Reply | None]:
    """Any answer, given after ``seconds``."""

    def late(request: Request) -> Reply | None:
        time.sleep(seconds)
        return answer(request) if callable(answer) else answer

    return late


def _script_exhausted(body: dict[str, Any]) -> Answer:
    return server_error(500, "LLMServer: no scripted answer left for this request")


class LLMServer:
    """An OpenAI-compatible chat-completions endpoint on 127.0.0.1 that answers from a script.

    ``responder(request_json) -> Answer`` answers once the queue is empty; ``delay`` seconds pass
    before every answer. ``requests`` holds every chat-completion request body, in arrival order.
    """

    def __init__(
        self,
        *,
        responder: Callable[[dict[str, Any]], Answer] | None = None,
        delay: float = 0.0,
    ) -> None:
        self.responder = responder or _script_exhausted
        self.delay = delay
        self._queue: collections.deque[Answer] = collections.deque()
        self._lock = threading.Lock()
        self._server = ScriptedServer()
        self._server.route(COMPLETIONS_PATH, self._answer)

    @property
    def url(self) -> str:
        """The base URL for the client (``.../v1``)."""
        return f"{self._server.url}/v1"

    def script(self, *answers: Answer) -> LLMServer:
        """Queue answers for the next requests, in order."""
        with self._lock:
            self._queue.extend(answers)
        return self

    @property
    def pending(self) -> int:
        """Scripted answers not used yet."""
        with self._lock:
            return len(self._queue)

    @property
    def raw_requests(self) -> list[Request]:
        return self._server.requests_to(COMPLETIONS_PATH)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the chat-completion requests received so far."""
        return [request.json() for request in self.raw_requests]

    @property
    def count(self) -> int:
        return len(self.raw_requests)

    def _answer(self, request: Request) -> Reply | None:
        if self.delay:
            time.sleep(self.delay)
        with self._lock:
            answer = self._queue.popleft() if self._queue else None
        if answer is None:
            answer = self.responder(request.json() or {})
        return answer(request) if callable(answer) else answer

    def start(self) -> LLMServer:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()


# --- server families: a valid answer to any node, in each family's reply shape -----------------

PROFILES = (
    "openai",  # forced tool call, arguments a JSON string, finish_reason "tool_calls"
    "json_content",  # no tool support: the JSON object in content, finish_reason "stop"
    "fenced_json",  # the JSON fenced as ```json in content
    "reasoning",  # reasoning_content beside the content (DeepSeek-style reasoning models)
    "finish_null",  # finish_reason null (some llama.cpp / proxy builds)
    "finish_eos",  # finish_reason "eos" (some vLLM / TGI builds)
    "content_parts",  # content as a list of {"type": "text", "text": ...} parts
    "arguments_object",  # tool call arguments sent as a JSON object, not a string
)
GOOD_BRIEF = "The first item leads the feed [1]. The second one followed it [2]."


def honest_brief(prompt: str) -> str:
    """The titles of the first two items the prompt fences, each citing its item: a brief whose
    every sentence its cited item supports (``GOOD_BRIEF`` when the prompt fences none)."""
    fenced = prompt.split("<items>\n", 1)[-1].split("\n</items>", 1)[0]
    titles = re.findall(r'<item n="(\d+)"[^>]*>\n([^\n]+)', fenced)
    return " ".join(f"{title.rstrip('.')} [{n}]." for n, title in titles[:2]) or GOOD_BRIEF


def node_of(body: dict[str, Any]) -> str:
    """Which node a request comes from: rewrite, platform, route, translate, or summarize (no
    tools)."""
    tools = body.get("tools") or []
    if not tools:
        return "summarize"
    properties = tools[0]["function"]["parameters"]["properties"]
    if "titles" in properties:
        return "translate"
    return "rewrite" if "query" in properties else "platform" if "chosen" in properties else "route"


def translated_titles(prompt: str) -> dict[str, Any]:
    """A translator's answer to the titles the prompt fences: a stand-in title in the language
    asked (``Translate into: ...``) for each item, with its n."""
    numbers = re.findall(r'<item n="(\d+)"', prompt)
    chinese = "Chinese" in prompt.split("\n", 1)[0]
    title = "译文标题第{}条" if chinese else "Translated title number {}"
    return {"titles": [{"n": int(n), "title": title.format(n)} for n in numbers]}


def valid_answer(body: dict[str, Any]) -> Any:
    """A valid answer to the node asking: a JSON-able object, or the brief's text."""
    node = node_of(body)
    prompt = body["messages"][1]["content"]
    if node == "summarize":
        return honest_brief(prompt)
    if node == "translate":
        return translated_titles(prompt)
    schema = body["tools"][0]["function"]["parameters"]["properties"]
    if node == "rewrite":
        question = prompt.split("Question: ", 1)[1].split("\n", 1)[0]
        return {"query": question, "language": "en", "keywords": question.split()[:3],
                "window": "latest", "window_hours": None}  # fmt: skip
    if node == "platform":
        offered = schema["chosen"]["items"]["enum"]
        named = [o for o in offered if o in prompt.lower()] or offered
        return {"chosen": named[:1], "reason": "named in the query"}
    options = schema["routes"]["items"]["anyOf"]
    bare = [o for o in options if not o["properties"]["params"]["properties"]] or options
    template = bare[0]["properties"]["route"]["enum"][0]
    params = dict.fromkeys(bare[0]["properties"]["params"]["properties"])
    return {"routes": [{"route": template, "params": params}], "needs_input": [], "reason": "fits"}


def shaped(family: str, answer: Any) -> Callable[[Request], Reply]:
    """``answer`` in the reply shape of ``family``."""
    if isinstance(answer, str):  # the writer's text
        content: Any = answer
        if family == "content_parts":
            content = [{"type": "text", "text": answer[:20]}, {"type": "text", "text": answer[20:]}]
        message = {"role": "assistant", "content": content}
        if family == "reasoning":
            message["reasoning_content"] = 'Thinking: cite [9] and say {"x": 1}.'
        return completion(message, finish_reason=_finish(family, "stop"))
    encoded = json.dumps(answer)
    if family in ("openai", "finish_null", "finish_eos", "arguments_object"):
        arguments = answer if family == "arguments_object" else encoded
        call = {"id": f"call_{next(_ids)}", "type": "function",
                "function": {"name": "answer", "arguments": arguments}}  # fmt: skip
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return completion(message, finish_reason=_finish(family, "tool_calls"))
    content = {
        "json_content": encoded,
        "fenced_json": f"Here is the answer:\n```json\n{encoded}\n```",
        "reasoning": encoded,
        "content_parts": [{"type": "text", "text": encoded}],
    }[family]
    message = {"role": "assistant", "content": content}
    if family == "reasoning":
        message["reasoning_content"] = "The user wants {not json. Choose the first."
    return completion(message, finish_reason="stop")


def _finish(family: str, normal: str) -> Any:
    return {"finish_null": None, "finish_eos": "eos"}.get(family, normal)


def profile(family: str) -> Callable[[dict[str, Any]], Answer]:
    """A responder answering every node validly, the way ``family`` shapes its replies."""
    if family not in PROFILES:
        raise ValueError(f"unknown profile {family!r}")
    return lambda body: shaped(family, valid_answer(body))


def careless_writer(body: dict[str, Any]) -> str:
    """A writer that cites items that do not exist, states what no item says, invents dates,
    copies an item's text with its bracketed number, and adds links and an image; one sentence
    of it (the first item's title, citing it) is a good one."""
    prompt = body["messages"][1]["content"]
    first_title = prompt.split("<items>\n", 1)[1].split("\n")[1]
    return "\n".join(
        [
            "## Breaking",
            "",
            f"{first_title} [1].",
            "Aliens landed and chip makers fled [7]. Prices doubled [42] [99].",
            "Analysts agree this is the biggest story of the year.",
            "It all began on March 3, 2019 [1]. Markets reopened on 2019-03-04 [2].",
            "昨天市场大涨 [1]。",
            f"- {first_title}",
            "- See [the details](https://evil.example/x) ![pixel](https://evil.example/p.png)",
            "- <b>Bold</b> claim <a href='https://evil.example'>here</a>",
        ]
    )
