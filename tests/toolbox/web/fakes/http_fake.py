"""A recording HTTP server on 127.0.0.1: each request is kept, each answer comes from a function.

`FakeApi` runs a `ThreadingHTTPServer` in a thread; the function given (one per provider, in
`fakes.providers`) reads the `Recorded` request and returns a `Reply`, as the provider would.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Recorded:
    """One request the fake received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)

    def form(self) -> dict[str, list[str]]:
        """The body as an ``application/x-www-form-urlencoded`` form."""
        return parse_qs(self.body.decode(), keep_blank_values=True)

    def param(self, name: str) -> str | None:
        """The first value of a query parameter."""
        values = self.query.get(name)
        return values[0] if values else None


@dataclass(frozen=True)
class Reply:
    """One answer: status, body, content type and extra headers."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, data: Any, **headers: str) -> Reply:
        """A JSON answer."""
        return cls(status, json.dumps(data).encode(), "application/json", dict(headers))

    @classmethod
    def html(cls, status: int, text: str) -> Reply:
        """An HTML answer."""
        return cls(status, text.encode(), "text/html; charset=UTF-8")


Api = Callable[[Recorded], Reply]


class FakeApi:
    """A running fake: its port and every request it received."""

    def __init__(self, server: ThreadingHTTPServer, requests: list[Recorded]) -> None:
        self._server = server
        self.requests = requests

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self._server.server_address[1])

    def url(self, host: str, path: str) -> str:
        """``http://host:port/path``."""
        return f"http://{host}:{self.port}{path}"

    @property
    def last(self) -> Recorded:
        """The latest request."""
        assert self.requests, "the fake received no request"
        return self.requests[-1]


@contextmanager
def serve(api: Api) -> Iterator[FakeApi]:
    """Run ``api`` on 127.0.0.1 (a free port) until the block ends."""
    requests: list[Recorded] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            recorded = Recorded(
                method=self.command,
                path=parts.path,
                query=parse_qs(parts.query, keep_blank_values=True),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
            with lock:
                requests.append(recorded)
            reply = api(recorded)
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(reply.body)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(reply.body)

        do_GET = do_POST = _handle

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield FakeApi(server, requests)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
