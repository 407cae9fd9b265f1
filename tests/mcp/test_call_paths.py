"""The same ``tools/call`` requests over the three server paths get the same JSON results.

`toolwire.mcp.server.tool_call` is the one description of ``tools/call``; the SDK handler
(`toolwire.mcp.server`), the HTTP fast path (`toolwire.mcp.server.fast_http`) and the stdio fast
path (`toolwire.mcp.server.fast_stdio`) keep only their transport's glue. Here one registry
(``servers/call_paths_server.py``) runs as real processes: over streamable HTTP with and without the
fast path (``TOOLWIRE_MCP_LEAN=0``) and over stdio with and without it; the same calls (ok,
validation error, failure, structured output, media, a kept result's handle, an unknown tool, a
deferred tool not found, approval required, a task) on a handshake-era revision and on 2026-07-28
must get identical results, ids and handles aside.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp_helpers import SERVERS, WAIT_S, HttpServer, start_http_server, stop

SERVER = SERVERS / "call_paths_server.py"
HANDSHAKE = "2025-11-25"  # the handshake revision with tasks
MODERN = "2026-07-28"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}

FAST_CALLS: list[tuple[str, dict[str, Any]]] = [  # what a fast path answers itself
    ("echo", {"text": "hi"}),
    ("add", {"a": 2, "b": 3}),
    ("add", {"a": "two", "b": 3}),  # a validation error
    ("add", {"a": 1}),  # a missing argument
    ("fail", {}),
    ("structured", {}),
    ("media", {}),
    ("wide", {}),  # its JSON is over the request's budget: no JSON text block, on every path
    ("big", {}),  # over the budget: kept, its handle in the text and a resource link
]
SDK_CALLS: list[tuple[str, dict[str, Any]]] = [  # what every path leaves to the SDK's handler
    ("nope", {}),  # an unknown tool
    ("hidden", {}),  # a deferred tool the session has not found
    ("guarded", {}),  # approval required, and this client cannot be asked
]
TASK_CALL = {"name": "build", "arguments": {}, "task": {"ttl": 60000}}  # handshake era only

_HANDLE = re.compile(r"h-[0-9a-f]{16}")
_TASK = re.compile(r"task-[0-9a-f]{24}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def _call(request_id: int, params: dict[str, Any], modern: bool) -> dict[str, Any]:
    if modern:
        params = {**params, "_meta": ENVELOPE}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _script(modern: bool) -> list[dict[str, Any]]:
    """The calls, those a fast path answers first (the stdio loop hands the rest of the
    connection to the SDK at the first one it does not answer)."""
    calls = [{"name": n, "arguments": a} for n, a in (*FAST_CALLS, *SDK_CALLS)]
    if not modern:
        calls.append(TASK_CALL)
    return [_call(10 + i, params, modern) for i, params in enumerate(calls)]


def _normalised(value: Any) -> Any:
    """``value`` with the handles, task ids and timestamps each server makes up replaced."""
    text = json.dumps(value, sort_keys=True)
    for pattern, stand_in in ((_HANDLE, "h-HANDLE"), (_TASK, "task-ID"), (_TIME, "TIME")):
        text = pattern.sub(stand_in, text)
    return json.loads(text)


# -- stdio ------------------------------------------------------------------------------------


class _Stdio:
    """The server over stdio, spoken to in raw JSON lines."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), "stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env={**os.environ, **env},
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self._lines.put(raw)
        self._lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        while True:
            raw = self._lines.get(timeout=WAIT_S)
            assert raw is not None, "the server exited"
            answer = json.loads(raw)
            if answer.get("id") == message["id"] and "method" not in answer:
                return answer

    def stop(self) -> None:
        stop(self.process)  # type: ignore[arg-type]


def _over_stdio(tmp_path: Path, lean: bool, modern: bool) -> tuple[list[Any], str]:
    """The answers to `_script` over stdio, and what ``sdk_loaded`` said after the calls a
    fast path answers (before any call the SDK must answer)."""
    kv = str(tmp_path / f"stdio-{lean}-{modern}.sqlite")
    wire = _Stdio(tmp_path, {"TOOLWIRE_MCP_LEAN": "1" if lean else "0", "TOOLWIRE_TEST_KV": kv})
    try:
        if not modern:
            hello = {
                "protocolVersion": HANDSHAKE,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            }
            wire.ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
            wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        script = _script(modern)
        answers = [wire.ask(m) for m in script[: len(FAST_CALLS)]]
        loaded = wire.ask(_call(99, {"name": "sdk_loaded", "arguments": {}}, modern))
        answers += [wire.ask(m) for m in script[len(FAST_CALLS) :]]
    finally:
        wire.stop()
    return answers, loaded["result"]["content"][0]["text"].split("\n")[1]  # inside the markers


# -- streamable HTTP --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[bool, HttpServer]]:
    """The server over HTTP with the fast path (``True``) and without it (``False``)."""
    started: dict[bool, HttpServer] = {}
    try:
        for lean in (True, False):
            folder = tmp_path_factory.mktemp(f"http-{lean}")
            env = {
                "TOOLWIRE_MCP_LEAN": "1" if lean else "0",
                "TOOLWIRE_TEST_KV": str(folder / "kv.sqlite"),
            }
            started[lean] = start_http_server(SERVER, folder, env)
        yield started
    finally:
        for server in started.values():
            stop(server.process)


def _message(answer: httpx.Response, request_id: int) -> dict[str, Any]:
    """The JSON-RPC answer to ``request_id`` in a JSON body or an SSE stream."""
    assert answer.status_code == 200, answer.text
    if not answer.headers.get("content-type", "").startswith("text/event-stream"):
        message: dict[str, Any] = answer.json()
        return message
    data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
    found = [json.loads(d) for d in data if d.strip()]
    return next(m for m in found if m.get("id") == request_id and "method" not in m)


def _over_http(url: str, modern: bool) -> tuple[list[Any], list[str]]:
    """The answers to `_script` over HTTP, and each answer's content type."""
    with httpx.Client(timeout=WAIT_S) as http:
        if modern:
            headers = {**ACCEPT, "mcp-protocol-version": MODERN}
        else:
            hello = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": HANDSHAKE,
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
            opened = http.post(url, json=hello, headers=ACCEPT)
            headers = {
                **ACCEPT,
                "mcp-session-id": opened.headers["mcp-session-id"],
                "mcp-protocol-version": HANDSHAKE,
            }
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert http.post(url, json=done, headers=headers).status_code == 202
        answers, kinds = [], []
        for message in _script(modern):
            sent = dict(headers)
            if modern:
                sent |= {"mcp-method": "tools/call", "mcp-name": message["params"]["name"]}
            answer = http.post(url, json=message, headers=sent)
            answers.append(_message(answer, message["id"]))
            kinds.append(answer.headers.get("content-type", ""))
    return answers, kinds


# -- the comparison ---------------------------------------------------------------------------


@pytest.mark.parametrize("modern", [False, True], ids=["handshake", "2026-07-28"])
def test_every_path_answers_every_call_alike(
    modern: bool, tmp_path: Path, http_servers: dict[bool, HttpServer]
) -> None:
    sdk_http, _ = _over_http(http_servers[False].url, modern)
    fast_http, kinds = _over_http(http_servers[True].url, modern)
    fast_stdio, loaded_fast = _over_stdio(tmp_path, lean=True, modern=modern)
    sdk_stdio, loaded_sdk = _over_stdio(tmp_path, lean=False, modern=modern)

    # The fast paths did answer the calls they take: the stdio loop without loading the SDK,
    # the HTTP one with a single JSON body where the SDK opens an event stream for a session.
    assert loaded_fast == "False"
    assert loaded_sdk == "True"
    if not modern:
        assert all(k.startswith("application/json") for k in kinds[: len(FAST_CALLS)])
    expected = _normalised(sdk_http)
    assert _normalised(fast_http) == expected
    assert _normalised(fast_stdio) == expected
    assert _normalised(sdk_stdio) == expected


@pytest.mark.parametrize("modern", [False, True], ids=["handshake", "2026-07-28"])
def test_the_results_are_the_expected_kinds(
    modern: bool, http_servers: dict[bool, HttpServer]
) -> None:
    """What the shared description answers for each call (so the comparison above compares
    results, not errors that would match anyway)."""
    answers, _ = _over_http(http_servers[True].url, modern)
    results = {m["id"]: m["result"] for m in answers}
    first = 10
    echo, added, invalid, missing, failed, structured, media, wide, big = (
        results[first + i] for i in range(len(FAST_CALLS))
    )
    unknown, hidden, guarded = (results[first + len(FAST_CALLS) + i] for i in range(3))
    assert "hi" in echo["content"][0]["text"]
    assert echo["isError"] is False
    assert "5" in added["content"][0]["text"]
    assert invalid["isError"] is True
    assert missing["isError"] is True
    assert failed["isError"] is True
    assert "the build broke" in failed["content"][0]["text"]
    assert structured["structuredContent"] == {"count": 2, "items": ["a", "b"]}
    assert [block["type"] for block in media["content"]] == ["text", "image", "audio"]
    assert [block["type"] for block in wide["content"]] == ["text"]
    assert big["content"][-1]["type"] == "resource_link"
    assert _HANDLE.search(big["content"][0]["text"]) is not None
    assert unknown["isError"] is True
    assert hidden["isError"] is True
    assert "approval" in guarded["content"][0]["text"]
    assert guarded["isError"] is True
    assert ("resultType" in echo) is modern
    if not modern:
        task = results[first + len(FAST_CALLS) + len(SDK_CALLS)]
        assert _TASK.fullmatch(task["task"]["taskId"]) is not None


# -- what building a server returns ------------------------------------------------------------


def test_building_a_server_returns_what_the_paths_share() -> None:
    from mcp.server import Server

    from toolwire import ToolRegistry, define_tool, ok
    from toolwire.mcp import build_mcp_server, create_mcp_server

    async def echo(args: dict[str, Any], ctx: Any) -> Any:
        return ok("hi")

    registry = ToolRegistry()
    registry.register(define_tool(name="echo", description="E.", schema={}, execute=echo))
    built = build_mcp_server(registry)
    assert isinstance(built.sdk, Server)
    assert built.calls.registry is registry
    assert built.calls.fast_path_tool("echo") is registry.get("echo")
    assert built.as_mcp(registry.get("echo")).name == "echo"  # type: ignore[arg-type]
    assert isinstance(create_mcp_server(registry), Server)  # the old call, unchanged
