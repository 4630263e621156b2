"""The MCP server: AI assistants ask for cited, fresh briefs and read the catalog through the
Model Context Protocol, with the official ``mcp`` SDK's low-level ``Server``.

Two transports serve the same tools and resources:

- Streamable HTTP at ``/mcp/``, mounted next to Django in ``rsshub_agent/asgi.py``
  (``mcp_server.http``). Every request carries an API token (``Authorization: Bearer``), checked
  as the REST API checks it.
- stdio, ``manage.py mcp --user NAME``, for desktop clients that start a local process.

Every tool calls the services the REST views call (``briefs.admission`` for the quotas, the
per-minute throttle and the token budget, the owner-filtered selectors); over HTTP every request
counts against the API's request throttle (``api.base.throttle_check``). A tool reports
a failure in the API's own words (``mcp_server.errors``). Briefs run on the worker, as they do for
the API: a client that goes away while ``ask`` waits leaves its brief running to completion.
"""
