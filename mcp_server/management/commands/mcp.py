"""``manage.py mcp --user NAME``: the MCP server over stdin and stdout, acting as NAME.

For desktop clients (Claude Desktop, editors) that start the server as a local process. Stdout
carries the protocol and nothing else: logs go to stderr, and while serving the SDK points the
process's own stdout at stderr, so nothing printed by accident can break a message. Briefs run
on the worker (``manage.py qcluster``, started by ``scripts/run``), as they do for the API.
"""

import contextlib

import anyio
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from mcp.server.stdio import stdio_server

from mcp_server.caller import Caller
from mcp_server.server import build_server


async def serve_stdio(caller: Caller) -> None:
    server = build_server(caller=caller)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


class Command(BaseCommand):
    help = "Serve the MCP tools over stdin/stdout as an existing, active user."
    # Stdout is the protocol: system check messages must not be written there either.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="the user the tools act as")

    def handle(self, *args, user: str, **options):
        owner = get_user_model().objects.filter(username=user, is_active=True).first()
        if owner is None:
            raise CommandError(f"no active user named {user!r}")
        connections.close_all()  # the tools open their own, in their threads
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(serve_stdio, Caller(user=owner, site_url=settings.MCP_SITE_URL))
