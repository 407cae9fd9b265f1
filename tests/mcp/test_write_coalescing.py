"""One socket write per answer (`toolwire.mcp.server.fast_http.coalesce`).

The wrapper is checked on real loopback connections (what leaves, in what order, and when),
through a recording layer over the real transport that counts the writes reaching it; then
uvicorn with `CoalescingHttpToolsProtocol` and `serve_http` itself: pipelined answers in order,
a streamed answer's head before its body exists, an early ``Connection: close`` answer, and a
fast-path answer arriving whole in one segment.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_helpers import WAIT_S

from toolwire.mcp.server.fast_http._coalesce_protocol import CoalescingHttpToolsProtocol
from toolwire.mcp.server.fast_http.coalesce import COALESCE_ENV, CoalescingTransport
from toolwire.mcp.server.serving import http_protocol

pytestmark = pytest.mark.anyio


class _Recording(asyncio.Protocol):
    """The far end of a loopback connection: every byte it receives, and its EOF."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.eof = asyncio.Event()
        self.grew = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        self.data += data
        self.grew.set()

    def eof_received(self) -> None:
        self.eof.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof.set()

    async def until(self, size: int) -> bytes:
        while len(self.data) < size:
            self.grew.clear()
            await asyncio.wait_for(self.grew.wait(), WAIT_S)
        return bytes(self.data)


class _Counted(asyncio.Transport):
    """The real transport, with the buffers written to it kept (what the wrapper hands on)."""

    def __init__(self, real: asyncio.Transport) -> None:
        super().__init__()
        self.real = real
        self.writes: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))
        self.real.write(data)

    def close(self) -> None:
        self.real.close()

    def abort(self) -> None:
        self.real.abort()

    def is_closing(self) -> bool:
        return self.real.is_closing()

    def get_write_buffer_size(self) -> int:
        return self.real.get_write_buffer_size()

    def write_eof(self) -> None:
        self.real.write_eof()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.real.get_extra_info(name, default)


@asynccontextmanager
async def _link() -> AsyncIterator[tuple[CoalescingTransport, _Counted, _Recording]]:
    """A loopback TCP connection: the wrapper over our end, and the far end's recorder."""
    loop = asyncio.get_running_loop()
    far = _Recording()
    accepted: asyncio.Future[None] = loop.create_future()

    def far_end() -> _Recording:
        accepted.set_result(None)
        return far

    server = await loop.create_server(far_end, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    real, _ = await loop.create_connection(asyncio.Protocol, "127.0.0.1", port)
    await asyncio.wait_for(accepted, WAIT_S)
    counted = _Counted(real)
    try:
        yield CoalescingTransport(counted, loop), counted, far
    finally:
        real.close()
        server.close()
        await server.wait_closed()


async def test_writes_of_one_turn_leave_as_one_buffer_in_order() -> None:
    async with _link() as (wrapped, counted, far):
        wrapped.write(b"HTTP/1.1 200 OK\r\n")
        wrapped.writelines([b"content-length: 2\r\n\r\n", b"", b"ok"])
        assert counted.writes == []  # nothing leaves before the turn ends
        whole = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"
        assert await far.until(len(whole)) == whole
        assert counted.writes == [whole]


async def test_a_part_sent_alone_leaves_by_the_next_turn() -> None:
    async with _link() as (wrapped, counted, far):
        wrapped.write(b"head")
        await asyncio.sleep(0)  # the flush was scheduled before this task resumes
        assert counted.writes == [b"head"]
        wrapped.write(b"event 1")
        await asyncio.sleep(0)
        assert counted.writes == [b"head", b"event 1"]
        assert await far.until(11) == b"headevent 1"


async def test_close_and_write_eof_send_what_is_kept_first() -> None:
    async with _link() as (wrapped, counted, far):
        wrapped.write(b"bye")
        wrapped.write_eof()
        assert counted.writes == [b"bye"]
        await asyncio.wait_for(far.eof.wait(), WAIT_S)
        assert bytes(far.data) == b"bye"
    async with _link() as (wrapped, counted, far):
        wrapped.write(b"400 then close")
        wrapped.close()
        await asyncio.wait_for(far.eof.wait(), WAIT_S)
        assert bytes(far.data) == b"400 then close"
        assert wrapped.is_closing()


async def test_the_buffer_size_counts_what_is_kept() -> None:
    async with _link() as (wrapped, counted, _):
        wrapped.write(b"x" * 10)
        wrapped.get_write_buffer_size()
        assert counted.writes == [b"x" * 10]


async def test_abort_drops_what_is_kept_and_writes_after_close_go_nowhere() -> None:
    async with _link() as (wrapped, counted, far):
        wrapped.write(b"never")
        wrapped.abort()
        await asyncio.wait_for(far.eof.wait(), WAIT_S)
        assert counted.writes == []
        wrapped.write(b"late")  # a response finishing after the client left
        await asyncio.sleep(0)
        assert counted.writes == []
        assert bytes(far.data) == b""


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(turns=st.lists(st.lists(st.binary(max_size=64), max_size=4), min_size=1, max_size=6))
async def test_any_writes_arrive_whole_and_in_order_one_buffer_per_turn(
    turns: list[list[bytes]],
) -> None:
    async with _link() as (wrapped, counted, far):
        for parts in turns:
            for part in parts:
                wrapped.write(part)
            await asyncio.sleep(0)
        expected = b"".join(b"".join(parts) for parts in turns)
        assert await far.until(len(expected)) == expected
        assert counted.writes == [b"".join(parts) for parts in turns if b"".join(parts)]


# -- uvicorn with the coalescing protocol ----------------------------------------------------


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """``/stream``: the head, then a body part only once the test released it; anything else:
    the path back, in one head and one body."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    if scope["path"] == "/stream":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await _released.wait()
        await send({"type": "http.response.body", "body": b"late part"})
        return
    body = scope["path"].encode()
    headers = [(b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


_released = asyncio.Event()


@asynccontextmanager
async def _uvicorn() -> AsyncIterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        _app, http=CoalescingHttpToolsProtocol, lifespan="off", log_level="warning"
    )
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, WAIT_S)
        sock.close()


async def _read_until(reader: asyncio.StreamReader, marker: bytes) -> bytes:
    return await asyncio.wait_for(reader.readuntil(marker), WAIT_S)


async def test_pipelined_answers_come_back_in_order() -> None:
    async with _uvicorn() as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"".join(b"GET /%d HTTP/1.1\r\nhost: x\r\n\r\n" % i for i in range(5)))
        seen = []
        for _ in range(5):
            head = await _read_until(reader, b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            seen.append(await reader.readexactly(length))
        assert seen == [b"/0", b"/1", b"/2", b"/3", b"/4"]
        writer.close()


async def test_a_streamed_answers_head_arrives_before_its_body_exists() -> None:
    _released.clear()
    async with _uvicorn() as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /stream HTTP/1.1\r\nhost: x\r\n\r\n")
        head = await _read_until(reader, b"\r\n\r\n")  # the app is still waiting
        assert head.startswith(b"HTTP/1.1 200 OK\r\n")
        assert b"transfer-encoding: chunked" in head.lower()
        _released.set()
        assert await _read_until(reader, b"0\r\n\r\n") == b"9\r\nlate part\r\n0\r\n\r\n"
        writer.close()


async def test_a_bad_request_is_answered_before_the_connection_closes() -> None:
    async with _uvicorn() as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"NOT HTTP AT ALL\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(), WAIT_S)  # to EOF
        assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n")
        writer.close()


# -- serve_http ------------------------------------------------------------------------------


def test_the_protocol_follows_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(COALESCE_ENV, raising=False)
    assert http_protocol() is CoalescingHttpToolsProtocol
    monkeypatch.setenv(COALESCE_ENV, "0")
    assert http_protocol() == "auto"


_SERVER = """
import anyio

from toolwire import ToolRegistry, tool
from toolwire.mcp import ServeOptions, serve_http


@tool
async def add(a: int, b: int) -> str:
    \"\"\"Add two integers.\"\"\"
    return str(a + b)


registry = ToolRegistry()
registry.register(add)


def ready(url: str) -> None:
    print(url, flush=True)


anyio.run(lambda: serve_http(registry, ServeOptions(), port=0, on_ready=ready))
"""


def test_a_fast_path_answer_arrives_whole_in_one_segment(tmp_path: Path) -> None:
    """In a server process of its own: in-process, the test's reads would only run once the
    server's turn (both writes) is over."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    call = {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    env = {**os.environ, COALESCE_ENV: "1"}  # with "0" (two writes) this test fails
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().rsplit(":", 1)[1].split("/")[0])
        request = (
            f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
            "accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n"
            f"mcp-method: tools/call\r\nmcp-name: add\r\ncontent-length: {len(body)}\r\n\r\n"
            f"{body}"
        ).encode()
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as client:
            for _ in range(20):  # with two writes the first read usually holds the head only
                client.sendall(request)
                first = client.recv(65536)
                head, _, rest = first.partition(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                assert len(rest) == length, first
                answer = json.loads(rest)
                assert answer["result"]["isError"] is False
                assert "5" in answer["result"]["content"][0]["text"]
    finally:
        server.terminate()
        server.wait(WAIT_S)
