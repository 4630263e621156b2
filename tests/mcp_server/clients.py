"""The SDK's own client, connected the ways a user's client connects: Streamable HTTP with a
bearer token, or stdio to a ``manage.py mcp`` subprocess."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from tests.mcp_server.stack import ROOT, Stack

# "legacy": the initialize handshake (what desktop clients speak today); "auto": the SDK's
# default, which probes server/discover and speaks the 2026-07-28 per-request protocol.
MODES = ("legacy", "auto")


@asynccontextmanager
async def over_http(url: str, token: str | None, *, mode: str = "auto") -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, cache=None) as client:
            yield client


@asynccontextmanager
async def over_stdio(stack: Stack, user: str, *, mode: str = "auto") -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp", "--user", user],
        env=stack.env,
        cwd=str(ROOT),
    )
    async with Client(params, mode=mode, cache=None) as client:
        yield client


@dataclass
class ProgressLog:
    """The progress notifications of one call, in the order they arrived."""

    seen: list[tuple[float, float | None, str | None]] = field(default_factory=list)

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, total, message))

    @property
    def progresses(self) -> list[float]:
        return [p for p, _, _ in self.seen]

    @property
    def messages(self) -> list[str | None]:
        return [m for _, _, m in self.seen]


def mcp_error_in(exc: BaseException) -> MCPError | None:
    """The ``MCPError`` a client raised, inside the exception groups of its task groups."""
    if isinstance(exc, MCPError):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = mcp_error_in(inner)
        if found is not None:
            return found
    return None
