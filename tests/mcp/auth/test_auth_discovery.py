"""JWKS discovery from the issuer's metadata (RFC 8414, then OpenID Connect Discovery) against
a real local issuer: metadata and keys served over HTTP on 127.0.0.1, tokens signed with real
keys, the server started the way ``toolwire serve`` starts it."""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from auth_fixtures import (
    HELLO,
    WAIT_S,
    Jwks,
    Routes,
    SigningKey,
    http_server,
    mint,
    rsa_key,
    serving,
    two_toolsets,
)

from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth._credentials import TokenRejected
from toolwire.mcp.server.auth._discovery import metadata_urls
from toolwire.mcp.server.auth._oauth import JwtVerifier
from toolwire.mcp.server.auth.server_auth import open_server_auth, server_auth_for
from toolwire.mcp.server.auth.settings import AuthSettings, OAuthSettings

pytestmark = pytest.mark.anyio
AUDIENCE = "https://mcp.test/mcp"
SCOPES = {"tools:alpha": ("alpha",), "tools:beta": ("beta",)}
RFC8414 = "/.well-known/oauth-authorization-server"
OPENID = "/.well-known/openid-configuration"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def key() -> SigningKey:
    return rsa_key("disc-1")


@pytest.fixture
def routes() -> Routes:
    return Routes()


@pytest.fixture
def origin(routes: Routes) -> Iterator[str]:
    with http_server(routes) as url:
        yield url


def publish(routes: Routes, origin: str, issuer: str, path: str, keys: list[SigningKey]) -> Jwks:
    """``issuer``'s metadata at ``path`` naming ``/jwks.json``, which publishes ``keys``."""
    jwks = Jwks(keys=keys)
    routes.json(path, {"issuer": issuer, "jwks_uri": f"{origin}/jwks.json"})
    routes.answers["/jwks.json"] = lambda: (200, jwks.document())
    return jwks


def settings(issuer: str, **extra: Any) -> OAuthSettings:
    return OAuthSettings(issuer=issuer, audience=AUDIENCE, scopes=SCOPES, **extra)


@pytest.fixture
async def verifiers() -> AsyncIterator[list[JwtVerifier]]:
    made: list[JwtVerifier] = []
    yield made
    for verifier in made:
        await verifier.aclose()


def verifier_for(made: list[JwtVerifier], oauth: OAuthSettings) -> JwtVerifier:
    verifier = JwtVerifier(oauth)
    made.append(verifier)
    return verifier


def test_metadata_urls_follow_rfc_8414_then_openid() -> None:
    assert metadata_urls("https://auth.example.com") == (
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    )
    assert metadata_urls("https://auth.example.com/tenant/") == (
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
        "https://auth.example.com/tenant/.well-known/openid-configuration",
        "https://auth.example.com/.well-known/openid-configuration/tenant",
    )


async def test_rfc_8414_metadata_names_the_keys(
    routes: Routes, origin: str, key: SigningKey, verifiers: list[JwtVerifier]
) -> None:
    publish(routes, origin, origin, RFC8414, [key])
    verifier = verifier_for(verifiers, settings(origin))
    access = await verifier.verify(mint(key, audience=AUDIENCE, issuer=origin))
    assert access.subject == "user-1"
    assert routes.requested == [RFC8414, "/jwks.json"]


async def test_openid_configuration_is_the_fallback_also_under_a_path(
    routes: Routes, origin: str, key: SigningKey, verifiers: list[JwtVerifier]
) -> None:
    publish(routes, origin, origin, OPENID, [key])
    verifier = verifier_for(verifiers, settings(origin))
    await verifier.verify(mint(key, audience=AUDIENCE, issuer=origin))
    assert routes.requested == [RFC8414, OPENID, "/jwks.json"]
    tenant = f"{origin}/tenant"
    for path in (f"/tenant{OPENID}", f"{OPENID}/tenant"):
        routes.answers.clear()
        routes.requested.clear()
        publish(routes, origin, tenant, path, [key])
        verifier = verifier_for(verifiers, settings(tenant))
        await verifier.verify(mint(key, audience=AUDIENCE, issuer=tenant))
        assert routes.requested[-2:] == [path, "/jwks.json"]
        assert routes.requested[0] == f"{RFC8414}/tenant"


async def test_a_document_about_another_issuer_or_with_plain_http_keys_is_not_trusted(
    routes: Routes, origin: str, key: SigningKey, verifiers: list[JwtVerifier]
) -> None:
    """RFC 8414 §3.3: the document's issuer must be the configured one exactly, else a
    hostile or misconfigured server could choose which keys are trusted."""
    routes.json(RFC8414, {"issuer": "https://evil.test", "jwks_uri": f"{origin}/evil.json"})
    routes.json(OPENID, {"issuer": origin, "jwks_uri": "http://keys.example.com/jwks.json"})
    routes.json("/evil.json", {"keys": [key.public_jwk]})
    message = await _startup_failure(origin)
    assert f"{origin}{RFC8414}: its issuer is 'https://evil.test'" in message
    assert f"{origin}{OPENID}:" in message
    assert "https://" in message
    assert "set [auth.oauth] jwks_url" in message
    assert "/evil.json" not in routes.requested  # no key from it was ever fetched
    verifier = verifier_for(verifiers, settings(origin))
    rejected = await _refused(verifier, mint(key, audience=AUDIENCE, issuer=origin))
    assert "unavailable" in rejected.reason


async def test_startup_fails_clearly_when_the_issuer_publishes_no_metadata(
    routes: Routes, origin: str
) -> None:
    message = await _startup_failure(origin)
    assert f"cannot find the signing keys of issuer {origin}" in message
    assert f"{origin}{RFC8414}: HTTP 404" in message
    assert f"{origin}{OPENID}: HTTP 404" in message
    closed = f"http://127.0.0.1:{_closed_port()}"
    assert "ConnectError" in await _startup_failure(closed)


async def test_startup_discovers_once_and_a_configured_jwks_url_needs_no_discovery(
    routes: Routes, origin: str, key: SigningKey
) -> None:
    jwks = publish(routes, origin, origin, RFC8414, [key])
    async with server_auth_for(AuthSettings(oauth=settings(origin)), None) as auth:
        assert auth is not None
        assert auth.verifier.oauth is not None
        assert routes.requested == [RFC8414]
        await auth.verifier.oauth.verify(mint(key, audience=AUDIENCE, issuer=origin))
        assert routes.requested == [RFC8414, "/jwks.json"]
    routes.requested.clear()
    direct = settings(origin, jwks_url=f"{origin}/jwks.json")
    async with server_auth_for(AuthSettings(oauth=direct), None) as auth:
        assert routes.requested == []  # nothing to discover: keys are fetched on first use
    assert jwks.fetches == 1


async def test_keys_and_their_url_are_cached_and_refetched_on_an_unknown_kid(
    routes: Routes, origin: str, key: SigningKey, verifiers: list[JwtVerifier]
) -> None:
    publish(routes, origin, origin, RFC8414, [key])
    verifier = verifier_for(verifiers, settings(origin, jwks_refetch_s=3600))
    for _ in range(3):
        await verifier.verify(mint(key, audience=AUDIENCE, issuer=origin))
    assert routes.requested == [RFC8414, "/jwks.json"]
    # the issuer rotates to a new key published at a new URL
    rotated = rsa_key("disc-2")
    moved = Jwks(keys=[rotated])
    routes.json(RFC8414, {"issuer": origin, "jwks_uri": f"{origin}/v2/jwks.json"})
    routes.answers["/v2/jwks.json"] = lambda: (200, moved.document())
    await verifier.verify(mint(rotated, audience=AUDIENCE, issuer=origin))
    assert routes.requested[2:] == [RFC8414, "/v2/jwks.json"]
    for n in range(4):  # made-up kids: no further fetch within jwks_refetch_s
        await _refused(verifier, mint(rsa_key(f"made-up-{n}"), audience=AUDIENCE, issuer=origin))
    assert len(routes.requested) == 4


async def test_a_scheduled_refresh_keeps_the_url_when_the_metadata_is_down(
    routes: Routes,
    origin: str,
    key: SigningKey,
    verifiers: list[JwtVerifier],
    caplog: pytest.LogCaptureFixture,
) -> None:
    publish(routes, origin, origin, RFC8414, [key])
    verifier = verifier_for(verifiers, settings(origin, jwks_cache_s=0))
    await verifier.verify(mint(key, audience=AUDIENCE, issuer=origin))
    del routes.answers[RFC8414]
    caplog.set_level(logging.WARNING, logger="toolwire.mcp.server.auth")
    await verifier.verify(mint(key, audience=AUDIENCE, issuer=origin))
    assert routes.requested[-1] == "/jwks.json"  # fetched again, from the URL known before
    assert "keeping the JWKS URL" in caplog.text


async def test_over_http_discovery_failures_are_401s_and_the_metadata_names_the_issuer(
    routes: Routes, origin: str, key: SigningKey
) -> None:
    """A server built without `server_auth_for` (so not started) whose issuer has no metadata
    yet answers 401 with a challenge, never 500; once the issuer publishes it, tokens work.
    The RFC 9728 document names the issuer for clients to find it."""
    port = _closed_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    oauth = OAuthSettings(issuer=origin, audience=resource, scopes=SCOPES, jwks_refetch_s=0)
    auth = open_server_auth(AuthSettings(oauth=oauth), None)
    try:
        async with serving(two_toolsets(), auth, port=port) as url:
            token = mint(key, audience=resource, issuer=origin, scope="tools:alpha")
            headers = {
                "authorization": f"Bearer {token}",
                "accept": "application/json, text/event-stream",
            }
            async with httpx.AsyncClient(timeout=WAIT_S) as http:
                metadata = await http.get(
                    f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
                )
                assert metadata.json()["authorization_servers"] == [origin]
                refused = await http.post(url, json=HELLO, headers=headers)
                assert refused.status_code == 401
                challenge = refused.headers["www-authenticate"]
                assert 'error="invalid_token"' in challenge
                assert "signing keys are unavailable" in challenge
                assert "resource_metadata=" in challenge
                publish(routes, origin, origin, RFC8414, [key])
                await anyio.sleep(1.1)  # the retry after a failed discovery waits a second
                accepted = await http.post(url, json=HELLO, headers=headers)
                assert accepted.status_code == 200
    finally:
        await auth.aclose()


def test_discovery_settings() -> None:
    with pytest.raises(ConfigurationError, match="issuer"):
        settings("my-issuer")  # no jwks_url, and the issuer is no URL to discover from
    with pytest.raises(ConfigurationError, match="https://"):
        settings("http://auth.example.com")
    assert settings("my-issuer", jwks_url="https://k.example.com/jwks").jwks_url
    assert settings("https://auth.example.com").jwks_url == ""


async def _refused(verifier: JwtVerifier, token: str) -> TokenRejected:
    with pytest.raises(TokenRejected) as caught:
        await verifier.verify(token)
    return caught.value


async def _startup_failure(issuer: str) -> str:
    """Starting the auth of ``issuer``'s settings fails: the `ConfigurationError`'s message."""
    with pytest.raises(ConfigurationError) as failed:
        async with server_auth_for(AuthSettings(oauth=settings(issuer)), None):
            pass
    return str(failed.value)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_toolwire_serve_refuses_to_start_when_discovery_fails(
    routes: Routes, origin: str, tmp_path: Path
) -> None:
    """The whole command, configured from the environment alone: exit 2 with the reason
    before anything is served."""
    env = {
        **os.environ,
        "TOOLWIRE_CONFIG": "",
        "TOOLWIRE_STORE_URL": "memory://",
        "TOOLWIRE_AUTH_OAUTH_ISSUER": origin,
        "TOOLWIRE_AUTH_OAUTH_AUDIENCE": AUDIENCE,
        "TOOLWIRE_AUTH_OAUTH_SCOPES": '{"tools:alpha": ["file"]}',
        "NO_COLOR": "1",
        "COLUMNS": "400",
    }
    command = [sys.executable, "-m", "toolwire", "serve", "--http", f"127.0.0.1:{_closed_port()}"]
    done = await anyio.run_process(command, cwd=tmp_path, env=env, check=False)
    stderr = done.stderr.decode()
    assert done.returncode == 2, stderr
    assert f"cannot find the signing keys of issuer {origin}" in " ".join(stderr.split())
    assert "jwks_url" in stderr
    assert routes.requested == [RFC8414, OPENID]


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b'{"keys": ["' + b"x" * 1_200_000 + b'"]}', "larger than"),
        (b"[" * 200_000 + b"]" * 200_000, "not JSON"),  # nested past the parser's depth
        (b"\xff\xfe not json", "not JSON"),
    ],
)
async def test_hostile_documents_are_refused_not_crashed_on(
    routes: Routes,
    origin: str,
    key: SigningKey,
    verifiers: list[JwtVerifier],
    caplog: pytest.LogCaptureFixture,
    body: bytes,
    problem: str,
) -> None:
    """A metadata document or JWKS that is huge, nested without end or not text: the token is
    refused (a 401 over HTTP), the reason is logged, nothing raises past the verifier."""
    routes.json(RFC8414, {"issuer": origin, "jwks_uri": f"{origin}/jwks.json"})
    routes.answers["/jwks.json"] = lambda: (200, body)
    verifier = verifier_for(verifiers, settings(origin))
    caplog.set_level(logging.WARNING, logger="toolwire.mcp.server.auth")
    rejected = await _refused(verifier, mint(key, audience=AUDIENCE, issuer=origin))
    assert "unavailable" in rejected.reason
    assert problem in caplog.text
    routes.answers[RFC8414] = lambda: (200, body)
    assert problem in await _startup_failure(origin)
