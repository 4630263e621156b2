"""Two stand-in RSSHub instances on 127.0.0.1, and the ways the first one fails on its own.

``InstancePair`` points the settings at both (``RSSHUB_URLS``, the first preferred) with short
deadlines; each failure mode is what a broken RSSHub does: its port closed, a hang, its own 503
(``/healthz`` failing too), its access key refused.
"""

from __future__ import annotations

from catalog.models import Platform, Route
from fetching.instances import instances_read
from fetching.models import RSSHubInstance
from fetching.paths import catalog_cache_clear
from tests.feeds import feed_reply
from tests.httpserver import Reply, Request, ScriptedServer
from tests.rsshub_replies import rsshub_error_page

HEALTHY = Reply(200, {"Content-Type": "text/plain"}, b"ok")
OWN_ERROR = Reply(503, {"Content-Type": "text/html"}, b"<h1>503 Service Unavailable</h1>")
KEY_REFUSED = Reply(403, {"Content-Type": "text/plain"}, b"Authentication failed. Access denied.")


def hang(request: Request) -> None:
    """Accept the request and never answer (until the server stops)."""
    request.stopping.wait(30)


def answering(server: ScriptedServer, *, items: int = 3) -> None:
    """A healthy instance: ``/healthz`` ok, every other path a feed."""
    server.route("/healthz", HEALTHY)
    server.route_default(feed_reply(items))


def failing_on_its_own(server: ScriptedServer, reply) -> None:
    """Every path, ``/healthz`` too, answers ``reply`` (an own error, a hang, a refused key)."""
    server.route("/healthz", reply)
    server.route_default(reply)


def route_error(message: str = "ConfigNotFoundError: TEST_COOKIE is missing") -> Reply:
    """A route that fails on this instance (RSSHub ran it and names it)."""
    reply = rsshub_error_page(message)
    reply.headers["x-rsshub-route"] = "/xalpha/news"
    return reply


class InstancePair:
    """Instance ``a`` (preferred) and ``b`` as stand-ins, seeded through the settings."""

    def __init__(self, settings) -> None:
        self.a_server = ScriptedServer().start()
        self.b_server = ScriptedServer().start()
        answering(self.a_server)
        answering(self.b_server)
        self.a_url, self.b_url = self.a_server.url, self.b_server.url
        settings.RSSHUB_URLS = [self.a_url, self.b_url]
        settings.RSSHUB_ACCESS_KEY = ""
        settings.RSSHUB_TIMEOUT = 1.0
        settings.RSSHUB_CONNECT_TIMEOUT = 1.0
        instances_read()

    @property
    def a(self) -> RSSHubInstance:
        return RSSHubInstance.objects.get(base_url=self.a_url)

    @property
    def b(self) -> RSSHubInstance:
        return RSSHubInstance.objects.get(base_url=self.b_url)

    def stop(self) -> None:
        self.a_server.stop()
        self.b_server.stop()


def routes_make(*namespaces: str) -> dict[str, Route]:
    """A platform and a ``/news`` route per namespace (none of them in the real catalog)."""
    routes = {}
    for namespace in namespaces:
        platform = Platform.objects.create(namespace=namespace, name=namespace.title())
        routes[namespace] = Route.objects.create(
            platform=platform, key="/news", path=f"/{namespace}/news", name="News"
        )
    catalog_cache_clear()
    return routes
