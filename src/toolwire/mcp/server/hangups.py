"""Hang-ups: an `AbortSignal` per HTTP request that fires when nobody can read the answer.

On the handshake-era streamable HTTP transport a ``tools/call`` runs in the session's task,
not in the HTTP request that carried it, so a client that closes the connection (or the
request's SSE stream) would leave its call running to the tool's timeout. `HangupWatcher`
wraps the ASGI app and gives every HTTP request a hang-up signal that fires when

- the client disconnects (``http.disconnect``), or
- the request is over (its answer sent, or it failed or was cancelled): whatever still runs
  for it has nobody left to answer, or
- `HangupWatcher.hang_up_all` is called (the server is stopping).

Except on a **resumable** stream: an SSE response that has sent an event with an id (the priming
event of a 2025-11-25 session, `toolwire.mcp.server.resumable`) keeps every later event in the event
store, and its client comes back for them with ``GET`` and ``Last-Event-ID``. Such a client may
close the stream to poll later (SEP-1699), or the server may close it for it (``close_sse_stream``);
as the 2025-11-25 transport says, a disconnection is then not a cancellation. Neither aborts the
call: the answer waits in the store. What still ends it is ``notifications/cancelled``, the session
ending (``DELETE``, its idle timeout) and the server stopping.

The ``tools/call`` handler takes its call's abort signal from `call_abort_signal`, the one
place a served call gets it: linked to the request's hang-up, and fired when the handler is
cancelled (``notifications/cancelled``, stdin closing, a 2026-07-28 request's stream closing,
the server stopping). The registry then answers ``aborted: ...`` and the terminal tool kills
the command's process group.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio

from toolwire.context import AbortSignal

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "CLIENT_CANCELLED",
    "CLIENT_GONE",
    "HANGUP_SCOPE_KEY",
    "HangupWatcher",
    "call_abort_signal",
    "request_hangup",
]

HANGUP_SCOPE_KEY = "toolwire.hangup"
"""Where a request's hang-up signal lives in its ASGI scope."""

CLIENT_CANCELLED = "cancelled by the MCP client"
"""The reason a call's signal gives when its handler was cancelled."""
CLIENT_GONE = f"{CLIENT_CANCELLED} (it disconnected)"
"""The reason a hang-up gives when the client went away or its request ended (on 2026-07-28
HTTP, closing the request is also how a client cancels)."""


class HangupWatcher:
    """ASGI middleware: a hang-up `AbortSignal` for every HTTP request (see the module doc).

    Args:
        app: The app to wrap (the streamable HTTP endpoint).
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._live: set[AbortSignal] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request with its hang-up signal in ``scope["toolwire.hangup"]``."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        hangup = AbortSignal()
        scope[HANGUP_SCOPE_KEY] = hangup
        stream = _StreamWatch()

        async def watched_receive() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect" and not stream.resumable:
                hangup.abort(CLIENT_GONE)
            return message

        async def watched_send(message: Message) -> None:
            if not stream.resumable:
                stream.see(message)
            await send(message)

        self._live.add(hangup)
        try:
            await self._app(scope, watched_receive, watched_send)
        finally:
            self._live.discard(hangup)
            if not stream.resumable:
                hangup.abort(CLIENT_GONE)

    def watched_call(self) -> AbstractContextManager[AbortSignal]:
        """The abort signal of a call answered *outside* the watched app (the HTTP fast path,
        `toolwire.mcp.server.fast_http.LeanPath`, which watches its own request for a disconnect):
        fired by `hang_up_all` while the block runs, and when the block is cancelled, as
        `call_abort_signal` would; one signal where the watched app links two."""
        signal = AbortSignal()
        self._live.add(signal)
        return _fired_when_cancelled(signal, partial(self._live.discard, signal))

    def hang_up_all(self, reason: str) -> None:
        """Fire the hang-up of every request in flight (their calls are aborted)."""
        for hangup in list(self._live):
            hangup.abort(reason)


class _StreamWatch:
    """Whether a response is a resumable SSE stream: it has sent an event with an id."""

    __slots__ = ("resumable", "sse")

    def __init__(self) -> None:
        self.sse = False
        self.resumable = False

    def see(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            headers = dict(message.get("headers") or ())
            self.sse = headers.get(b"content-type", b"").startswith(b"text/event-stream")
        elif kind == "http.response.body" and self.sse:
            body = message.get("body", b"")
            # sse-starlette writes one event per chunk; a field starts a line
            self.resumable = body.startswith(b"id:") or any(
                sep + b"id:" in body for sep in (b"\n", b"\r")
            )


def request_hangup(request: Any) -> AbortSignal | None:
    """The hang-up signal of the HTTP request behind a handler's ``ctx.request``, if any
    (``None`` over stdio and in-memory transports)."""
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return None
    hangup = scope.get(HANGUP_SCOPE_KEY)
    return hangup if isinstance(hangup, AbortSignal) else None


@contextmanager
def call_abort_signal(request: Any) -> Iterator[AbortSignal]:
    """The abort signal of one served call, for the duration of the ``with`` block.

    It fires when the HTTP request behind ``request`` (the handler's ``ctx.request``) hangs up,
    and when the block is cancelled (an async tool is cancelled with it; a sync tool's
    abandoned thread polls the signal).
    """
    signal = AbortSignal()
    hangup = request_hangup(request)
    unlink = hangup.subscribe(partial(_pass_on, hangup, signal)) if hangup is not None else None
    with _fired_when_cancelled(signal, unlink):
        yield signal


@contextmanager
def _fired_when_cancelled(
    signal: AbortSignal, release: Callable[[], object] | None
) -> Iterator[AbortSignal]:
    """``signal`` for the block, aborted (`CLIENT_CANCELLED`) if the block is cancelled;
    ``release`` is called when it ends, however it ends."""
    try:
        yield signal
    except anyio.get_cancelled_exc_class():
        signal.abort(CLIENT_CANCELLED)
        raise
    finally:
        if release is not None:
            release()


def _pass_on(hangup: AbortSignal, signal: AbortSignal) -> None:
    signal.abort(hangup.reason or CLIENT_GONE)
