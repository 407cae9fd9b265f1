"""A real HTTP server on 127.0.0.1 serving what ``fetch_url`` reads, and the registry around it.

Hosts are fake names that all resolve to 127.0.0.1 (`RESOLVER`); robots.txt depends on the
host: ``site.test`` has none (404), ``deny.test`` disallows ``/private/``, ``forbid.test``
answers 403, ``down.test`` answers 503.
"""

from __future__ import annotations

import contextlib
import json
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from toolwire.capabilities.kinds.network import SafeFetcher, StaticResolver

HOSTS = ("site.test", "deny.test", "forbid.test", "down.test")
RESOLVER = StaticResolver({name: ["127.0.0.1"] for name in HOSTS})

ARTICLE_PARAGRAPHS = (
    "The harbour of Saint-Malo was rebuilt stone by stone after 1944, using the numbered "
    "blocks that engineers had catalogued before the bombardment.",
    "Its ramparts, nearly two kilometres long, were left standing and now carry a walk that "
    "circles the old town above the tides, among the highest in Europe.",
    "Local historians still argue whether the reconstruction followed the medieval street plan "
    "exactly, or whether the planners quietly widened the busiest lanes.",
)
NAV_WORDS = "Subscribe Newsletter Cookie Settings Sign in Advertise with us"

ARTICLE_HTML = f"""<!doctype html>
<html><head><title>Rebuilding Saint-Malo</title></head>
<body>
<header><nav><a href="/">Home</a> <a href="/news">News</a> {NAV_WORDS}</nav></header>
<main><article>
<h1>Rebuilding Saint-Malo</h1>
<p>{ARTICLE_PARAGRAPHS[0]}</p>
<p>{ARTICLE_PARAGRAPHS[1]} See <a href="/ramparts">the ramparts</a>.</p>
<p>{ARTICLE_PARAGRAPHS[2]}</p>
</article></main>
<footer>Copyright Example Media. {NAV_WORDS}. Privacy policy. Terms of use.</footer>
<script>var tracker = "should never appear";</script>
</body></html>"""

HUGE_LINES = [f"Line {n:05d}: the quick brown fox jumps over the lazy dog." for n in range(4000)]
HUGE_TEXT = "\n".join(HUGE_LINES) + "\n"

FRENCH = "Déjà vu : l'élève a reçu ses résultats à Noël, très tôt, près du château. " * 20
CP1252_HTML = (
    '<html><head><meta charset="windows-1252"><title>Accents</title></head><body><article>'
    f"<p>{FRENCH}</p></article></body></html>"
).encode("cp1252")

JSON_DATA = {"name": "toolwire", "tags": ["mcp", "tools"], "nested": {"ok": True, "n": 3}}


def png_bytes(width: int = 3, height: int = 2) -> bytes:
    """A valid RGB PNG of ``width`` x ``height`` red pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def pdf_bytes(lines: tuple[str, ...]) -> bytes:
    """A minimal one-page PDF (Helvetica, one text line per entry) with a correct xref table."""
    text = " ".join(f"({line}) Tj 0 -20 Td" for line in lines)
    stream = f"BT /F1 12 Tf 72 720 Td {text} ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Title (Harbour report) >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


PDF_LINES = ("Harbour report 2024", "Tonnage rose by twelve percent.")

ROUTES: dict[str, tuple[int, str, bytes]] = {
    "/article.html": (200, "text/html; charset=utf-8", ARTICLE_HTML.encode()),
    "/private/article.html": (200, "text/html; charset=utf-8", ARTICLE_HTML.encode()),
    "/report.pdf": (200, "application/pdf", pdf_bytes(PDF_LINES)),
    "/data.json": (200, "application/json", json.dumps(JSON_DATA).encode()),
    "/notes.txt": (200, "text/plain", b"first line\n  indented second line\n"),
    "/pixel.png": (200, "image/png", png_bytes()),
    "/huge.txt": (200, "text/plain; charset=utf-8", HUGE_TEXT.encode()),
    "/lying.html": (200, "text/html; charset=utf-8", CP1252_HTML),
    "/bogus.txt": (200, "text/plain; charset=x-bogus-9", "naïve café ☕".encode()),
    "/archive.zip": (200, "application/zip", b"PK\x03\x04" + bytes(range(256)) * 4),
    "/missing": (404, "text/html", b"<html><body><h1>Not here</h1></body></html>"),
    "/untyped": (200, "", json.dumps(JSON_DATA).encode()),
    "/gone.bin": (410, "application/octet-stream", bytes(range(256))),
}

ROBOTS = {
    "deny.test": (200, b"User-agent: *\nDisallow: /private/\n"),
    "forbid.test": (403, b"no"),
    "down.test": (503, b"later"),
}


@dataclass
class Site:
    """A running site: its port, the requests it saw (path, host, user agent), and the server
    (``server.streamed``: what ``/endless`` sent last)."""

    port: int
    seen: list[tuple[str, str, str]]
    server: Any = None

    def url(self, host: str, path: str) -> str:
        return f"http://{host}:{self.port}{path}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        host = (self.headers.get("Host") or "").split(":")[0]
        self.server.seen.append((self.path, host, self.headers.get("User-Agent") or ""))
        if self.path == "/robots.txt":
            status, body = ROBOTS.get(host, (404, b"none"))
            self._reply(status, "text/plain", body)
            return
        if self.path.startswith("/redirect?to="):
            target = self.path.split("=", 1)[1]
            self._reply(302, "text/plain", b"", (("Location", target),))
            return
        if self.path == "/slow":
            time.sleep(3)
            self._reply(200, "text/plain", b"finally")
            return
        if self.path == "/endless":
            self._stream_endlessly()
            return
        status, content_type, body = ROUTES.get(self.path, (404, "text/plain", b"no route"))
        self._reply(status, content_type, body)

    def _stream_endlessly(self) -> None:
        """A body that never ends (16 KiB a millisecond, until the client hangs up or 64 MiB),
        counting in ``server.streamed`` the bytes it managed to send."""
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Connection", "close")
        self.end_headers()
        chunk = b"x" * 16384
        self.server.streamed = 0
        try:
            while self.server.streamed < 64 * 1024 * 1024:
                self.wfile.write(chunk)
                self.wfile.flush()
                self.server.streamed += len(chunk)
                time.sleep(0.001)
        except OSError:
            pass  # the client hung up: what this route is for
        self.close_connection = True

    def _reply(
        self,
        status: int,
        content_type: str,
        body: bytes,
        extra: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the client gave up (timeout): expected
            self.wfile.write(body)


@contextmanager
def run_site() -> Iterator[Site]:
    """Serve `ROUTES` on 127.0.0.1 (a free port) until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.block_on_close = False
    server.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(port=server.server_address[1], seen=server.seen, server=server)  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


def fetcher(timeout_s: float = 5.0) -> SafeFetcher:
    """A SafeFetcher that resolves `HOSTS` to the loopback site."""
    return SafeFetcher(resolver=RESOLVER, timeout_s=timeout_s)
