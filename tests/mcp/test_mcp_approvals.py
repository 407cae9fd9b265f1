"""Approvals over MCP, driven by the SDK's client over stdio and streamable HTTP: the server asks
the user through elicitation (the 2026-07-28 input-required flow, or an ``elicitation/create``
request on an initialize-handshake connection), runs an approved call once, and refuses clearly
when the user declines or the client cannot ask."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as mt
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_helpers import SERVERS, HttpServer, start_http_server, stop

pytestmark = pytest.mark.anyio

HANDLES_SERVER = SERVERS / "handles_server.py"
TIMEOUT_S = 15.0
MODES = [
    pytest.param("stdio", "auto", id="stdio"),
    pytest.param("http", "auto", id="http"),
    pytest.param("stdio", "legacy", id="stdio-legacy"),
    pytest.param("http", "legacy", id="http-legacy"),
]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, markers: Path) -> dict[str, str]:
    kv = tmp_path_factory.mktemp("kv") / "kv.db"
    return {"TOOLWIRE_TEST_KV": str(kv), "TOOLWIRE_TEST_MARKERS": str(markers)}


@pytest.fixture(scope="module")
def approvals_http(
    tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]
) -> Iterator[HttpServer]:
    server = start_http_server(HANDLES_SERVER, tmp_path_factory.mktemp("http"), env)
    yield server
    stop(server.process)


class User:
    """An elicitation callback that answers as told and remembers what it was asked."""

    def __init__(self, action: str = "accept", approve: bool = True) -> None:
        self.action = action
        self.approve = approve
        self.asked: list[str] = []

    async def __call__(self, context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        self.asked.append(params.message)
        content = {"approve": self.approve} if self.action == "accept" else None
        return mt.ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


@asynccontextmanager
async def _client(
    transport: str, mode: str, env: dict[str, str], request: pytest.FixtureRequest, user: Any
) -> AsyncIterator[Client]:
    if transport == "stdio":
        target: Any = StdioServerParameters(
            command=sys.executable, args=[str(HANDLES_SERVER), "stdio"], env=env
        )
    else:
        target = request.getfixturevalue("approvals_http").url
    with anyio.fail_after(TIMEOUT_S * 2):
        async with Client(
            target, read_timeout_seconds=TIMEOUT_S, mode=mode, elicitation_callback=user
        ) as connected:
            yield connected


def _text(result: mt.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mt.TextContent))


def _deploys(markers: Path, target: str) -> int:
    path = markers / "deploys"
    return path.read_text().splitlines().count(target) if path.exists() else 0


@pytest.mark.parametrize(("transport", "mode"), MODES)
async def test_an_approved_call_runs_once(
    transport: str, mode: str, env: dict[str, str], markers: Path, request: pytest.FixtureRequest
) -> None:
    user = User()
    target = f"prod-{uuid.uuid4().hex[:8]}"
    async with _client(transport, mode, env, request, user) as client:
        result = await client.call_tool("deploy", {"env": target})
    assert result.is_error is False, _text(result)
    assert f"\ndeployed to {target}\n" in _text(result)
    assert _deploys(markers, target) == 1
    assert len(user.asked) == 1
    assert "deploy" in user.asked[0]
    assert target in user.asked[0]


@pytest.mark.parametrize(("transport", "mode"), MODES)
@pytest.mark.parametrize(("action", "approve"), [("decline", True), ("accept", False)])
async def test_a_declined_call_is_refused_and_never_runs(
    transport: str,
    mode: str,
    action: str,
    approve: bool,
    env: dict[str, str],
    markers: Path,
    request: pytest.FixtureRequest,
) -> None:
    target = f"prod-{uuid.uuid4().hex[:8]}"
    async with _client(transport, mode, env, request, User(action, approve)) as client:
        result = await client.call_tool("deploy", {"env": target})
    assert result.is_error is True
    assert "did not approve" in _text(result)
    assert _deploys(markers, target) == 0


@pytest.mark.parametrize(("transport", "mode"), MODES)
async def test_a_client_that_cannot_ask_is_refused_clearly(
    transport: str, mode: str, env: dict[str, str], markers: Path, request: pytest.FixtureRequest
) -> None:
    target = f"prod-{uuid.uuid4().hex[:8]}"
    async with _client(transport, mode, env, request, None) as client:
        result = await client.call_tool("deploy", {"env": target})
    assert result.is_error is True
    assert "cannot ask" in _text(result)
    assert "approval token" not in _text(result)
    assert _deploys(markers, target) == 0


async def test_calls_that_need_no_approval_ask_nothing(
    env: dict[str, str], request: pytest.FixtureRequest
) -> None:
    user = User()
    async with _client("stdio", "auto", env, request, user) as client:
        result = await client.call_tool("read_result", {"handle": "h-0000000000000000"})
    assert result.is_error is True
    assert user.asked == []
