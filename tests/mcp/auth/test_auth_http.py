"""Bearer tokens over a real HTTP server: `serve_http` on 127.0.0.1 with the SDK's client (both
protocol generations) and raw httpx for what the client does not show (statuses, headers)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from auth_fixtures import HELLO, WAIT_S, serving, two_toolsets
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from toolwire.errors import ConfigurationError
from toolwire.mcp import ServeOptions, serve_http
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.server_auth import open_server_auth
from toolwire.mcp.server.auth.settings import AuthSettings
from toolwire.mcp.server.auth.tokens import TokenStore
from toolwire.stores import create_kv_backend

pytestmark = pytest.mark.anyio
MODES = ["legacy", "auto"]  # the initialize handshake, and 2026-07-28 when both speak it
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def token_server() -> AsyncIterator[tuple[str, TokenStore]]:
    """A server accepting bearer tokens from an in-memory store (no verification cache, so a
    revocation bites at once); its URL and a second view of the store, as the CLI has."""
    async with create_kv_backend("memory://") as backend:
        auth = open_server_auth(AuthSettings(tokens=True, token_cache_s=0), backend)
        try:
            async with serving(two_toolsets(), auth) as url:
                yield url, TokenStore(backend)
        finally:
            await auth.aclose()


def client(url: str, token: str | None, mode: str) -> Client:
    headers = {"authorization": f"Bearer {token}"} if token is not None else None
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(transport, mode=mode)


@pytest.mark.parametrize("mode", MODES)
async def test_a_restricted_token_lists_and_calls_only_its_toolset(mode: str) -> None:
    async with token_server() as (url, store):
        issued = await store.create("alpha-only", Grant.of(toolsets=["alpha"]))
        with anyio.fail_after(WAIT_S):
            async with client(url, issued.token, mode) as session:
                listed = await session.list_tools()
                assert [t.name for t in listed.tools] == ["echo"]
                answer = await session.call_tool("echo", {"text": "hi"})
                assert not answer.is_error
                assert "echo hi" in answer.content[0].text  # type: ignore[union-attr]
                with pytest.raises(MCPError) as refused:
                    await session.call_tool("beta_one", {})
                assert refused.value.code == -32602
                assert "not available to this credential" in refused.value.message
                assert "toolsets alpha" in refused.value.message


@pytest.mark.parametrize("mode", MODES)
async def test_a_token_granted_single_tools_and_one_granted_everything(mode: str) -> None:
    async with token_server() as (url, store):
        single = await store.create("one-tool", Grant.of(tools=["beta_two"]))
        admin = await store.create("admin", Grant.of(toolsets=["*"]))
        with anyio.fail_after(WAIT_S):
            async with client(url, single.token, mode) as session:
                assert [t.name for t in (await session.list_tools()).tools] == ["beta_two"]
                assert not (await session.call_tool("beta_two", {})).is_error
                with pytest.raises(MCPError):
                    await session.call_tool("beta_one", {})
            async with client(url, admin.token, mode) as session:
                names = sorted(t.name for t in (await session.list_tools()).tools)
                assert names == ["beta_one", "beta_two", "echo"]


async def test_an_unknown_tool_is_answered_like_a_forbidden_one() -> None:
    """A restricted credential learns nothing about which other tools exist."""
    async with token_server() as (url, store):
        issued = await store.create("alpha-only", Grant.of(toolsets=["alpha"]))
        with anyio.fail_after(WAIT_S):
            async with client(url, issued.token, "legacy") as session:
                messages = []
                for name in ("beta_one", "no_such_tool"):
                    with pytest.raises(MCPError) as refused:
                        await session.call_tool(name, {})
                    messages.append(refused.value.message.replace(name, "X"))
                assert messages[0] == messages[1]


async def test_missing_wrong_and_malformed_credentials_get_401_with_a_challenge() -> None:
    async with token_server() as (url, store):
        issued = await store.create("ci", Grant.of(toolsets=["alpha"]))
        wrong = issued.token[:-4] + ("AAAA" if not issued.token.endswith("AAAA") else "BBBB")
        async with httpx.AsyncClient(timeout=WAIT_S) as http:
            missing = await http.post(url, json=HELLO, headers=HEADERS)
            assert missing.status_code == 401
            challenge = missing.headers["www-authenticate"]
            assert challenge.startswith("Bearer ")
            assert 'realm="toolwire"' in challenge
            assert "error=" not in challenge  # RFC 6750 §3.1: no error code without credentials
            for credential in (wrong, "tw_000000000000_" + "x" * 43, "garbage", issued.token + "x"):
                answer = await http.post(
                    url, json=HELLO, headers={**HEADERS, "authorization": f"Bearer {credential}"}
                )
                assert answer.status_code == 401, credential
                assert 'error="invalid_token"' in answer.headers["www-authenticate"]
                assert answer.json()["error"] == "invalid_token"
            basic = await http.post(
                url, json=HELLO, headers={**HEADERS, "authorization": "Basic eDp5"}
            )
            assert basic.status_code == 401
            good = await http.post(
                url, json=HELLO, headers={**HEADERS, "authorization": f"bearer {issued.token}"}
            )
            assert good.status_code == 200


@pytest.mark.parametrize("mode", MODES)
async def test_a_revoked_token_is_refused_even_on_its_open_session(mode: str) -> None:
    async with token_server() as (url, store):
        issued = await store.create("laptop", Grant.of(toolsets=["alpha"]))
        with anyio.fail_after(WAIT_S):
            async with client(url, issued.token, mode) as session:
                assert not (await session.call_tool("echo", {"text": "a"})).is_error
                assert (await store.revoke("laptop")) is not None
                with pytest.raises(MCPError):  # the SDK's client turns the 401 into an error
                    await session.call_tool("echo", {"text": "b"})
        async with httpx.AsyncClient(timeout=WAIT_S) as http:
            answer = await http.post(
                url, json=HELLO, headers={**HEADERS, "authorization": f"Bearer {issued.token}"}
            )
            assert answer.status_code == 401


async def test_an_expired_token_is_refused() -> None:
    async with token_server() as (url, store):
        issued = await store.create(
            "short", Grant.of(toolsets=["alpha"]), expires_at=time.time() + 1.5
        )
        headers = {**HEADERS, "authorization": f"Bearer {issued.token}"}
        async with httpx.AsyncClient(timeout=WAIT_S) as http:
            assert (await http.post(url, json=HELLO, headers=headers)).status_code == 200
            await anyio.sleep(2.0)  # past its expiry: ordering, not speed, is asserted
            answer = await http.post(url, json=HELLO, headers=headers)
            assert answer.status_code == 401


async def test_a_session_cannot_be_used_with_another_token() -> None:
    """The SDK binds a session to the principal that opened it; toolwire gives each token its
    own principal, so a second token cannot ride the first one's session."""
    async with token_server() as (url, store):
        first = await store.create("first", Grant.of(toolsets=["*"]))
        second = await store.create("second", Grant.of(toolsets=["alpha"]))
        async with httpx.AsyncClient(timeout=WAIT_S) as http:
            opened = await http.post(
                url, json=HELLO, headers={**HEADERS, "authorization": f"Bearer {first.token}"}
            )
            session_id = opened.headers["mcp-session-id"]
            borrowed = {
                **HEADERS,
                "authorization": f"Bearer {second.token}",
                "mcp-session-id": session_id,
                "mcp-protocol-version": "2025-06-18",
            }
            answer = await http.post(url, json=LIST, headers=borrowed)
            assert answer.status_code in (403, 404)


async def test_non_loopback_without_auth_is_refused_and_allowed_with_it() -> None:
    registry = two_toolsets()
    for host in ("0.0.0.0", "::", "192.0.2.1", "my-host.example"):
        with pytest.raises(ConfigurationError, match="without authentication"):
            await serve_http(registry, ServeOptions(), host=host, port=0)
    async with create_kv_backend("memory://") as backend:
        auth = open_server_auth(AuthSettings(tokens=True), backend)
        issued = await TokenStore(backend).create("ci", Grant.of(toolsets=["alpha"]))
        async with serving(registry, auth, host="0.0.0.0") as url:
            local = url.replace("0.0.0.0", "127.0.0.1")
            async with httpx.AsyncClient(timeout=WAIT_S) as http:
                assert (await http.post(local, json=HELLO, headers=HEADERS)).status_code == 401
                good = {**HEADERS, "authorization": f"Bearer {issued.token}"}
                assert (await http.post(local, json=HELLO, headers=good)).status_code == 200


def _names(listed: Any) -> list[str]:
    return [t.name for t in listed.tools]


async def test_an_unreachable_token_store_answers_503_not_500(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis at a port nobody listens on: the token may be good, so not a 401; the request is
    answered 503 with Retry-After, the process keeps serving, and no token is logged."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    token = "tw_0123456789ab_" + "A" * 43
    async with create_kv_backend(f"redis://127.0.0.1:{closed}/0") as backend:
        auth = open_server_auth(AuthSettings(tokens=True, token_cache_s=0), backend)
        try:
            async with (
                serving(two_toolsets(), auth) as url,
                httpx.AsyncClient(timeout=WAIT_S) as http,
            ):
                good = {**HEADERS, "authorization": f"Bearer {token}"}
                for _ in range(2):
                    answer = await http.post(url, json=HELLO, headers=good)
                    assert answer.status_code == 503
                    assert answer.headers["retry-after"] == "5"
                    assert answer.json()["error"] == "temporarily_unavailable"
                    assert "www-authenticate" not in answer.headers
                missing = await http.post(url, json=HELLO, headers=HEADERS)
                assert missing.status_code == 401  # still answering
        finally:
            await auth.aclose()
    assert token not in caplog.text
