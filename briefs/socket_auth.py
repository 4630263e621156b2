"""The websocket's sign-in: Channels' session and auth middleware, with the user read on the live
reader's thread (``briefs.live``) instead of through ``database_sync_to_async``.

``database_sync_to_async`` runs on the one thread every synchronous view of the process shares
and opens a fresh database connection per call (``CONN_MAX_AGE`` 0), so each socket waited for
both before its handshake completed. The reader thread keeps its connection; the lookup itself
(the session row, then the user) is Channels' own ``get_user``, unchanged.
"""

from channels.auth import AuthMiddleware, get_user
from channels.sessions import CookieMiddleware, SessionMiddleware

from briefs import live


class ReaderAuthMiddleware(AuthMiddleware):
    async def resolve_scope(self, scope: dict) -> None:
        # get_user is wrapped by database_sync_to_async; .func is the plain function it wraps.
        scope["user"]._wrapped = await live.reader_call(get_user.func, scope)


def ReaderAuthMiddlewareStack(inner):  # named like Channels' AuthMiddlewareStack
    return CookieMiddleware(SessionMiddleware(ReaderAuthMiddleware(inner)))
