import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rsshub_agent.settings")
# Initialise Django (apps, models) before anything imports consumers.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from briefs.routing import websocket_urlpatterns  # noqa: E402
from briefs.socket_auth import ReaderAuthMiddlewareStack  # noqa: E402
from mcp_server.mount import mcp_mounted  # noqa: E402

application = ProtocolTypeRouter(
    {
        # /mcp/ is the MCP server (Streamable HTTP, imported at its first request); every other
        # path is Django's.
        "http": mcp_mounted(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(
            ReaderAuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
