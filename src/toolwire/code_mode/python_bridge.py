"""`ProgramBridge`: the host's end of a ``runtime="python"`` program's tool socket.

One Unix socket per program run, in the run's own directory (mode 0700, bound read-only
into the sandbox, removed after the run). Everything arriving on it is **untrusted**: it is
the program's, and the program may be following a prompt injection.

**Frames** are a 4-byte big-endian length and a UTF-8 JSON object, at most
``python_max_frame_bytes`` from the program (a longer one is answered with an error and the
connection closed: a length that lies cannot be skipped safely).

- ``{"op": "hello", "token": t}``, first on every connection → ``{"op": "hello", "tools":
  [names]}``, or an error and the connection closed when ``t`` is not this run's token;
- ``{"op": "call", "id": n, "calls": [{"tool", "args", "kwargs"}, ...]}`` → ``{"id": n,
  "results": [{"value": v} or {"error": {"type", "message"}}, ...]}``, in the calls' order;
- ``{"op": "end", "value": v}``, ``{"op": "raised", "traceback", "limit"}`` or ``{"op":
  "invalid", "line", "text", "message"}``: how the program ended (no answer; the first counts);
- anything else → ``{"id": n or null, "error": {"code": "bad_frame", "message"}}``, and the
  connection goes on.

A ``call`` frame is **one batch**: its calls run together through
`toolwire.code_mode.inner_calls.InnerCalls` (one ``execute_parallel``: the caller's
snapshot and filters, validation, hooks, approvals, quotas, the flow policy). The client
sends the calls started in one turn of the program's event loop as one frame (so an
``asyncio.gather`` is one batch, as in Monty); choosing on the client is what keeps a
batch exact: the host cannot tell calls started together from calls that merely arrived
close together. Frames are answered one at a time per program. A name the program may not
call (not a tool of the caller's registry, when it connected) raises ``NameError``, a call
beyond ``max_inner_calls`` raises ``RuntimeError``, and a call the pipeline refuses (not in
the caller's snapshot, filtered out) raises ``PermissionError``: none of them runs.

A call that needs approval cannot pause a CPython process: the bridge answers it with a
``PermissionError`` and tells the runtime (`on_approval`), which stops the program and
answers ``run_code`` ``approval_required`` (`toolwire.code_mode._python_runtime`).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Mapping
from typing import Any

import anyio
from anyio.abc import ByteStream, SocketListener
from anyio.streams.buffered import BufferedByteReceiveStream

from toolwire.code_mode._programs import bind_arguments
from toolwire.code_mode._settings import CodeModeSettings
from toolwire.code_mode._stubs import CallableTool
from toolwire.code_mode.inner_calls import Approval, InnerCalls, PendingCall, Settled, raised

__all__ = ["MAX_CONNECTIONS", "ProgramBridge"]

MAX_CONNECTIONS = 8
"""Connections one program may hold open at once; more are closed unanswered."""
_REPORTS = ("end", "raised", "invalid")


class _FrameTooLarge(Exception):
    pass


def _frame(message: Mapping[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, default=str).encode("utf-8", "replace")
    return len(body).to_bytes(4, "big") + body


def _bad(message: str, ident: object = None) -> dict[str, Any]:
    return {"id": ident, "error": {"code": "bad_frame", "message": message}}


class ProgramBridge:
    """Serves one program's socket (see the module docstring).

    Args:
        entries: The tools the program may call, by the name it calls them by.
        inner: The inner-call bridge of the program.
        settings: The limits (``max_inner_calls``, ``python_max_frame_bytes``).
        token: The run's secret; a connection must present it first.
        on_approval: Called when a call needs approval (the runtime stops the program).
    """

    def __init__(
        self,
        *,
        entries: Mapping[str, CallableTool],
        inner: InnerCalls,
        settings: CodeModeSettings,
        token: str,
        on_approval: Callable[[], None],
    ) -> None:
        self._entries = entries
        self.inner = inner
        self._settings = settings
        self._token = token
        self._on_approval = on_approval
        self._batch_lock = anyio.Lock()
        self._open = 0
        self._idle = anyio.Event()
        self._idle.set()
        self.calls = 0
        self.report: dict[str, Any] | None = None
        self.waiting: list[Approval] = []
        self.ended = False

    async def serve(self, listener: SocketListener) -> None:
        """Accept connections until cancelled."""
        async with anyio.create_task_group() as connections:
            while True:
                stream = await listener.accept()
                if self._open >= MAX_CONNECTIONS:
                    await stream.aclose()
                    continue
                self._open += 1
                self._idle = anyio.Event()
                connections.start_soon(self._connection, stream)

    async def drained(self) -> None:
        """Wait until every connection has closed (the program ended: no new batch runs)."""
        self.ended = True
        await self._idle.wait()

    async def _connection(self, stream: ByteStream) -> None:
        try:
            async with stream:
                await self._converse(stream)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass  # the program went away mid-frame
        finally:
            self._open -= 1
            if self._open == 0:
                self._idle.set()

    async def _converse(self, stream: ByteStream) -> None:
        reader = BufferedByteReceiveStream(stream)
        greeted = False
        while True:
            try:
                body = await self._read(reader)
            except _FrameTooLarge as exc:
                await stream.send(_frame(_bad(str(exc))))
                return
            if body is None:
                return
            message = _decode(body)
            if isinstance(message, str):
                await stream.send(_frame(_bad(message)))
                continue
            op = message.get("op")
            if not greeted:
                token = message.get("token")
                if op != "hello" or not isinstance(token, str) or not _same(token, self._token):
                    refusal = {"error": {"code": "unauthorized", "message": "not this run's token"}}
                    await stream.send(_frame(refusal))
                    return
                greeted = True
                await stream.send(_frame({"op": "hello", "tools": sorted(self._entries)}))
            elif op in _REPORTS:
                if self.report is None:
                    self.report = dict(message)
            elif op == "call":
                await stream.send(_frame(await self._call_frame(message)))
            else:
                await stream.send(_frame(_bad(f"unknown op {op!r}", message.get("id"))))

    async def _read(self, reader: BufferedByteReceiveStream) -> bytes | None:
        try:
            header = await reader.receive_exactly(4)
        except (anyio.IncompleteRead, anyio.EndOfStream):
            return None
        size = int.from_bytes(header, "big")
        limit = self._settings.python_max_frame_bytes
        if size > limit:
            raise _FrameTooLarge(f"a {size}-byte frame; the limit is {limit} bytes")
        try:
            return await reader.receive_exactly(size)
        except (anyio.IncompleteRead, anyio.EndOfStream):
            return None

    async def _call_frame(self, message: Mapping[str, Any]) -> dict[str, Any]:
        ident = message.get("id")
        calls = message.get("calls")
        if not isinstance(ident, int) or isinstance(ident, bool) or not isinstance(calls, list):
            return _bad("a call frame needs an integer id and a list of calls", ident)
        if self.ended:
            return _bad("the program has ended", ident)
        async with self._batch_lock:
            answers = await self._batch(calls)
        return {"id": ident, "results": [_result(answer) for answer in answers]}

    async def _batch(self, calls: list[Any]) -> list[Settled]:
        """Answer the calls of one frame, in order; the accepted ones run as one batch."""
        answers: list[Settled | int] = []
        pending: list[PendingCall] = []
        for item in calls:
            answer = self._admit(item)
            if isinstance(answer, PendingCall):
                pending.append(answer)
                answers.append(answer.call_id)
            else:
                answers.append(answer)
        ran = await self.inner.run(pending) if pending else {}
        out: list[Settled] = []
        for slot in answers:
            if not isinstance(slot, int):
                out.append(slot)
                continue
            got = ran.get(slot, raised("RuntimeError", "the call was lost"))
            if isinstance(got, Approval):
                self.waiting.append(got)
                self._on_approval()
                got = raised(
                    "PermissionError",
                    f"{got.call.tool_name} requires approval, and a runtime='python' program "
                    "cannot wait for it: the program is stopped",
                )
            out.append(got)
        return out

    def _admit(self, item: Any) -> PendingCall | Settled:
        if not isinstance(item, dict):
            return raised("TypeError", "a call must be an object {tool, args, kwargs}")
        name, args, kwargs = item.get("tool"), item.get("args", []), item.get("kwargs", {})
        if not isinstance(name, str) or not isinstance(args, list) or not isinstance(kwargs, dict):
            return raised("TypeError", "a call needs a tool name, a list args and an object kwargs")
        entry = self._entries.get(name)
        if entry is None:
            return raised("NameError", f"name {name[:100]!r} is not a tool you may call")
        limit = self._settings.max_inner_calls
        if self.calls >= limit:
            return raised("RuntimeError", f"this program reached its limit of {limit} tool calls")
        bound = bind_arguments(entry, tuple(args), {str(k): v for k, v in kwargs.items()})
        if isinstance(bound, str):
            return raised("TypeError", bound)
        self.calls += 1
        return PendingCall(call_id=self.calls, tool_name=entry.tool.name, args=bound)


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))


def _decode(body: bytes) -> dict[str, Any] | str:
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return "a frame must be a UTF-8 JSON object"
    if not isinstance(message, dict):
        return "a frame must be a JSON object"
    return message


def _result(answer: Settled) -> dict[str, Any]:
    if "return_value" in answer:
        return {"value": answer["return_value"]}
    return {"error": {"type": answer.get("exc_type"), "message": answer.get("message")}}
