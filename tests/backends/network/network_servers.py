"""Real HTTP(S) servers on 127.0.0.1 for the network tests, and the resolvers that reach them."""

from __future__ import annotations

import datetime
import gzip
import json
import socket
import ssl
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.log: list[Recorded] = []
        self.release = threading.Event()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up early (size cap, timeout) are expected: stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request log."""

    def _reply(
        self, status: int, body: bytes = b"", headers: Sequence[tuple[str, str]] = ()
    ) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        record = Recorded(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        self.server.log.append(record)
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/echo":
            payload = {**record.__dict__, "body": body.decode()}
            self._reply(200, json.dumps(payload).encode(), [("Content-Type", "application/json")])
        elif url.path == "/redirect":
            status = int(query.get("status", "302"))
            self._reply(status, headers=[("Location", query["to"])])
        elif url.path.startswith("/chain/"):
            left = int(url.path.rsplit("/", 1)[1])
            if left == 0:
                self._reply(200, b"end of chain")
            else:
                port = self.server.server_address[1]
                target = f"http://h{left - 1}.test:{port}/chain/{left - 1}"
                self._reply(302, headers=[("Location", target)])
        elif url.path == "/big":
            self._reply(200, b"x" * int(query["n"]))
        elif url.path == "/gzip":
            self._reply(200, gzip.compress(b"unzipped " * 100), [("Content-Encoding", "gzip")])
        elif url.path == "/slow":
            self.server.release.wait(5)
            self._reply(200, b"late")
        elif url.path == "/no-location":
            self._reply(302, b"nowhere")
        else:
            self._reply(200, f"hello from {self.headers.get('Host')}".encode())

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _handle


@dataclass
class RunningServer:
    """A server thread and what it recorded."""

    server: _Server
    scheme: str = "http"
    log: list[Recorded] = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.server.log

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, host: str, path: str) -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def redirect(self, host: str, to: str, status: int = 302) -> str:
        """A URL on ``host`` that answers ``status`` with ``Location: to`` (sent verbatim)."""
        return self.url(host, f"/redirect?status={status}&to={quote(to, safe='')}")


@contextmanager
def run_server(ssl_context: ssl.SSLContext | None = None) -> Iterator[RunningServer]:
    """Serve on 127.0.0.1 (an ephemeral port) in a daemon thread until the block ends."""
    server = _Server()
    if ssl_context is not None:
        server.socket = ssl_context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield RunningServer(server=server, scheme="https" if ssl_context else "http")
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RebindingResolver:
    """Answers ``first`` on the first lookup and ``later`` afterwards (a DNS-rebinding attack)."""

    def __init__(self, first: list[str], later: list[str]) -> None:
        self.first, self.later = first, later
        self.lookups: list[str] = []

    async def resolve(self, host: str) -> list[str]:
        self.lookups.append(host)
        return self.first if len(self.lookups) == 1 else self.later


@dataclass
class Certificates:
    """A test CA and where its files are."""

    ca_file: Path
    cert_file: Path
    key_file: Path


def make_certificates(directory: Path, server_name: str) -> Certificates:
    """A CA, and a leaf certificate for ``server_name`` only (no IP in its SANs)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "toolwire test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, server_name)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(server_name)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = Certificates(
        ca_file=directory / "ca.pem",
        cert_file=directory / "leaf.pem",
        key_file=directory / "key.pem",
    )
    files.ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files.cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    files.key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return files
