"""What an HTTP request's headers can and cannot do to authentication (issue 15).

The 2026-07-28 revision mirrors request params into ``Mcp-Name`` and ``Mcp-Param-*`` headers so that
intermediaries can route on them. These tests pin down that no such header (nor a second
``Authorization``, nor a token in the URL) authenticates anyone, that nothing secret is reflected in
an answer or a log line, and that a header/body disagreement is refused the same way by the fast
path (`toolwire.mcp.server.fast_http`) and by the SDK's transport: a gateway that routes on
``Mcp-Name`` must see the tool that actually runs.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from auth_fixtures import WAIT_S, serving
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types.jsonrpc import HEADER_MISMATCH

from toolwire import ToolContext, ToolRegistry, define_tool, ok
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.server_auth import open_server_auth
from toolwire.mcp.server.auth.settings import AuthSettings
from toolwire.mcp.server.auth.tokens import TokenStore
from toolwire.mcp.server.fast_http import LEAN_ENV
from toolwire.results import ToolResult
from toolwire.safety._redaction import redact_secrets
from toolwire.stores import create_kv_backend

pytestmark = pytest.mark.anyio
MODERN = "2026-07-28"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
CAPS = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
REGION_SCHEMA = {
    "type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
    "required": ["region"],
}
SEEN: list[Any] = []  # what `whoami` found in the SDK's auth context


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def registry() -> ToolRegistry:
    """``routed`` (toolset ``alpha``, its ``region`` mirrored as ``Mcp-Param-Region``),
    ``whoami`` (toolset ``alpha``: records the SDK's access token) and ``secret_op`` (toolset
    ``beta``)."""

    async def routed(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ok(f"ran in {args['region']}")

    async def whoami(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        SEEN.append(get_access_token())
        return ok("checked")

    async def secret_op(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ok("secret ran")

    tools = ToolRegistry()
    for name, description, schema, execute, toolset in (
        ("routed", "Runs in a region.", REGION_SCHEMA, routed, "alpha"),
        ("whoami", "Who is calling.", {"type": "object"}, whoami, "alpha"),
        ("hidden_routed", "Beta only, routed.", REGION_SCHEMA, routed, "beta"),
        ("secret_op", "Beta only.", {"type": "object"}, secret_op, "beta"),
    ):
        tools.register(
            define_tool(
                name=name,
                description=description,
                schema=schema,
                execute=execute,
                toolset=toolset,
            )
        )
    return tools


@asynccontextmanager
async def servers(
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[tuple[str, str, TokenStore]]:
    """The same registry behind bearer tokens twice: with the fast path and without it
    (``TOOLWIRE_MCP_LEAN=0``), sharing one token store."""
    async with create_kv_backend("memory://") as backend:
        auth = open_server_auth(AuthSettings(tokens=True, token_cache_s=0), backend)
        try:
            monkeypatch.setenv(LEAN_ENV, "1")
            async with serving(registry(), auth) as lean:
                monkeypatch.setenv(LEAN_ENV, "0")
                async with serving(registry(), auth) as sdk:
                    yield lean, sdk, TokenStore(backend)
        finally:
            await auth.aclose()


def modern(
    name: str, arguments: dict[str, Any], token: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """A 2026-07-28 ``tools/call`` with the headers a conforming client sends."""
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": CAPS},
    }
    headers = {
        **ACCEPT,
        "authorization": f"Bearer {token}",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": name,
    }
    if "region" in arguments:
        headers["mcp-param-region"] = str(arguments["region"])
    return body, headers


async def both(
    http: httpx.AsyncClient,
    urls: tuple[str, str],
    body: dict[str, Any],
    headers: dict[str, str] | list[tuple[str, str]],
) -> tuple[httpx.Response, httpx.Response]:
    lean, sdk = urls
    return (
        await http.post(lean, json=body, headers=headers),
        await http.post(sdk, json=body, headers=headers),
    )


async def test_no_header_but_authorization_authenticates(monkeypatch: pytest.MonkeyPatch) -> None:
    """A valid token in ``Mcp-Param-Authorization``, ``Mcp-Name`` or any other header is no
    credential: the request is refused before anything reads its body."""
    async with servers(monkeypatch) as (lean, sdk, store), httpx.AsyncClient() as http:
        token = (await store.create("all", Grant.of(toolsets=["*"]))).token
        body, headers = modern("whoami", {}, token)
        del headers["authorization"]
        for smuggled in (
            {"mcp-param-authorization": f"Bearer {token}"},
            {"mcp-param-token": token},
            {"mcp-name": f"Bearer {token}"},
            {"x-forwarded-authorization": f"Bearer {token}"},
            {"proxy-authorization": f"Bearer {token}"},
            {"cookie": f"authorization=Bearer {token}"},
        ):
            for answer in await both(http, (lean, sdk), body, {**headers, **smuggled}):
                assert answer.status_code == 401, smuggled
                assert token not in answer.text
                assert token not in str(answer.headers)


async def test_mcp_param_headers_cannot_claim_an_identity_or_a_grant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A restricted token stays restricted whatever ``Mcp-Param-*`` headers claim, and the
    principal a tool sees is the token's (no raw credential in it)."""
    async with servers(monkeypatch) as (lean, sdk, store), httpx.AsyncClient() as http:
        issued = await store.create("alpha-only", Grant.of(toolsets=["alpha"]))
        claims = {
            "mcp-param-user": "admin",
            "mcp-param-toolsets": "*",
            "mcp-param-client-id": "all",
            "mcp-param-sub": "root",
        }
        body, headers = modern("secret_op", {}, issued.token)
        for answer in await both(http, (lean, sdk), body, {**headers, **claims}):
            assert answer.status_code == 400
            assert "not available to this credential" in answer.json()["error"]["message"]
        SEEN.clear()
        body, headers = modern("whoami", {}, issued.token)
        for answer in await both(http, (lean, sdk), body, {**headers, **claims}):
            assert answer.status_code == 200
            assert not answer.json()["result"]["isError"]
        assert len(SEEN) == 2
        for access in SEEN:
            assert (access.client_id, access.subject) == ("alpha-only", issued.record.id)
            assert issued.token not in access.token
            assert issued.token not in repr(access)


async def test_mcp_param_mismatches_are_refused_alike_on_both_paths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with servers(monkeypatch) as (lean, sdk, store), httpx.AsyncClient() as http:
        token = (await store.create("alpha", Grant.of(toolsets=["alpha"]))).token
        body, good = modern("routed", {"region": "eu"}, token)
        fast, slow = await both(http, (lean, sdk), body, good)
        assert fast.status_code == slow.status_code == 200
        assert fast.json()["result"]["content"] == slow.json()["result"]["content"]
        missing = {k: v for k, v in good.items() if k != "mcp-param-region"}
        cases: list[dict[str, str] | list[tuple[str, str]]] = [
            {**good, "mcp-param-region": "us"},  # routed to "us", the body says "eu"
            missing,  # the body has the argument, the header that must mirror it is gone
            {**good, "mcp-param-region": "=?base64?not base64?="},
            [*good.items(), ("mcp-param-region", "us")],  # two values: which one routed?
            {**good, "mcp-name": "whoami"},  # a gateway sees another tool than runs
            [*good.items(), ("mcp-name", "whoami")],
            [("mcp-name", "whoami"), *good.items()],
        ]
        plain, plain_headers = modern("whoami", {}, token)  # no Mcp-Param-* at all
        smuggled = [  # a gateway reading the first Mcp-Name would see "secret_op"
            [("mcp-name", "secret_op"), *plain_headers.items()],
            [*plain_headers.items(), ("mcp-name", "secret_op")],
            [*plain_headers.items(), ("mcp-method", "tools/list")],
        ]
        for sent, headers in [(body, h) for h in cases] + [(plain, h) for h in smuggled]:
            fast, slow = await both(http, (lean, sdk), sent, headers)
            assert fast.status_code == slow.status_code == 400, headers
            assert fast.json() == slow.json(), headers
            assert fast.json()["error"]["code"] == HEADER_MISMATCH
            assert token not in fast.text


async def test_header_checks_do_not_reveal_tools_the_credential_cannot_see(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hidden tool that declares ``x-mcp-header`` parameters is answered like a tool that
    does not exist, whatever its headers say: its schema is not consulted for a credential
    that may not call it."""
    async with servers(monkeypatch) as (lean, sdk, store), httpx.AsyncClient() as http:
        token = (await store.create("alpha", Grant.of(toolsets=["alpha"]))).token
        answers = []
        for name in ("hidden_routed", "no_such_tool"):
            body, headers = modern(name, {"region": "eu"}, token)
            for sent in (headers, {**headers, "mcp-param-region": "us"}):
                fast, slow = await both(http, (lean, sdk), body, sent)
                assert (fast.status_code, fast.json()) == (slow.status_code, slow.json())
                error = fast.json()["error"]
                answers.append(
                    (fast.status_code, error["code"], error["message"].replace(name, "X"))
                )
        assert len(set(answers)) == 1, answers


async def test_the_sdk_client_mirrors_parameters_and_calls_through_both_paths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with servers(monkeypatch) as (lean, sdk, store):
        token = (await store.create("alpha", Grant.of(toolsets=["alpha"]))).token
        for url in (lean, sdk):
            http = create_mcp_http_client(headers={"authorization": f"Bearer {token}"})
            with anyio.fail_after(WAIT_S):
                async with Client(streamable_http_client(url, http_client=http)) as session:
                    assert session.protocol_version == MODERN
                    answer = await session.call_tool("routed", {"region": "eu-west"})
                    assert not answer.is_error
                    assert "ran in eu-west" in answer.content[0].text  # type: ignore[union-attr]


async def test_credentials_are_never_reflected_nor_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with servers(monkeypatch) as (lean, sdk, store), httpx.AsyncClient() as http:
        issued = await store.create("alpha", Grant.of(toolsets=["alpha"]))
        wrong = issued.token[:-6] + "AAAAAA"
        revoked = await store.create("gone", Grant.of(toolsets=["alpha"]))
        await store.revoke("gone")
        secrets = [issued.token, wrong, revoked.token, "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"]
        for credential in secrets:
            body, headers = modern("whoami", {}, credential)
            for answer in await both(http, (lean, sdk), body, headers):
                assert answer.status_code in (200, 401)
                assert credential not in answer.text
                assert credential not in str(answer.headers)
            body, headers = modern("routed", {"region": "eu"}, credential)
            headers["mcp-param-region"] = "us"
            for answer in await both(http, (lean, sdk), body, headers):
                assert credential not in answer.text
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for credential in secrets:
        assert credential not in logged


async def test_duplicate_authorization_headers_are_a_bad_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two ``Authorization`` headers (a proxy appending its own, a client smuggling one) are
    refused (RFC 6750 ``invalid_request``, 400) instead of trusting whichever comes first."""
    async with servers(monkeypatch) as (lean, sdk, store), httpx.AsyncClient() as http:
        strong = (await store.create("admin", Grant.of(toolsets=["*"]))).token
        weak = (await store.create("alpha", Grant.of(toolsets=["alpha"]))).token
        body, headers = modern("whoami", {}, weak)
        doubled = [*headers.items(), ("authorization", f"Bearer {strong}")]
        for answer in await both(http, (lean, sdk), body, doubled):
            assert answer.status_code == 400
            assert 'error="invalid_request"' in answer.headers["www-authenticate"]
            assert strong not in answer.text
            assert weak not in answer.text


async def test_a_token_in_the_url_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """RFC 6750 §2.3 / OAuth 2.1: access tokens in the query string end up in access logs and
    proxies' histories, so ``?access_token=`` is refused even beside a good header."""
    async with servers(monkeypatch) as (lean, sdk, store), httpx.AsyncClient() as http:
        token = (await store.create("alpha", Grant.of(toolsets=["alpha"]))).token
        body, headers = modern("whoami", {}, token)
        for url in (lean, sdk):
            answer = await http.post(f"{url}?access_token={token}", json=body, headers=headers)
            assert answer.status_code == 400
            assert "Authorization header" in answer.json()["error_description"]
            assert token not in answer.text
            del_headers = {k: v for k, v in headers.items() if k != "authorization"}
            alone = await http.post(f"{url}?access_token={token}", json=body, headers=del_headers)
            assert alone.status_code == 400


async def test_oversized_and_odd_credentials_get_a_401_not_a_500(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with servers(monkeypatch) as (lean, sdk, _), httpx.AsyncClient() as http:
        body, headers = modern("whoami", {}, "x")
        for credential in ("tw_" + "a" * 9000, "a" * 9000, "tw_!", "a.b.c", "Bearer x"):
            odd = {**headers, "authorization": f"Bearer {credential}"}
            for answer in await both(http, (lean, sdk), body, odd):
                assert answer.status_code == 401
                assert len(answer.headers["www-authenticate"]) < 400


def test_toolwire_tokens_in_tool_output_are_redacted() -> None:
    """A bearer token that turns up in a tool's output (a file, a log, ``env``) is redacted
    before the model reads it, like every other known secret format."""
    token = "tw_0123456789ab_" + "Ab-_" * 10 + "xyz"
    shown = redact_secrets(f"export TW={token}\nsee {token}.").text
    assert token not in shown
    assert "[REDACTED:toolwire-token]" in shown


async def test_websocket_connections_are_guarded_too() -> None:
    """`BearerGuard` around an app that takes WebSocket connections (an embedder mounting it
    elsewhere than ``/mcp``): no credential, or a bad one, is refused before the app runs; a
    good one reaches the app as its principal."""
    import uvicorn
    import websockets
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.websockets import WebSocket

    reached: list[str] = []

    async def echo(scope: Any, receive: Any, send: Any) -> None:
        socket = WebSocket(scope, receive, send)
        reached.append(scope["user"].access_token.client_id)
        await socket.accept()
        await socket.send_text("hello " + await socket.receive_text())
        await socket.close()

    async with create_kv_backend("memory://") as backend:
        auth = open_server_auth(AuthSettings(tokens=True, token_cache_s=0), backend)
        token = (await TokenStore(backend).create("ws", Grant.of(toolsets=["alpha"]))).token
        app = Starlette(routes=[Mount("/ws", app=auth.guard(echo))])
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        async with anyio.create_task_group() as group:
            group.start_soon(server.serve)
            with anyio.fail_after(WAIT_S):
                while not server.started:
                    await anyio.sleep(0.02)
            port = server.servers[0].sockets[0].getsockname()[1]
            url = f"ws://127.0.0.1:{port}/ws/"
            for headers in ({}, {"authorization": "Bearer tw_000000000000_" + "x" * 43}):
                with pytest.raises(websockets.InvalidStatus) as refused:
                    async with websockets.connect(url, additional_headers=headers):
                        pass
                assert refused.value.response.status_code == 403
            assert reached == []
            good = {"authorization": f"Bearer {token}"}
            async with websockets.connect(url, additional_headers=good) as connection:
                await connection.send("there")
                assert await connection.recv() == "hello there"
            assert reached == ["ws"]
            server.should_exit = True
        await auth.aclose()
