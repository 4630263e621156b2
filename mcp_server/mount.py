"""``/mcp/`` beside Django in the web process, with the MCP SDK imported at the first MCP request.

Why not at start: the SDK and what it pulls in (pydantic models, anyio, starlette) are ~55 MB of
resident memory in every web process, most of which never serve MCP. The first MCP request pays
the import once (about a second, on the event loop: every other request waits that long once);
every later one finds the app built. Two first requests at once may both build it; either app
serves, since the server is stateless (``mcp_server.http``).
"""

from collections.abc import Awaitable, Callable

ASGIApp = Callable[[dict, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]],
                   Awaitable[None]]  # fmt: skip
MCP_PATHS = frozenset({"/mcp", "/mcp/"})


def mcp_mounted(django_app: ASGIApp) -> ASGIApp:
    """``django_app`` with ``/mcp/`` served by the MCP server."""
    mcp_app: ASGIApp | None = None

    async def application(scope: dict, receive, send) -> None:
        nonlocal mcp_app
        if scope["type"] == "http" and scope["path"] in MCP_PATHS:
            if mcp_app is None:
                from mcp_server.http import McpHttpApp
                from mcp_server.server import build_server

                mcp_app = McpHttpApp(build_server())
            await mcp_app(scope, receive, send)
        else:
            await django_app(scope, receive, send)

    return application
