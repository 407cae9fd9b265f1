"""A real local web site for the browser tests: pages, a cookie echo, a WebSocket, a stall.

`Site` serves on 127.0.0.1 (a thread per request) and records every request it gets, so a test
can tell that a blocked request never arrived.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import threading
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from service_checks import missing_here
from toolwire.capabilities.kinds.browser import find_chromium, playwright_installed

__all__ = ["Site", "require_chromium"]

_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def require_chromium() -> None:
    """Skip without Chromium or Playwright; fail in CI (``CI=true``), where both must be."""
    if playwright_installed() and find_chromium() is not None:
        return
    what = "Playwright" if not playwright_installed() else "Chromium"
    missing_here(
        f"{what} is not installed (system-deps installs chromium; pip install '.[browser]')"
    )


@dataclass
class Site:
    """An HTTP server on 127.0.0.1 with ``pages`` (path → HTML) and a log of request paths."""

    pages: dict[str, str] = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)
    cookies: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    stalled: threading.Event = field(default_factory=threading.Event)
    server: http.server.ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        """The port it listens on."""
        assert self.server is not None
        return int(self.server.server_address[1])

    def url(self, path: str = "/") -> str:
        """The absolute URL of ``path``."""
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self) -> Site:
        """Listen on a free port, serving from a daemon thread."""
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site._get(self)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop serving (and let a stalled request go)."""
        self.release.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def _get(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        path = urlsplit(handler.path).path
        self.hits.append(handler.path)
        self.cookies.append(handler.headers.get("Cookie", ""))
        if path == "/ws":
            _websocket(handler)
            return
        if path == "/stall":
            self.stalled.set()
            self.release.wait(300)  # until the site stops: a stalled page never answers
            return
        if path == "/echo":
            query = parse_qs(urlsplit(handler.path).query)
            body = "".join(f"<p>{k}={', '.join(v)}</p>" for k, v in sorted(query.items()))
            _send(handler, f"<title>Echo</title><h1>Received</h1>{body}")
            return
        if path == "/file.bin":
            handler.send_response(200)
            handler.send_header("Content-Type", "application/octet-stream")
            handler.send_header("Content-Disposition", 'attachment; filename="file.bin"')
            handler.send_header("Content-Length", "4")
            handler.end_headers()
            handler.wfile.write(b"\x00\x01\x02\x03")
            return
        if path == "/cookie":
            seen = handler.headers.get("Cookie", "") or "none"
            _send(handler, f"<title>Cookie</title><p>cookie: {seen}</p>")
            return
        page = self.pages.get(path)
        if page is None:
            _send(handler, "<title>Missing</title>", status=404)
            return
        _send(handler, page)


def _send(handler: http.server.BaseHTTPRequestHandler, html: str, status: int = 200) -> None:
    body = html.encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _websocket(handler: http.server.BaseHTTPRequestHandler) -> None:
    """Accept a WebSocket (RFC 6455) and send one text message, ``hello over ws``."""
    key = handler.headers.get("Sec-WebSocket-Key", "")
    accept = base64.b64encode(hashlib.sha1((key + _WS_GUID).encode()).digest()).decode()
    handler.send_response(101)
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept", accept)
    handler.end_headers()
    payload = b"hello over ws"
    handler.wfile.write(bytes([0x81, len(payload)]) + payload)
    handler.wfile.flush()
    handler.rfile.read(2)  # wait for the client's next frame (or its close) before hanging up
