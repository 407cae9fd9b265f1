"""Canary servers and resolvers for the egress proxy's tests, and for the sandbox's own.

```python
from egress_helpers import egress_canary  # noqa: F401  (the fixture)

async def test_reach(egress_canary: EgressCanary, tmp_path: Path) -> None:
    async with EgressProxy(egress_canary.resolver) as proxy:
        listener = await proxy.serve_unix(str(tmp_path / "egress.sock"), egress_canary.policy)
        ...  # from inside the sandbox: curl -x <relay> http://canary.test:<port>/hello
    assert egress_canary.hits  # the canary saw the request
```

The canary listens on 127.0.0.1, so its policy allows private addresses; the resolver maps
``canary.test`` (and ``tls.canary.test`` for the TLS canary) to it and knows no other name.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import shutil
import socket
import ssl
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.abc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from service_checks import missing_here
from toolwire.capabilities.kinds.network import StaticResolver
from toolwire.capabilities.seams import NetworkPolicy

"""As in ``tests/conftest.py``: a missing command fails the test in CI, skips it elsewhere."""

CANARY_HOST = "canary.test"
TLS_CANARY_HOST = "tls.canary.test"


@dataclass
class Hit:
    """One request as the canary saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class _CanaryServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int] = ("127.0.0.1", 0)) -> None:
        super().__init__(address, _CanaryHandler)
        self.hits: list[Hit] = []
        self.release = threading.Event()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up early are expected in these tests: stay quiet."""


class _CanaryHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # head and body are two writes: no 40 ms delayed-ACK stall
    server: _CanaryServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request log."""

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _reply(self, status: int, body: bytes, content_type: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Canary", "yes")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _handle(self) -> None:
        body = self._body()
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.hits.append(Hit(self.command, self.path, headers, body))
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/echo":
            payload = {"method": self.command, "path": self.path, "headers": headers}
            payload["body"] = body.decode("utf-8", errors="replace")
            self._reply(200, json.dumps(payload).encode(), "application/json")
        elif url.path == "/big":
            self._reply(200, b"x" * int(query["n"]))
        elif url.path == "/slow":
            self.server.release.wait(30)
            self._reply(200, b"late")
        else:
            self._reply(200, f"canary {self.headers.get('Host')} {url.path}".encode())

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _handle


@dataclass
class EgressCanary:
    """A canary HTTP server, the resolver that reaches it, and a policy that allows it.

    Attributes:
        port: The canary's port on 127.0.0.1.
        hits: Every request the canary received, in order.
        resolver: ``canary.test`` → 127.0.0.1; every other name fails to resolve.
        host: ``canary.test``.
    """

    server: _CanaryServer
    resolver: StaticResolver
    host: str = CANARY_HOST
    hits: list[Hit] = field(init=False)

    def __post_init__(self) -> None:
        self.hits = self.server.hits

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def policy(self) -> NetworkPolicy:
        """Allows only the canary (its port named, private addresses allowed)."""
        return NetworkPolicy(allow=(self.host, f"{self.host}:{self.port}"), allow_private_urls=True)

    def url(self, path: str = "/", host: str | None = None) -> str:
        return f"http://{host or self.host}:{self.port}{path}"


@contextmanager
def serve_canary(
    ssl_context: ssl.SSLContext | None = None, address: tuple[str, int] = ("127.0.0.1", 0)
) -> Iterator[_CanaryServer]:
    """A canary HTTP(S) server in a daemon thread until the block ends."""
    server = _CanaryServer(address)
    if ssl_context is not None:
        server.socket = ssl_context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()


@contextmanager
def running_canary() -> Iterator[EgressCanary]:
    """A canary and its resolver (see `EgressCanary`)."""
    with serve_canary() as server:
        yield EgressCanary(server=server, resolver=StaticResolver({CANARY_HOST: ["127.0.0.1"]}))


@pytest.fixture
def egress_canary() -> Iterator[EgressCanary]:
    """A canary HTTP server on 127.0.0.1, ``canary.test`` resolving to it, a policy for it."""
    with running_canary() as canary:
        yield canary


@dataclass
class TlsFiles:
    """A test CA and a server context for one name."""

    ca_file: Path
    server_context: ssl.SSLContext

    def client_context(self) -> ssl.SSLContext:
        """Trusts the test CA only."""
        return ssl.create_default_context(cafile=str(self.ca_file))


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_tls(directory: Path, server_name: str) -> TlsFiles:
    """A throwaway CA and a certificate for ``server_name`` signed by it."""
    now = datetime.datetime.now(datetime.UTC)
    day = datetime.timedelta(days=1)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("egress test CA"))
        .issuer_name(_name("egress test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - day)
        .not_valid_after(now + day)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(_name(server_name))
        .issuer_name(_name("egress test CA"))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - day)
        .not_valid_after(now + day)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(server_name)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_file, cert_file, key_file = (directory / n for n in ("ca.pem", "leaf.pem", "key.pem"))
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return TlsFiles(ca_file=ca_file, server_context=context)


@contextmanager
def echo_server() -> Iterator[tuple[int, list[bytes]]]:
    """A raw TCP server on 127.0.0.1: reads until end of data, answers ``echo:`` + it, closes.

    Yields ``(port, received)``; ``received`` collects what each connection sent.
    """
    listener = socket.create_server(("127.0.0.1", 0))
    received: list[bytes] = []
    stop = threading.Event()

    def serve_one(conn: socket.socket) -> None:
        with conn:
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
            received.append(data)
            conn.sendall(b"echo:" + data)

    def accept_loop() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            threading.Thread(target=serve_one, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept_loop, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1]), received
    finally:
        stop.set()
        thread.join()
        listener.close()


@contextmanager
def silent_server() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts connections and never says a word."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept_loop() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(conn)

    thread = threading.Thread(target=accept_loop, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


@contextmanager
def hanging_up_server() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that reads a little of each request, then hangs up (a reset)."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def accept_loop() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(5)
            with contextlib.suppress(OSError):
                conn.recv(100)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    thread = threading.Thread(target=accept_loop, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        listener.close()


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class CountingResolver:
    """A fixed table that counts lookups; ``later`` answers replace ``table`` after the first.

    With ``later`` set it is a DNS-rebinding attacker: a check sees the first answer, a
    second lookup would see the other.
    """

    def __init__(
        self, table: dict[str, list[str]], later: dict[str, list[str]] | None = None
    ) -> None:
        self.table, self.later = table, later or {}
        self.lookups: list[str] = []

    async def resolve(self, host: str) -> list[str]:
        self.lookups.append(host)
        first = self.lookups.count(host) == 1
        answers = self.table.get(host) if first else self.later.get(host, self.table.get(host))
        if answers is None:
            raise socket.gaierror(socket.EAI_NONAME, f"{host} is unknown")
        return list(answers)


def raw_exchange(address: tuple[str, int] | str, data: bytes, *, timeout: float = 20.0) -> bytes:
    """Send ``data`` to the proxy, half-close, and read the whole answer (blocking)."""
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(address)
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the proxy may answer and close before reading everything
        chunks: list[bytes] = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:
            pass
        return b"".join(chunks)


def status_and_code(answer: bytes) -> tuple[int, str | None]:
    """The status of an HTTP answer and its ``X-Toolwire-Refusal`` code (or None)."""
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    lines = head.split("\r\n")
    status = int(lines[0].split(" ")[1])
    code = None
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "x-toolwire-refusal":
            code = value.strip()
    return status, code


async def exchange(address: tuple[str, int] | str, data: bytes) -> bytes:
    """`raw_exchange` for async tests (the proxy runs on the same event loop)."""
    if isinstance(address, str):
        stream: anyio.abc.ByteStream = await anyio.connect_unix(address)
    else:
        stream = await anyio.connect_tcp(*address)
    chunks: list[bytes] = []
    async with stream:
        try:
            await stream.send(data)
            await stream.send_eof()
        except (anyio.BrokenResourceError, OSError):
            pass  # the proxy may answer and close before reading everything
        try:
            while True:
                chunks.append(await stream.receive())
        except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
            pass
    return b"".join(chunks)


def require_command(name: str) -> str:
    """The command's path; a missing one fails with ``CI=true`` (system-deps installs it)."""
    path = shutil.which(name)
    if path is not None:
        return path
    return missing_here(f"{name} is not installed", "scripts/system-deps.sh installs it")
