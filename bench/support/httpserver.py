"""A small scripted HTTP server on 127.0.0.1 for tests: a real socket, real HTTP, real timing.

Register a handler per path; each request is answered in its own thread::

    with ScriptedServer() as server:
        server.route("/feed", Reply(200, {"Content-Type": "application/rss+xml"}, body))
        server.route("/slow", lambda request: (time.sleep(0.3), Reply(200, body=b"..."))[1])
        server.route("/drip", drip_handler)      # writes to request.wfile itself, returns None
        ... server.url ...
        assert server.requests[0].headers["user-agent"]

A handler is a ``Reply`` (the same answer every time) or a callable ``(Request) -> Reply | None``;
returning None means it wrote its own bytes to ``request.wfile`` (drips, lying lengths, stalls).
Every connection is closed after one answer, which keeps scripted misbehaviour simple. Handlers
that loop (drips) should stop when ``request.stopping`` is set, so shutting down stays fast.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @classmethod
    def json(cls, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
        merged = {"Content-Type": "application/json", **(headers or {})}
        return cls(status, merged, json.dumps(data).encode())


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-cased names
    body: bytes
    wfile: Any = field(repr=False)
    stopping: threading.Event = field(repr=False)
    connection: socket.socket | None = field(default=None, repr=False)

    def json(self) -> Any:
        return json.loads(self.body or b"null")

    def reset(self) -> None:
        """Abort the connection with a TCP reset, as a crashed proxy does (returns None: the
        handler has answered)."""
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()


Handler = Reply | Callable[[Request], Reply | None]


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests assert on server.requests, not on stderr noise

    def _serve(self) -> None:
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        request = Request(
            method=self.command,
            path=split.path,
            query=parse_qs(split.query, keep_blank_values=True),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self.rfile.read(length) if length else b"",
            wfile=self.wfile,
            stopping=self.server.stopping,
            connection=self.connection,
        )
        self.close_connection = True
        scripted = self.server.scripted
        scripted.record(request)
        handler = scripted.handler_for(split.path)
        reply = handler(request) if callable(handler) else handler
        if reply is not None:
            self._write(reply)

    def _write(self, reply: Reply) -> None:
        self.send_response(reply.status)
        names = {k.lower() for k in reply.headers}
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if "content-length" not in names and reply.status not in (204, 304):
            self.send_header("Content-Length", str(len(reply.body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and reply.status not in (204, 304):
            self.wfile.write(reply.body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _serve


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    # Many clients connect at once in the concurrency tests: a deep accept queue.
    request_queue_size = 128
    scripted: ScriptedServer
    stopping: threading.Event

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client hanging up mid-answer is what the hostile-input tests provoke: not an error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ScriptedServer:
    """A real HTTP server on 127.0.0.1:<free port> that answers from registered handlers."""

    def __init__(self, default: Handler | None = None, *, port: int = 0) -> None:
        self._port = port  # 0: a free one; a given one lets a stopped server come back on it
        self._handlers: dict[str, Handler] = {}
        self._default = default or Reply(404, {"Content-Type": "text/plain"}, b"no handler")
        self._lock = threading.Lock()
        self.requests: list[Request] = []
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("ScriptedServer is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def route(self, path: str, handler: Handler) -> None:
        with self._lock:
            self._handlers[path] = handler

    def route_default(self, handler: Handler) -> None:
        """Answer every path without a handler of its own with ``handler`` from now on."""
        with self._lock:
            self._default = handler

    def handler_for(self, path: str) -> Handler:
        with self._lock:
            return self._handlers.get(path, self._default)

    def record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def requests_to(self, path: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def start(self) -> ScriptedServer:
        httpd = _Server(("127.0.0.1", self._port), _RequestHandler)
        httpd.scripted, httpd.stopping = self, threading.Event()
        self._httpd = httpd
        self._port = httpd.server_address[1]  # kept: start() after stop() binds it again
        # A short poll interval keeps stop() (and so every test's teardown) quick.
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-http"
        )
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()
