"""A request body nested too deeply is a parse error (``-32700``), never a crash.

Issue 21: a body of 1,200 nested arrays made `orjson` give up and the `json` fallback raise
`RecursionError`, so the HTTP fast path answered 500 with a traceback. Bodies are sent to a
real `serve_http` on 127.0.0.1, with and without the fast path, on both protocol generations;
each must be answered as the SDK answers any malformed body (400, ``-32700``), nothing may be
logged at error level, and the next ordinary call must be answered. Over stdio the SDK drops a
line that is not JSON; a deep one is dropped the same way, without a traceback, and serving
goes on.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest
from mcp_helpers import SERVERS, WAIT_S

from toolwire import ToolRegistry, tool
from toolwire.mcp import ServeOptions, serve_http
from toolwire.mcp.server import wire_json
from toolwire.mcp.server.fast_http import LEAN_ENV
from toolwire.mcp.server.fast_stdio._messages import read_message
from toolwire.mcp.server.json_depth import MAX_DEPTH, too_deep

MODERN = "2026-07-28"
LEGACY = "2025-06-18"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
DEPTHS = (1_200, 100_000)


def _deep_bodies() -> list[tuple[str, bytes]]:
    bodies = []
    for depth in DEPTHS:
        bodies.append((f"array-{depth}", b"[" * depth + b"]" * depth))
        bodies.append((f"object-{depth}", b'{"a":' * depth + b"1" + b"}" * depth))
        nested = b"[" * depth + b"]" * depth
        call = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add",'
        bodies.append((f"argument-{depth}", call + b'"arguments":{"a":' + nested + b"}}}"))
    return bodies


BODIES = _deep_bodies()


def _registry() -> ToolRegistry:
    @tool
    async def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    registry = ToolRegistry()
    registry.register(add)
    return registry


@asynccontextmanager
async def _server(lean: bool, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    monkeypatch.setenv(LEAN_ENV, "1" if lean else "0")
    urls: list[str] = []
    ready = anyio.Event()

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    async with anyio.create_task_group() as group:
        group.start_soon(lambda: serve_http(_registry(), ServeOptions(), port=0, on_ready=on_ready))
        with anyio.fail_after(WAIT_S):
            await ready.wait()
        yield urls[0]
        group.cancel_scope.cancel()


def _modern_headers() -> dict[str, str]:
    return {**ACCEPT, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "add"}


def _modern_call(rid: int) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


async def _session_headers(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "deep", "version": "1"},
        },
    }
    answer = await http.post(url, json=hello, headers=ACCEPT)
    headers = {
        **ACCEPT,
        "mcp-session-id": answer.headers["mcp-session-id"],
        "mcp-protocol-version": LEGACY,
    }
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=done, headers=headers)).status_code == 202
    return headers


def _message(answer: httpx.Response) -> Any:
    """The JSON-RPC message of a JSON answer or of a one-message SSE stream."""
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
        return [json.loads(d) for d in data if d.strip()][-1]
    return answer.json()


def _errors_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.anyio
@pytest.mark.parametrize("lean", [True, False], ids=["fast-path", "sdk-path"])
async def test_a_deep_body_is_a_parse_error_and_serving_goes_on(
    lean: bool, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with _server(lean, monkeypatch) as url, httpx.AsyncClient(timeout=WAIT_S) as http:
        session = await _session_headers(http, url)
        for rid, (name, body) in enumerate(BODIES, start=10):
            for generation, headers in (("modern", _modern_headers()), ("session", session)):
                answer = await http.post(url, content=body, headers=headers)
                assert answer.status_code == 400, (name, generation, answer.text[:200])
                assert answer.json()["error"]["code"] == -32700, (name, generation)
                assert answer.json()["id"] is None
            following = await http.post(url, json=_modern_call(rid), headers=_modern_headers())
            assert following.status_code == 200, (name, following.text[:200])
            assert "5" in _message(following)["result"]["content"][0]["text"]
            legacy = {**_modern_call(rid), "params": {"name": "add", "arguments": {"a": 1, "b": 1}}}
            in_session = _message(await http.post(url, json=legacy, headers=session))
            assert "2" in in_session["result"]["content"][0]["text"]
    assert _errors_logged(caplog) == []


@pytest.mark.anyio
@pytest.mark.parametrize("depth", [150, 1_000])
async def test_a_body_deeper_than_the_sdk_reads_is_answered_as_the_sdk_answers_it(
    depth: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the SDK parser's limit (200) and orjson's (1,024), the fast path once answered
    what the SDK refuses; whatever it hands over now, both paths answer alike."""
    raw = json.dumps(_modern_call(3)).encode()
    raw = raw.replace(b'"a": 2', b'"a": ' + b"[" * depth + b"2" + b"]" * depth)
    async with (
        _server(True, monkeypatch) as fast,
        _server(False, monkeypatch) as slow,
        httpx.AsyncClient(timeout=WAIT_S) as http,
    ):
        answers = [
            await http.post(url, content=raw, headers=_modern_headers()) for url in (fast, slow)
        ]
    assert answers[0].status_code == answers[1].status_code
    assert _message(answers[0]) == _message(answers[1])


def _stdio_exchange(lean: bool, deep: bytes, tmp: Path) -> tuple[list[dict[str, Any]], str]:
    """Handshake, ``deep``, then a call; the messages written back and what went to stderr."""
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "deep", "version": "1"},
        },
    }
    echo = {"name": "echo", "arguments": {"text": "still here"}}
    lines = [
        json.dumps(hello).encode(),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
        deep,
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": echo}).encode(),
    ]
    env = {
        **os.environ,
        LEAN_ENV: "1" if lean else "0",
        "TOOLWIRE_TEST_MARKERS": str(tmp),
        "TOOLWIRE_TEST_KV": str(tmp / "kv.sqlite"),
    }
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / "lean_server.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp,
        env=env,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(b"\n".join(lines) + b"\n")
    process.stdin.flush()
    seen: list[dict[str, Any]] = []
    while not any(m.get("id") == 2 for m in seen):
        raw = process.stdout.readline()
        assert raw, f"the server exited; it said {seen}"
        seen.append(json.loads(raw))
    _, stderr = process.communicate(timeout=WAIT_S)
    return seen, stderr.decode(errors="replace")


@pytest.mark.parametrize("lean", [True, False], ids=["fast-path", "sdk-path"])
@pytest.mark.parametrize(("name", "body"), BODIES, ids=[name for name, _ in BODIES])
def test_a_deep_line_on_stdio_is_dropped_without_a_traceback(
    lean: bool, name: str, body: bytes, tmp_path: Path
) -> None:
    seen, stderr = _stdio_exchange(lean, body, tmp_path)
    assert [m.get("id") for m in seen] == [1, 2]
    assert "still here" in seen[-1]["result"]["content"][0]["text"]
    assert "Traceback" not in stderr
    assert "RecursionError" not in stderr


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@pytest.mark.parametrize("depth", [1, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 1_023, 1_025])
@pytest.mark.parametrize("shape", ["array", "object"])
def test_the_fast_paths_read_up_to_max_depth_and_refuse_deeper(depth: int, shape: str) -> None:
    if shape == "array":
        raw = b"[" * depth + b"]" * depth
    else:
        raw = b'{"k":' * (depth - 1) + b"{}" + b"}" * (depth - 1)
    if depth <= MAX_DEPTH:
        assert _depth(wire_json.loads(raw)) == depth
    else:
        with pytest.raises(ValueError, match="nested"):
            wire_json.loads(raw)
    if depth < 1_024:  # what orjson reads
        assert too_deep(raw, orjson.loads(raw)) is (depth > MAX_DEPTH)
    assert read_message(raw.decode()) is None
