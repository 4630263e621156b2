"""The MCP server itself: the SDK's low-level ``Server`` with this service's tools and resources.

One server object serves both transports. Over stdio it acts as the one user the command was
started for; over HTTP each request brings its caller, authenticated by ``mcp_server.http``
before the SDK sees the request, in the ASGI scope (``CALLER_KEY``).

Over HTTP every request counts against the API's request throttle before it reaches this server
(``mcp_server.http``); a call that creates a brief goes through the briefs' admission
(``briefs.admission``: quota, per-minute throttle, token budget) like every other way in. A tool
that fails answers with an MCP tool error in the API's words (``mcp_server.errors``); an unknown
tool or resource is a JSON-RPC error, as the protocol has it.
"""

import contextlib
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from mcp_server.briefs_tools import BRIEF_TOOLS
from mcp_server.caller import Caller
from mcp_server.catalog_tools import CATALOG_TOOLS
from mcp_server.errors import failure_body, tool_error
from mcp_server.follow import in_thread
from mcp_server.resources import BRIEF_TEMPLATE, ResourceUnknown, resource_read, resources_listed
from mcp_server.tool import ProgressReport, ToolCall

SERVER_NAME = "rsshub-agent"
CALLER_KEY = "rsshub_agent.mcp_caller"
TOOLS = {tool.name: tool for tool in (*BRIEF_TOOLS, *CATALOG_TOOLS)}
INSTRUCTIONS = (
    "RSSHub Agent answers time-sensitive questions (what is new on a site, the latest news on a "
    "subject) from RSSHub feeds it fetches at the time of asking. Use ask for anything recent "
    "rather than your own knowledge: the answer cites each claim as [n], an item with its link "
    "and publication time, and says as of when it holds. Quote those citations to the user. "
    "search_routes and route_health show which sources exist and how healthy they are; "
    "list_briefs and get_brief read earlier answers; follow_up refines one."
)


def _caller(ctx: ServerRequestContext[Any, Any], fixed: Caller | None) -> Caller:
    if fixed is not None:
        return fixed
    request = ctx.request
    caller = request.scope.get(CALLER_KEY) if request is not None else None
    if caller is None:  # the HTTP app authenticates every request before the SDK sees it
        raise MCPError(code=types.INVALID_REQUEST, message="Not authenticated.")
    return caller


def _progress_reporter(ctx: ServerRequestContext[Any, Any]) -> ProgressReport:
    async def report(progress: float, message: str) -> None:
        # A client that went away hears nothing more; its call is cancelled soon after.
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await ctx.session.report_progress(progress, None, message)

    return report


def build_server(*, caller: Caller | None = None) -> Server:
    """The server; ``caller`` fixes who calls (stdio), else each HTTP request says it."""

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool.as_tool() for tool in TOOLS.values()])

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = TOOLS.get(params.name)
        if tool is None:
            known = ", ".join(TOOLS)
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"No such tool: {params.name[:100]!r}. The tools are: {known}.",
            )
        who = _caller(ctx, caller)
        call = ToolCall(caller=who, arguments=params.arguments, progress=_progress_reporter(ctx))
        try:
            answer = await tool.run(call)
        except Exception as exc:
            return tool_error(failure_body(exc, where=f"tool {tool.name}"))
        return answer.as_result()

    async def list_resources(ctx, params) -> types.ListResourcesResult:
        resources = await in_thread(resources_listed)(caller=_caller(ctx, caller))
        return types.ListResourcesResult(resources=resources)

    async def list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[BRIEF_TEMPLATE])

    async def read_resource(ctx, params: types.ReadResourceRequestParams):
        who = _caller(ctx, caller)
        try:
            return await in_thread(resource_read)(caller=who, uri=params.uri)
        except ResourceUnknown:
            message = f"No such resource: {params.uri[:200]!r}."
        except Exception as exc:
            message = failure_body(exc, where="resource read")["message"]
        raise MCPError(code=types.INVALID_PARAMS, message=message)

    return Server(
        SERVER_NAME,
        version="1.0",
        title="RSSHub Agent",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=lambda name: TOOLS[name].input_schema if name in TOOLS else None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
    )
