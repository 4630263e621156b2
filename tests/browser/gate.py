"""The browser stack's RSSHub, with one route that answers when the test says so.

Every request goes through to the real RSSHub, except the "slow" option's path (``/test/slow4``):
that one is held until the test calls ``release()`` (or, should a test never release it,
``HOLD_SECONDS`` pass), then answered by the real RSSHub's ``/test/1``, the same items without
RSSHub's own 4-second wait. A test that watches a run in flight (steps arriving, a reload, a
cancel) thus sees it in flight for as long as it looks, and the run ends the moment it is done.

Each test starts with the gate shut (``shut()``, from the browser conftest's autouse fixture) and
ends with it open, so no held fetch outlives its test.
"""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from urllib.parse import urlencode

from tests.httpserver import Reply, Request, ScriptedServer

SLOW_PATH = "/test/slow4"
ANSWERED_BY = "/test/1"
# Under the agent's RSSHub timeout (RSSHUB_TIMEOUT, 20 s): a forgotten release shows as a slow
# test, never as a fetch that timed out.
HOLD_SECONDS = 15.0
KEPT_HEADERS = ("content-type", "etag", "last-modified", "cache-control")


class RouteGate:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self._open = threading.Event()
        self._held = threading.Condition()
        self._waiting = 0
        self._server = ScriptedServer(default=self._forward)
        self._server.route(SLOW_PATH, self._held_then_forwarded)

    @property
    def url(self) -> str:
        return self._server.url

    def start(self) -> RouteGate:
        self._server.start()
        return self

    def stop(self) -> None:
        self.release()
        self._server.stop()

    def shut(self) -> None:
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def wait_held(self, timeout: float = 30.0) -> None:
        """Return once a fetch of the slow path is waiting at the gate."""
        with self._held:
            if not self._held.wait_for(lambda: self._waiting > 0, timeout=timeout):
                raise AssertionError(f"no fetch of {SLOW_PATH} reached the gate in {timeout} s")

    def _held_then_forwarded(self, request: Request) -> Reply:
        with self._held:
            self._waiting += 1
            self._held.notify_all()
        try:
            self._open.wait(HOLD_SECONDS)
        finally:
            with self._held:
                self._waiting -= 1
        return self._fetch(ANSWERED_BY, request)

    def _forward(self, request: Request) -> Reply:
        return self._fetch(request.path, request)

    def _fetch(self, path: str, request: Request) -> Reply:
        query = urlencode(request.query, doseq=True)
        url = f"{self.upstream}{path}" + (f"?{query}" if query else "")
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return self._reply(response.status, response.headers, response.read())
        except urllib.error.HTTPError as error:
            return self._reply(error.code, error.headers, error.read())

    @staticmethod
    def _reply(status: int, headers, body: bytes) -> Reply:
        kept = {name: headers[name] for name in KEPT_HEADERS if headers.get(name)}
        return Reply(status, kept, body)
