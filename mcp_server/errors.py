"""What a tool reports when it cannot do what was asked: the REST API's message for the same
failure, never a traceback.

``api.errors`` is the one home of those messages (``"No such brief."``, ``"question: The
question is empty."``, ``"The quota of 200 briefs a day is spent."``, the throttle's "Request was
throttled..."); this module only carries them into an MCP tool error. Anything it does not know is
logged with its traceback and reported as the API reports a 500.
"""

import logging

import mcp_types as types

from api.errors import api_exception, error_body

log = logging.getLogger(__name__)

INTERNAL_ERROR_MESSAGE = "Internal server error."


class ToolFailed(Exception):
    """A tool call that cannot be carried out; ``message`` is safe to show to the caller."""

    def __init__(self, message: str, extra: dict | None = None):
        super().__init__(message)
        self.message = message
        self.extra = extra or {}


def failure_body(exc: Exception, *, where: str) -> dict:
    """``{"message", "extra"}`` as the API's error body says it; an unexpected error is logged
    (naming ``where``) and becomes the API's "Internal server error."."""
    if isinstance(exc, ToolFailed):
        return {"message": exc.message, "extra": exc.extra}
    api_exc = api_exception(exc)
    if api_exc is None:
        log.error("MCP %s failed", where, exc_info=exc)
        return {"message": INTERNAL_ERROR_MESSAGE, "extra": {}}
    return error_body(api_exc)


def tool_error(body: dict) -> types.CallToolResult:
    """An MCP tool error: ``isError`` with the message as text (what a model reads) and the
    API's error body as structured content (what a program reads)."""
    return types.CallToolResult(
        content=[types.TextContent(text=body["message"])],
        structured_content=body,
        is_error=True,
    )
