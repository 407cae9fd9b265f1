"""A real local issuer for the auth tests: keys made with ``cryptography``, tokens signed with
PyJWT, the JWKS served over HTTP on 127.0.0.1, and an authenticated registry served with
`serve_http` in the test's event loop."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from toolwire import ToolContext, ToolRegistry, define_tool, ok
from toolwire.mcp import ServeOptions, serve_http
from toolwire.mcp.server.auth.server_auth import ServerAuth
from toolwire.results import ToolResult

ISSUER = "https://issuer.test"
WAIT_S = 15.0
HELLO: dict[str, Any] = {  # an initialize request on 2025-06-18
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "auth-test", "version": "1"},
    },
}


@dataclass
class SigningKey:
    """A private key and its public JWK."""

    kid: str
    alg: str
    private: Any
    public_jwk: dict[str, Any]


def rsa_key(kid: str) -> SigningKey:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(RSAAlgorithm.to_jwk(private.public_key()))
    jwk.update(kid=kid, use="sig", alg="RS256")
    return SigningKey(kid=kid, alg="RS256", private=private, public_jwk=jwk)


def ec_key(kid: str) -> SigningKey:
    private = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(ECAlgorithm.to_jwk(private.public_key()))
    jwk.update(kid=kid, use="sig")  # no "alg": the verifier infers it from the key type
    return SigningKey(kid=kid, alg="ES256", private=private, public_jwk=jwk)


@dataclass
class Jwks:
    """The issuer's published key set (change ``keys`` to rotate) and how often it was read."""

    keys: list[SigningKey] = field(default_factory=list)
    fetches: int = 0

    def document(self) -> bytes:
        self.fetches += 1
        return json.dumps({"keys": [k.public_jwk for k in self.keys]}).encode()


@contextmanager
def jwks_server(jwks: Jwks) -> Iterator[str]:
    """``jwks`` served at ``http://127.0.0.1:<port>/jwks.json`` by a real HTTP server."""
    routes = Routes(answers={"/jwks.json": lambda: (200, jwks.document())})
    with http_server(routes) as origin:
        yield f"{origin}/jwks.json"


@dataclass
class Routes:
    """What a local HTTP server answers, by path (each answer made when asked, so a test can
    change it), and the paths it was asked for."""

    answers: dict[str, Callable[[], tuple[int, bytes]]] = field(default_factory=dict)
    requested: list[str] = field(default_factory=list)

    def json(self, path: str, document: Any, status: int = 200) -> None:
        """Answer ``path`` with ``document`` as JSON."""
        body = json.dumps(document).encode()
        self.answers[path] = lambda: (status, body)


@contextmanager
def http_server(routes: Routes) -> Iterator[str]:
    """``routes`` served by a real HTTP server on 127.0.0.1; its origin (``http://...``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            routes.requested.append(self.path)
            answer = routes.answers.get(self.path)
            status, body = answer() if answer is not None else (404, b'{"error":"not found"}')
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def mint(
    key: SigningKey,
    *,
    audience: str | list[str],
    issuer: str = ISSUER,
    scope: str | None = "tools:alpha",
    lifetime_s: float = 300,
    headers: dict[str, Any] | None = None,
    **claims: Any,
) -> str:
    """A JWT signed with ``key`` (its ``kid`` in the header); a claim given as ``None`` is
    left out."""
    now = int(time.time())
    payload = {
        "iss": issuer,
        "aud": audience,
        "sub": "user-1",
        "client_id": "agent-app",
        "iat": now,
        "exp": now + int(lifetime_s),
        "scope": scope,
        **claims,
    }
    present = {k: v for k, v in payload.items() if v is not None}  # None: leave it out
    return jwt.encode(
        present, key.private, algorithm=key.alg, headers={"kid": key.kid, **(headers or {})}
    )


def two_toolsets() -> ToolRegistry:
    """``echo`` (toolset ``alpha``), ``beta_one`` and ``beta_two`` (toolset ``beta``)."""

    async def echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ok(f"echo {args.get('text', '')}")

    async def beta(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ok("beta ran")

    registry = ToolRegistry()
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    registry.register(
        define_tool(name="echo", description="Echo.", schema=schema, execute=echo, toolset="alpha")
    )
    for name in ("beta_one", "beta_two"):
        registry.register(
            define_tool(
                name=name,
                description="Beta.",
                schema={"type": "object"},
                execute=beta,
                toolset="beta",
            )
        )
    return registry


@asynccontextmanager
async def serving(
    registry: ToolRegistry, auth: ServerAuth | None, *, port: int = 0, host: str = "127.0.0.1"
) -> AsyncIterator[str]:
    """``registry`` over streamable HTTP with ``auth``; the endpoint URL."""
    urls: list[str] = []
    ready = anyio.Event()

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    async with anyio.create_task_group() as group:
        group.start_soon(
            lambda: serve_http(
                registry, ServeOptions(auth=auth), host=host, port=port, on_ready=on_ready
            )
        )
        with anyio.fail_after(WAIT_S):
            await ready.wait()
        yield urls[0]
        group.cancel_scope.cancel()
