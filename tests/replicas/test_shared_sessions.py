"""Handshake-era sessions across two replicas on one store: opened on one, served by the other,
ended everywhere by a DELETE anywhere (SQLite file, Redis, PostgreSQL)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import httpx
import pytest
from stores import STORES, shared_store_url, unique
from two_replicas import call, initialize, rpc, two_replicas

from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.tokens import TokenStore

pytestmark = pytest.mark.anyio


def _result(messages: list[dict[str, object]]) -> dict[str, object]:
    answers = [m for m in messages if "result" in m]
    assert len(answers) == 1, messages
    result = answers[0]["result"]
    assert isinstance(result, dict)
    return result


def _text(messages: list[dict[str, object]]) -> str:
    content = _result(messages)["content"]
    assert isinstance(content, list)
    return str(content[0]["text"])


def _logged(messages: list[dict[str, object]]) -> list[str]:
    return [
        str(m["params"]["data"])  # type: ignore[index]
        for m in messages
        if m.get("method") == "notifications/message"
    ]


@pytest.mark.parametrize("kind", STORES)
async def test_a_session_opened_on_one_replica_is_served_and_ended_by_the_other(
    kind: str, tmp_path: Path
) -> None:
    url = shared_store_url(kind, tmp_path)
    async with (
        two_replicas(url, tmp_path, unique("c")) as (a, b),
        httpx.AsyncClient(timeout=20) as http,
    ):
        session = await initialize(http, a.url, client="the-client")
        status, messages = await call(http, b.url, session, "shout", {})
        assert status == 200
        assert "shouted for the-client" in _text(messages)  # its initialize, restored on b
        assert _logged(messages) == ["an info line", "an error line"]
        assert b.state.replica_id != a.state.replica_id

        set_level = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "logging/setLevel",
            "params": {"level": "error"},
        }
        status, _ = await rpc(http, a.url, session, set_level)
        assert status == 200
        for replica in (b, a):  # chosen through a, obeyed by both
            status, messages = await call(http, replica.url, session, "shout", {})
            assert _logged(messages) == ["an error line"], (replica.url, messages)

        status, _ = await rpc(http, b.url, session, {}, method="DELETE")
        assert status == 200
        listing = {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}
        assert (await rpc(http, a.url, session, listing))[0] == 404  # gone on a too
        assert (await rpc(http, b.url, session, listing))[0] == 404
        assert await a.state.sessions.load(session) is None


async def test_an_unknown_session_is_not_found_on_any_replica(tmp_path: Path) -> None:
    url = shared_store_url("sqlite", tmp_path)
    async with (
        two_replicas(url, tmp_path, unique("c")) as (a, b),
        httpx.AsyncClient(timeout=20) as http,
    ):
        listing = {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}
        for replica in (a, b):
            assert (await rpc(http, replica.url, "0" * 32, listing))[0] == 404


@pytest.mark.parametrize("kind", STORES)
async def test_a_stale_write_is_caught_across_replicas(kind: str, tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    target = root / "notes.txt"
    target.write_text("first\n")
    url = shared_store_url(kind, tmp_path)
    async with (
        two_replicas(url, root, unique("c")) as (a, b),
        httpx.AsyncClient(timeout=20) as http,
    ):
        session = await initialize(http, a.url)
        status, messages = await call(http, a.url, session, "read_file", {"path": str(target)})
        assert "first" in _text(messages)
        target.write_text("changed behind the model's back\n")
        stamp = target.stat().st_mtime + 5
        os.utime(target, (stamp, stamp))
        status, messages = await call(
            http, b.url, session, "write_file", {"path": str(target), "content": "mine\n"}
        )
        assert _result(messages)["isError"] is True
        assert "STALE_WRITE" in _text(messages)
        assert target.read_text() == "changed behind the model's back\n"  # nothing written

        status, _ = await call(http, b.url, session, "read_file", {"path": str(target)})
        assert status == 200
        status, messages = await call(
            http, a.url, session, "write_file", {"path": str(target), "content": "mine\n"}
        )
        assert _result(messages)["isError"] is False, _text(messages)  # re-read on b: a may write
        assert target.read_text() == "mine\n"


async def test_idle_expiry_is_kept_on_the_store_for_every_replica(tmp_path: Path) -> None:
    url = shared_store_url("sqlite", tmp_path)
    listing = {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}
    async with (
        two_replicas(url, tmp_path, unique("c"), session_idle_timeout_s=1.0) as (a, b),
        httpx.AsyncClient(timeout=20) as http,
    ):
        busy = await initialize(http, a.url)
        idle = await initialize(http, a.url)
        with anyio.fail_after(15):  # used on b only, for longer than a's idle timeout
            for _ in range(16):
                assert (await rpc(http, b.url, busy, listing))[0] == 200
                await anyio.sleep(0.15)
        assert (await rpc(http, a.url, busy, listing))[0] == 200  # alive: b kept it fresh
        assert (await rpc(http, b.url, idle, listing))[0] == 404  # idle 2 s: gone everywhere
        assert (await rpc(http, a.url, idle, listing))[0] == 404


async def _stateless_call(
    http: httpx.AsyncClient, url: str, name: str, arguments: dict[str, object]
) -> str:
    """A 2026-07-28 ``tools/call`` (no session); the text of its result."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    message = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": meta},
    }
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": name,
    }
    answer = await http.post(url, json=message, headers=headers)
    assert answer.status_code == 200, answer.text
    return _text([answer.json()])


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
async def test_a_stateless_client_is_one_session_on_every_replica(
    kind: str, tmp_path: Path
) -> None:
    root = tmp_path / "work"
    root.mkdir()
    target = root / "plan.md"
    target.write_text("v1\n")
    url = shared_store_url(kind, tmp_path)
    async with (
        two_replicas(url, root, unique("c")) as (a, b),
        httpx.AsyncClient(timeout=20) as http,
    ):
        assert "v1" in await _stateless_call(http, a.url, "read_file", {"path": str(target)})
        target.write_text("v2 from someone else\n")
        stamp = target.stat().st_mtime + 5
        os.utime(target, (stamp, stamp))
        answer = await _stateless_call(
            http, b.url, "write_file", {"path": str(target), "content": "mine\n"}
        )
        assert "STALE_WRITE" in answer
        assert target.read_text() == "v2 from someone else\n"


async def test_a_session_answers_only_the_credential_that_opened_it_on_any_replica(
    tmp_path: Path,
) -> None:
    url = shared_store_url("sqlite", tmp_path)
    async with (
        two_replicas(url, tmp_path, unique("c"), tokens=True) as (a, b),
        httpx.AsyncClient(timeout=20) as http,
    ):
        tokens = TokenStore(a.state.backend)  # what `toolwire token create` writes
        alice = (await tokens.create("alice", Grant.of(toolsets=["*"]))).token
        bob = (await tokens.create("bob", Grant.of(toolsets=["*"]))).token
        session = await initialize(http, a.url, bearer=alice)
        listing = {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}
        assert (await rpc(http, b.url, session, listing, bearer=alice))[0] == 200
        for replica in (a, b):  # as if the session did not exist
            assert (await rpc(http, replica.url, session, listing, bearer=bob))[0] == 404
        assert (await rpc(http, b.url, session, listing, bearer=alice))[0] == 200
