"""OAuth 2.1 resource-server mode against a real local issuer: keys from ``cryptography``,
tokens signed by PyJWT, the JWKS served over HTTP on 127.0.0.1."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx
import pytest
from auth_fixtures import (
    ISSUER,
    WAIT_S,
    Jwks,
    SigningKey,
    ec_key,
    jwks_server,
    mint,
    rsa_key,
    serving,
)
from cryptography.hazmat.primitives import serialization
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from toolwire.mcp.server.auth._credentials import TokenRejected
from toolwire.mcp.server.auth._oauth import JwtVerifier
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.server_auth import open_server_auth
from toolwire.mcp.server.auth.settings import AuthSettings, OAuthSettings

pytestmark = pytest.mark.anyio
AUDIENCE = "https://mcp.test/mcp"
SCOPES = {"tools:alpha": ("alpha",), "tools:beta": ("beta",), "tools:all": ("*",)}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def rs() -> SigningKey:
    return rsa_key("rsa-1")


@pytest.fixture(scope="module")
def es() -> SigningKey:
    return ec_key("ec-1")


@pytest.fixture
def jwks(rs: SigningKey, es: SigningKey) -> Jwks:
    return Jwks(keys=[rs, es])


@pytest.fixture
def jwks_url(jwks: Jwks) -> Iterator[str]:
    with jwks_server(jwks) as url:
        yield url


@pytest.fixture
async def verifier(jwks_url: str) -> AsyncIterator[JwtVerifier]:
    settings = OAuthSettings(
        issuer=ISSUER, jwks_url=jwks_url, audience=AUDIENCE, scopes=SCOPES, leeway_s=5,
        jwks_refetch_s=0,
    )  # fmt: skip
    verifier = JwtVerifier(settings)
    yield verifier
    await verifier.aclose()


async def refused(verifier: JwtVerifier, token: str) -> TokenRejected:
    with pytest.raises(TokenRejected) as caught:
        await verifier.verify(token)
    return caught.value


async def test_valid_rsa_and_ec_tokens_map_their_scopes_to_toolsets(
    verifier: JwtVerifier, rs: SigningKey, es: SigningKey
) -> None:
    access = await verifier.verify(mint(rs, audience=AUDIENCE, scope="tools:alpha openid"))
    assert access.grant == Grant.of(toolsets=["alpha"])
    assert (access.client_id, access.subject, access.claims) == (
        "agent-app",
        "user-1",
        {"iss": ISSUER},
    )
    assert access.resource == AUDIENCE
    both = await verifier.verify(mint(es, audience=AUDIENCE, scope="tools:alpha tools:beta"))
    assert both.grant == Grant.of(toolsets=["alpha", "beta"])
    listed = await verifier.verify(
        mint(rs, audience=[AUDIENCE, "other"], scope=None, scp=["tools:all"])
    )
    assert listed.grant.everything


async def test_expired_and_not_yet_valid_tokens_are_refused_beyond_the_leeway(
    verifier: JwtVerifier, rs: SigningKey
) -> None:
    now = int(time.time())
    expired = mint(rs, audience=AUDIENCE, exp=now - 60)
    assert (await refused(verifier, expired)).reason == "token expired"
    within_leeway = mint(rs, audience=AUDIENCE, exp=now - 2)
    assert (await verifier.verify(within_leeway)).subject == "user-1"
    early = mint(rs, audience=AUDIENCE, nbf=now + 120)
    assert "not yet valid" in (await refused(verifier, early)).reason
    future_iat = mint(rs, audience=AUDIENCE, iat=now + 120)
    assert "not yet valid" in (await refused(verifier, future_iat)).reason
    no_exp = mint(rs, audience=AUDIENCE)
    payload = json.loads(base64.urlsafe_b64decode(no_exp.split(".")[1] + "=="))
    del payload["exp"]
    import jwt

    forever = jwt.encode(payload, rs.private, algorithm="RS256", headers={"kid": rs.kid})
    assert "required claim" in (await refused(verifier, forever)).reason


async def test_wrong_audience_issuer_and_scope_are_refused(
    verifier: JwtVerifier, rs: SigningKey
) -> None:
    assert "audience" in (await refused(verifier, mint(rs, audience="https://other/mcp"))).reason
    wrong_iss = mint(rs, audience=AUDIENCE, issuer="https://evil.test")
    assert "issuer" in (await refused(verifier, wrong_iss)).reason
    prefix_iss = mint(rs, audience=AUDIENCE, issuer=ISSUER + "/")  # exact match only
    assert "issuer" in (await refused(verifier, prefix_iss)).reason
    no_scope = await refused(verifier, mint(rs, audience=AUDIENCE, scope="openid email"))
    assert (no_scope.error, no_scope.status) == ("insufficient_scope", 403)


async def test_unknown_kid_and_algorithm_confusion_are_refused(
    verifier: JwtVerifier, rs: SigningKey, es: SigningKey
) -> None:
    stranger = rsa_key("rsa-1")  # the same kid, another key: the signature fails
    assert (await refused(verifier, mint(stranger, audience=AUDIENCE))).reason == "bad signature"
    unknown = rsa_key("not-published")
    assert (
        await refused(verifier, mint(unknown, audience=AUDIENCE))
    ).reason == "unknown signing key"
    # alg=none: an unsigned token
    header = _b64({"alg": "none", "typ": "JWT", "kid": rs.kid})
    body = _b64(
        {"iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 60, "scope": "tools:all"}
    )
    assert "'none'" in (await refused(verifier, f"{header}.{body}.")).reason
    # HS256 with the issuer's public key as the HMAC secret
    public_pem = rs.private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    header = _b64({"alg": "HS256", "typ": "JWT", "kid": rs.kid})
    signing_input = f"{header}.{body}".encode()
    mac = hmac.new(public_pem, signing_input, hashlib.sha256).digest()
    forged = f"{header}.{body}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
    assert "HS256" in (await refused(verifier, forged)).reason
    # an accepted algorithm on the wrong kind of key: ES256 naming the RSA key
    mismatched = mint(es, audience=AUDIENCE, headers={"kid": rs.kid})
    assert "does not match the key" in (await refused(verifier, mismatched)).reason
    assert (await refused(verifier, "not.a.jwt")).reason == "not a JWT"


async def test_keys_named_by_the_token_itself_are_never_used(
    verifier: JwtVerifier, jwks: Jwks, rs: SigningKey
) -> None:
    """A token that carries its own key (``jwk``), points at one (``jku``, ``x5u``) or demands
    an extension nobody implements (``crit``) gets nowhere: only the issuer's JWKS counts."""
    attacker = rsa_key(rs.kid)  # signs with its own key, under the issuer's kid
    for header in (
        {"jwk": attacker.public_jwk},
        {"jku": "http://127.0.0.1:9/attacker.json"},
        {"x5u": "http://127.0.0.1:9/attacker.pem"},
    ):
        forged = mint(attacker, audience=AUDIENCE, scope="tools:all", headers=header)
        assert (await refused(verifier, forged)).reason == "bad signature"
    # its own key under a kid the issuer never published: unknown, whatever the header says
    stray = rsa_key("attacker-kid")
    carried = mint(stray, audience=AUDIENCE, headers={"jwk": stray.public_jwk})
    assert (await refused(verifier, carried)).reason == "unknown signing key"
    critical = mint(rs, audience=AUDIENCE, headers={"crit": ["exp-policy"], "exp-policy": 1})
    assert (await refused(verifier, critical)).status == 401
    assert jwks.fetches <= 2  # no URL from a token was ever fetched


async def test_audience_lists_on_either_side(jwks_url: str, rs: SigningKey) -> None:
    settings = OAuthSettings(
        issuer=ISSUER, jwks_url=jwks_url, audience=("api://toolwire", AUDIENCE), scopes=SCOPES
    )
    verifier = JwtVerifier(settings)
    try:
        for aud in ("api://toolwire", AUDIENCE, ["other", AUDIENCE], ["api://toolwire"]):
            assert (await verifier.verify(mint(rs, audience=aud))).subject == "user-1"
        for aud in ("other", ["other", "api://toolwire-x"]):
            assert "audience" in (await refused(verifier, mint(rs, audience=aud))).reason
        assert (await refused(verifier, mint(rs, audience=[]))).status == 401
    finally:
        await verifier.aclose()


@pytest.mark.parametrize(
    ("claims", "grant"),
    [
        ({"scope": "tools:alpha  tools:beta\ttools:nope"}, Grant.of(toolsets=["alpha", "beta"])),
        ({"scope": None, "scp": "tools:beta"}, Grant.of(toolsets=["beta"])),
        ({"scope": None, "scp": ["tools:alpha", 7, None]}, Grant.of(toolsets=["alpha"])),
        ({"scope": "TOOLS:ALPHA tools:alpha"}, Grant.of(toolsets=["alpha"])),  # case-sensitive
    ],
)
async def test_scope_parsing(
    verifier: JwtVerifier, rs: SigningKey, claims: dict[str, Any], grant: Grant
) -> None:
    assert (await verifier.verify(mint(rs, audience=AUDIENCE, **claims))).grant == grant


@pytest.mark.parametrize(
    "claims",
    [{"scope": "tools:alphabet"}, {"scope": 7}, {"scope": None, "scp": {"tools:all": 1}}],
)
async def test_scopes_that_open_nothing_are_403(
    verifier: JwtVerifier, rs: SigningKey, claims: dict[str, Any]
) -> None:
    rejected = await refused(verifier, mint(rs, audience=AUDIENCE, **claims))
    assert rejected.status == 403


async def test_tokens_naming_nobody_do_not_share_a_principal(
    verifier: JwtVerifier, rs: SigningKey
) -> None:
    """The SDK binds a session to (client, issuer, subject); tokens without ``sub``,
    ``client_id`` or ``azp`` must not all become one principal that shares sessions."""
    anonymous = [
        mint(rs, audience=AUDIENCE, sub=None, client_id=None, lifetime_s=300 + n) for n in range(2)
    ]
    principals = {(a.client_id, a.subject) for a in [await verifier.verify(t) for t in anonymous]}
    assert len(principals) == 2
    with_jti = await verifier.verify(
        mint(rs, audience=AUDIENCE, sub=None, client_id=None, jti="j-1")
    )
    assert with_jti.subject == "j-1"
    named = await verifier.verify(mint(rs, audience=AUDIENCE, sub=None, client_id="app"))
    assert (named.client_id, named.subject) == ("app", None)


async def test_rotated_keys_are_fetched_once_and_cached(
    verifier: JwtVerifier, jwks: Jwks, rs: SigningKey
) -> None:
    await verifier.verify(mint(rs, audience=AUDIENCE))
    await verifier.verify(mint(rs, audience=AUDIENCE))
    assert jwks.fetches == 1  # cached
    rotated = rsa_key("rsa-2")
    jwks.keys = [rotated]  # the issuer rotates: the old key is gone, a new kid appears
    assert (await verifier.verify(mint(rotated, audience=AUDIENCE))).subject == "user-1"
    assert jwks.fetches == 2
    # the old key stays unknown after the refresh (it was withdrawn)
    assert (await refused(verifier, mint(rs, audience=AUDIENCE))).reason == "unknown signing key"


async def test_an_accepted_token_is_cached_until_its_expiry(jwks_url: str, rs: SigningKey) -> None:
    settings = OAuthSettings(issuer=ISSUER, jwks_url=jwks_url, audience=AUDIENCE, scopes=SCOPES)
    verifier = JwtVerifier(settings, cache_s=3600)
    try:
        token = mint(rs, audience=AUDIENCE, lifetime_s=2)
        first = await verifier.verify(token)
        assert first.expires_at is not None
        assert await verifier.verify(token) is first  # no second signature check
        await anyio.sleep(first.expires_at - time.time() + 0.05)  # past exp, within the leeway
        assert await verifier.verify(token) is not first
        with pytest.raises(TokenRejected):
            await verifier.verify(mint(rs, audience=AUDIENCE, lifetime_s=-60))
    finally:
        await verifier.aclose()


async def test_unknown_kids_do_not_hammer_the_issuer(
    jwks_url: str, jwks: Jwks, rs: SigningKey
) -> None:
    settings = OAuthSettings(
        issuer=ISSUER, jwks_url=jwks_url, audience=AUDIENCE, scopes=SCOPES, jwks_refetch_s=3600
    )
    verifier = JwtVerifier(settings)
    try:
        await verifier.verify(mint(rs, audience=AUDIENCE))
        for n in range(5):
            await refused(verifier, mint(rsa_key(f"made-up-{n}"), audience=AUDIENCE))
        assert jwks.fetches == 2  # the first fetch, then one refetch for all the made-up kids
    finally:
        await verifier.aclose()


async def test_an_unreachable_jwks_refuses_tokens() -> None:
    settings = OAuthSettings(
        issuer=ISSUER, jwks_url="http://127.0.0.1:9/jwks.json", audience=AUDIENCE, scopes=SCOPES
    )
    verifier = JwtVerifier(settings)
    fetches: list[str] = []
    verifier.keys._fetch = _counting(verifier.keys._fetch, fetches)  # type: ignore[method-assign]
    try:
        for _ in range(3):
            rejected = await refused(verifier, mint(rsa_key("k"), audience=AUDIENCE))
            assert "unavailable" in rejected.reason
        assert len(fetches) == 1  # the next attempt waits instead of one fetch per request
    finally:
        await verifier.aclose()


async def test_oauth_over_http_metadata_challenges_and_grants(
    jwks_url: str, rs: SigningKey
) -> None:
    """The whole resource server: RFC 9728 metadata, 401/403 challenges naming it, and the SDK's
    client calling with a JWT whose scope opens one toolset."""
    from auth_fixtures import two_toolsets as registry_of

    port = _free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    oauth = OAuthSettings(issuer=ISSUER, jwks_url=jwks_url, audience=resource, scopes=SCOPES)
    auth = open_server_auth(AuthSettings(oauth=oauth), None)
    try:
        async with serving(registry_of(), auth, port=port) as url:
            metadata_url = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
            async with httpx.AsyncClient(timeout=WAIT_S) as http:
                answer = await http.get(metadata_url, headers={"origin": "https://evil.example"})
                metadata = answer.json()
                # Regression (outside check, issue 23): no response signing advertised (none
                # is done), and no CORS for an origin [serve] cors_origins does not list
                assert "resource_signing_alg_values_supported" not in metadata
                assert "access-control-allow-origin" not in answer.headers
                assert metadata["resource"] == resource
                assert metadata["authorization_servers"] == [ISSUER]
                assert sorted(metadata["scopes_supported"]) == sorted(SCOPES)
                root = await http.get(
                    f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource"
                )
                assert root.json() == metadata
                missing = await http.post(url, json={}, headers={"accept": "application/json"})
                assert missing.status_code == 401
                assert f'resource_metadata="{metadata_url}"' in missing.headers["www-authenticate"]
                wrong = mint(rs, audience="https://elsewhere/mcp")
                answer = await http.post(url, json={}, headers={"authorization": f"Bearer {wrong}"})
                assert answer.status_code == 401
                assert 'error="invalid_token"' in answer.headers["www-authenticate"]
                no_scope = mint(rs, audience=resource, scope="email")
                answer = await http.post(
                    url, json={}, headers={"authorization": f"Bearer {no_scope}"}
                )
                assert answer.status_code == 403
                challenge = answer.headers["www-authenticate"]
                assert 'error="insufficient_scope"' in challenge
                assert "tools:alpha" in challenge
            token = mint(rs, audience=resource, scope="tools:beta")
            headers = {"authorization": f"Bearer {token}"}
            transport = streamable_http_client(
                url, http_client=create_mcp_http_client(headers=headers)
            )
            with anyio.fail_after(WAIT_S):
                async with Client(transport) as session:
                    assert sorted(t.name for t in (await session.list_tools()).tools) == [
                        "beta_one",
                        "beta_two",
                    ]
                    assert not (await session.call_tool("beta_one", {})).is_error
                    with pytest.raises(MCPError):
                        await session.call_tool("echo", {"text": "x"})
    finally:
        await auth.aclose()


def _counting(fetch: Any, calls: list[str]) -> Any:
    async def counted(*args: Any) -> Any:
        calls.append("fetch")
        return await fetch(*args)

    return counted


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
