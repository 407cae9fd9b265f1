"""`LeanStdio`: the stdio connection answered on the standard library until it needs the SDK.

It reads stdin's lines and answers, itself, what a client needs first and most: the ``initialize``
handshake (recorded for the handover), ``notifications/initialized``, ``ping``, ``server/discover``,
``tools/list`` and plain ``tools/call`` (through the registry and the same context, presenter and
result conversion as the SDK handler: `toolwire.mcp.server.tool_call`), on a handshake-era
connection and on a 2026-07-28 one alike (a tool that may talk to its client,
`toolwire.mcp.server.fast_stdio._peers`, need the user's approval or run long enough to become a
task is the SDK's, and so are ``tool_search`` and the deferred tools, `toolwire.tool_search`, whose
listing then grows). Calls run concurrently, each in its own task; ``notifications/cancelled``
cancels one (its abort signal fires). After the handshake, a change of the registry's tools is
announced with ``notifications/tools/list_changed``, as the SDK server does.

The first message it does not answer itself is handed, with the rest of the stream, to the SDK
server (`toolwire.mcp.server.fast_stdio._handover`); calls already running finish here. When stdin
ends, `finish_calls` lets the calls in flight finish within the grace
(`toolwire.mcp.server.fast_stdio.grace`), then aborts the rest and answers each ``Connection
closed``.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from toolwire.mcp.revision import STATELESS_REVISION, is_stateless
from toolwire.mcp.server._options import ServeOptions
from toolwire.mcp.server.fast_stdio._answers import Answers
from toolwire.mcp.server.fast_stdio._messages import (
    Message,
    handshake_params,
    has_modern_key,
    modern_meta,
    plain_call,
    read_message,
)
from toolwire.mcp.server.fast_stdio._peers import PeerCheck
from toolwire.mcp.server.fast_stdio.grace import CONNECTION_CLOSED
from toolwire.mcp.server.hangups import call_abort_signal
from toolwire.mcp.server.tool_call import CallRequest, ToolCalls
from toolwire.replicas._session_read_records import SessionReadRecords

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

    from toolwire.mcp.server.fast_stdio._wire import LineWriter
    from toolwire.mcp.server.fast_stdio.grace import StdinEnd
    from toolwire.presenting import Presenter
    from toolwire.registry import ToolRegistry

__all__ = ["LeanStdio"]

logger = logging.getLogger("toolwire.mcp.server.fast_stdio")

_LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
_INTERNAL_ERROR = {"code": -32603, "message": "Internal server error"}
SETTLE_S = 5.0
"""How long aborted calls get to unwind and send their ``Connection closed`` answers."""


class LeanStdio:
    """One stdio connection (see the module doc).

    Args:
        registry: The served tools.
        options: How they are served (``None``: the defaults).
        writer: The wire.
    """

    def __init__(
        self, registry: ToolRegistry, options: ServeOptions | None, writer: LineWriter
    ) -> None:
        self.registry = registry
        self.options = options or ServeOptions()
        self.sessions = SessionReadRecords()
        """The stdio session's read records and id, handed to the SDK server on a handover."""
        self.calls = ToolCalls.serving(registry, self.options, self.sessions)
        """Its ``tools/call``, as the SDK server's (`toolwire.mcp.server.tool_call`)."""
        self.presenter: Presenter = self.calls.presenter
        self.replay: list[str] = []
        """The handshake's lines, as received (the SDK server is given them first)."""
        self.handshake_id: int | str | None = None
        """The id of the ``initialize`` request in `replay`."""
        self._answers = Answers.for_registry(registry, self.options)
        self._writer = writer
        self._version: str | None = None  # negotiated (handshake) or STATELESS_REVISION
        self._calls: dict[int | str, anyio.CancelScope] = {}  # the ones a cancel may name
        self._closed: set[int | str] = set()  # aborted as stdin ended: answered an error
        self._running = 0  # call tasks not yet over (a cancelled one unwinds)
        self._quiet = anyio.Event()  # set while none is
        self._quiet.set()
        self._peers = PeerCheck()
        self._stop_watching: Any = None
        self._changes: MemoryObjectSendStream[None] | None = None

    # -- reading ------------------------------------------------------------------------------

    async def take(self, line: str, group: anyio.abc.TaskGroup) -> bool:
        """Answer ``line`` (calls start in ``group``); ``False`` when the SDK must have it."""
        message = read_message(line)
        if message is None:
            return False
        if message.request_id is None:
            return self._notified(message, line, group)
        if self._version is None:
            if message.method == "initialize":
                return await self._initialize(message, line)
            if not (has_modern_key(message.params) and modern_meta(message.params)):
                return False  # the SDK answers whatever comes before the handshake
            self._version = STATELESS_REVISION
        if is_stateless(self._version):
            if message.method == "initialize" or not modern_meta(message.params):
                return False
        elif has_modern_key(message.params):
            return False  # a 2026-07-28 request on a handshake-era connection: refused there
        return await self._request(message, group)

    def cancel(self, line: str) -> bool:
        """Cancel the running call ``line`` (a ``notifications/cancelled``) names; whether it
        named one of ours."""
        message = read_message(line)
        if message is None or message.method != "notifications/cancelled":
            return False
        target = message.params.get("requestId")
        if message.request_id is not None or not isinstance(target, int | str):
            return False
        if isinstance(target, bool):
            return False
        scope = self._calls.pop(target, None)
        if scope is None:
            return False
        scope.cancel()  # never answered, as the protocol says
        return True

    async def finish_calls(self, end: StdinEnd) -> None:
        """Stdin has ended: wait for the calls in flight until ``end``'s grace is over, then
        abort those still running and let them answer ``Connection closed``."""
        await end.wait_for(self._quiet)
        if self._running:
            logger.warning("aborting %d call(s) still running after stdin ended", self._running)
        self.abort_calls()
        with anyio.move_on_after(SETTLE_S):
            await self._quiet.wait()

    def abort_calls(self) -> None:
        """Cancel every call still running (their abort signals fire); each is answered
        ``Connection closed`` if the wire is still open."""
        for request_id, scope in list(self._calls.items()):
            self._closed.add(request_id)
            scope.cancel()

    def stop_announcing(self) -> None:
        """Stop announcing tool changes (the SDK server announces them after a handover)."""
        if self._stop_watching is not None:
            self._stop_watching()
            self._stop_watching = None
        if self._changes is not None:
            self._changes.close()
            self._changes = None

    # -- answering ----------------------------------------------------------------------------

    def _notified(self, message: Message, line: str, group: anyio.abc.TaskGroup) -> bool:
        if message.method == "notifications/cancelled":
            return self.cancel(line)
        if message.method != "notifications/initialized" or self.handshake_id is None:
            return False
        if len(self.replay) != 1 or message.params:
            return False  # a repeated notification, or one with params: the SDK's
        self.replay.append(line)
        self._announce_changes(group)
        return True

    async def _initialize(self, message: Message, line: str) -> bool:
        version = handshake_params(message.params)
        if version is None or message.request_id is None:
            return False
        await self._reply(message.request_id, self._answers.initialize(version))
        self._version = version  # only once answered: a failure leaves it all to the SDK
        self.replay.append(line)
        self.handshake_id = message.request_id
        return True

    async def _request(self, message: Message, group: anyio.abc.TaskGroup) -> bool:
        assert message.request_id is not None
        assert self._version is not None
        method, params, version = message.method, message.params, self._version
        modern = is_stateless(version)
        if method == "ping" and not modern and not params:
            await self._reply(message.request_id, {})
            return True
        if method == "server/discover" and modern and set(params) <= {"_meta"}:
            await self._reply(message.request_id, self._answers.discover())
            return True
        if method == "tools/list" and set(params) <= ({"_meta"} if modern else set()):
            await self._reply(message.request_id, self._answers.tools(version))
            return True
        if method != "tools/call":
            return False
        call = plain_call(params, modern=modern)
        if call is None or message.request_id in self._calls:
            return False
        tool = self.calls.fast_path_tool(call[0])  # unknown, approval, task, tool search
        if tool is None or self._peers.talks_to_client(tool):
            return False  # its peer (logs, sampling, elicitation, roots) is the SDK's
        scope = anyio.CancelScope()
        self._calls[message.request_id] = scope
        self._running += 1
        self._quiet = anyio.Event() if self._quiet.is_set() else self._quiet
        group.start_soon(self._call, message.request_id, call[0], call[1], scope)
        return True

    async def _call(
        self, request_id: int | str, name: str, arguments: dict[str, Any], scope: anyio.CancelScope
    ) -> None:
        result: dict[str, Any] | None = None
        try:
            with scope:
                result = await self._run(request_id, name, arguments)
            closing = request_id in self._closed  # else a cancel is the client's: no answer
            if result is not None and (closing or not scope.cancel_called):
                await self._reply(request_id, result)
            elif result is None and closing:
                await self._writer.send(
                    {"jsonrpc": "2.0", "id": request_id, "error": CONNECTION_CLOSED}
                )
        except Exception:
            logger.exception("tools/call %s failed in the lean stdio loop", name)
            await self._writer.send({"jsonrpc": "2.0", "id": request_id, "error": _INTERNAL_ERROR})
        finally:
            if self._calls.get(request_id) is scope:
                del self._calls[request_id]
            self._closed.discard(request_id)
            self._running -= 1
            if not self._running:
                self._quiet.set()

    async def _run(self, request_id: int | str, name: str, arguments: dict[str, Any]) -> Any:
        """One call, as the SDK handler runs it (`toolwire.mcp.server.tool_call`)."""
        call = CallRequest(name, arguments, str(request_id), self.sessions.process_id)
        with call_abort_signal(None) as signal:
            result = await self.calls.call(call, signal)
        assert self._version is not None
        return self._answers.call_result(result, self._version)

    async def _reply(self, request_id: int | str, result: dict[str, Any]) -> None:
        await self._writer.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    # -- tool changes -------------------------------------------------------------------------

    def _announce_changes(self, group: anyio.abc.TaskGroup) -> None:
        send, receive = anyio.create_memory_object_stream[None](1)
        self._changes = send

        def changed() -> None:
            with contextlib.suppress(anyio.WouldBlock, anyio.ClosedResourceError):
                send.send_nowait(None)  # a burst of changes is one notification

        self._stop_watching = self.registry.on_change(changed)
        group.start_soon(self._announce, receive)

    async def _announce(self, receive: MemoryObjectReceiveStream[None]) -> None:
        async with receive:
            async for _ in receive:
                await self._writer.send(_LIST_CHANGED)
