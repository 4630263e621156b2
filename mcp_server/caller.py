"""Who calls the MCP server's tools: a user, and where their dashboard is."""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Caller:
    """The user a call acts as (the token's owner over HTTP, ``--user`` over stdio), and the
    address of their dashboard (scheme and host, no trailing slash) for links in answers."""

    user: Any
    site_url: str

    def url(self, path: str) -> str:
        return self.site_url + path
