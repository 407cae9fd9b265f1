"""The fast path's ASGI plumbing (`toolwire.mcp.server.fast_http.LeanPath`): reading a request's
headers and body, replaying what was read to the SDK, holding a session open while its call runs,
watching for the client hanging up, and sending answers in the SDK's shapes."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

import anyio
from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS

from toolwire.mcp.server.fast_http._envelope import SESSION_HEADER, LeanRequest
from toolwire.mcp.server.hangups import CLIENT_GONE
from toolwire.mcp.server.wire_json import dumps

if TYPE_CHECKING:
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from starlette.types import Message, Receive, Scope, Send

    from toolwire.context import AbortSignal

__all__ = [
    "CONTENT_TYPE",
    "DisconnectWatch",
    "answer_head",
    "holding_session",
    "read_body",
    "replayed",
    "request_headers",
    "respond_error",
    "send_body",
]

CONTENT_TYPE: Final = (b"content-type", b"application/json")


def request_headers(scope: Scope) -> dict[str, str] | None:
    """The request's headers (ASGI names are lower-case); ``None`` when one is repeated (the
    SDK decides which copy counts, or refuses)."""
    headers: dict[str, str] = {}
    for name, value in scope["headers"]:
        key = name.decode("latin-1")
        if key in headers:
            return None
        headers[key] = value.decode("latin-1")
    return headers


async def read_body(
    receive: Receive, limit: int, headers: dict[str, str] | None
) -> tuple[bytes, list[Message], bool]:
    """The request body, the messages read (replayed to the SDK if it answers), and whether
    the body is whole. Reading stops at a disconnect, and past ``limit`` bytes (the SDK then
    refuses the request)."""
    declared = headers.get("content-length", "") if headers is not None else ""
    if declared.isdigit() and int(declared) > limit:
        return b"", [], False
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            body = b"".join(chunks)
            cut: Message = {"type": "http.request", "body": body, "more_body": True}
            return body, [cut, message], False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = message.get("more_body", False)
        if not more or size > limit:
            body = b"".join(chunks)
            read: Message = {"type": "http.request", "body": body, "more_body": more}
            return body, [read], not more and size <= limit


class DisconnectWatch:
    """Aborts a fast-path call's ``signal`` when its client disconnects, from the loop turn
    after the call started: a call that waits on anything is watched by one pending
    ``receive``, and one that finishes in its first turn (most plain calls) costs no task.

    Once the answer is out, ``receive`` returns ``http.disconnect`` and the watching task ends
    by itself (`settle`), so it is cancelled only when the call fails (`stop`): a cancelled
    task costs an exception's cycle."""

    __slots__ = ("_receive", "_signal", "_start", "_task")

    def __init__(self, receive: Receive, signal: AbortSignal) -> None:
        self._receive = receive
        self._signal = signal
        self._task: asyncio.Task[None] | None = None
        self._start = asyncio.get_running_loop().call_soon(self._begin)

    def _begin(self) -> None:
        self._task = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        message = await self._receive()
        if message["type"] == "http.disconnect":
            self._signal.abort(CLIENT_GONE)

    def settle(self) -> None:
        """The call answered: a watch not started yet never starts; a started one ends when
        the answer is out."""
        self._start.cancel()

    def stop(self) -> None:
        """The call failed: stop watching now."""
        self._start.cancel()
        if self._task is not None:
            self._task.cancel()


def replayed(pending: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives the messages already read once, then the client's own."""
    queue = list(reversed(pending))

    async def replay() -> Message:
        if queue:
            return queue.pop()
        return await receive()

    return replay


@contextmanager
def holding_session(transport: StreamableHTTPServerTransport | None) -> Iterator[None]:
    """Hold a session open while its call runs, as the SDK does for its own requests (its
    idle countdown is suspended and restarts when the last request completes)."""
    scope = transport.idle_scope if transport is not None else None
    timeout = transport._idle_timeout if transport is not None else None
    if transport is None or scope is None or timeout is None or scope.cancel_called:
        yield
        return
    transport._requests_in_flight += 1
    scope.deadline = math.inf
    try:
        yield
    finally:
        transport._requests_in_flight -= 1
        if not transport._requests_in_flight:
            scope.deadline = anyio.current_time() + timeout


async def respond_error(send: Send, lean: LeanRequest, code: int, message: str) -> None:
    status = 200 if lean.session is not None else ERROR_CODE_HTTP_STATUS.get(code, 200)
    if lean.session is not None:
        await send(
            {"type": "http.response.start", "status": 200, "headers": answer_head(lean.session)}
        )
    error = {"code": code, "message": message}
    payload = {"jsonrpc": "2.0", "id": lean.request_id, "error": error}
    await send_body(send, lean, status, dumps(payload))


async def send_body(send: Send, lean: LeanRequest, status: int, body: bytes) -> None:
    """Send the answer (a handshake-era call's head is already sent: only its body)."""
    if lean.session is None:
        headers = [CONTENT_TYPE, (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def answer_head(session: str) -> list[tuple[bytes, bytes]]:
    """The head of a handshake-era answer, sent before the call runs so a client can hang up
    on it (closing the response aborts the call)."""
    return [CONTENT_TYPE, (SESSION_HEADER.encode(), session.encode("latin-1"))]
