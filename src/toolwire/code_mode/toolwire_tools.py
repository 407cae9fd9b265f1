"""``toolwire_tools``: a ``runtime="python"`` program's tools, and the runner that starts it.

**Standard library only, and no toolwire import**: this file is copied into the program's
read-only directory in the sandbox and run there by the system's CPython
(``python3 -I toolwire_tools.py``); the program imports it as ``toolwire_tools``. It speaks
the protocol of `toolwire.code_mode.python_bridge` over the Unix socket named by
``TOOLWIRE_TOOLS_SOCKET``: frames of a 4-byte big-endian length and a UTF-8 JSON object.

Every tool is an ``async`` function (in the program's globals, in this module, and for an MCP
server's tools in a module named after the server: ``import github``). A call is not sent at
once: the calls started in one turn of the event loop (every call of one
``asyncio.gather``, a lone ``await``) are sent together in one ``call`` frame, which the host
runs as one batch. A failed call raises ``ValueError`` (invalid arguments),
``PermissionError`` (refused, or needing approval), ``NameError`` (no such tool),
``TypeError`` (arguments that do not bind) or ``RuntimeError``.

As the runner, it reads ``program.py`` beside it, runs it (top-level ``await`` allowed; a
program that calls ``asyncio.run`` itself works too) and reports how it ended in one last
frame: the value of a top-level ``return`` or of the last expression statement, the
traceback of an uncaught exception, or the syntax error.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import importlib.util
import json
import linecache
import os
import socket
import struct
import sys
import traceback
import types
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["call", "main"]

SOCKET_ENV = "TOOLWIRE_TOOLS_SOCKET"
TOKEN_ENV = "TOOLWIRE_TOOLS_TOKEN"
MAX_FRAME_ENV = "TOOLWIRE_TOOLS_MAX_FRAME"
PROGRAM = "program.py"
_HEADER = struct.Struct(">I")
_MAX_REPLY = 512 * 1024 * 1024
_RESULT = "__toolwire_result__"
_RETURN = "__toolwire_return__"
_RAISED: dict[str, type[Exception]] = {
    "ValueError": ValueError,
    "PermissionError": PermissionError,
    "NameError": NameError,
    "TypeError": TypeError,
    "TimeoutError": TimeoutError,
}


def _json_default(value: Any) -> Any:
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def _encode(message: dict[str, Any], limit: int) -> bytes:
    body = json.dumps(message, ensure_ascii=False, default=_json_default).encode("utf-8")
    if len(body) > limit:
        raise ValueError(f"the message is {len(body)} bytes; the tool socket takes {limit}")
    return _HEADER.pack(len(body)) + body


def _read_blocking(sock: socket.socket) -> dict[str, Any]:
    def exactly(size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk = sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError("the host closed the tool socket")
            data += chunk
        return bytes(data)

    (size,) = _HEADER.unpack(exactly(_HEADER.size))
    return _decoded(exactly(size), size)


async def _read(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> dict[str, Any]:
    async def exactly(size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk = await loop.sock_recv(sock, min(size - len(data), 1 << 20))
            if not chunk:
                raise ConnectionError("the host closed the tool socket")
            data += chunk
        return bytes(data)

    (size,) = _HEADER.unpack(await exactly(_HEADER.size))
    return _decoded(await exactly(size), size)


def _decoded(body: bytes, size: int) -> dict[str, Any]:
    if size > _MAX_REPLY:
        raise ConnectionError(f"the host sent a {size}-byte frame")
    message = json.loads(body)
    if not isinstance(message, dict):
        raise ConnectionError("the host sent a frame that is not an object")
    if "error" in message and "results" not in message:
        raise ConnectionError(f"the host refused: {message['error']}")
    return message


class _Link:
    """The program's connection to the host; calls of one loop turn go in one frame."""

    def __init__(self, path: str, token: str, limit: int) -> None:
        self._path, self._token, self.limit = path, token, limit
        self._sock: socket.socket | None = None
        self._pending: list[tuple[dict[str, Any], asyncio.Future[Any]]] = []
        self._flush_on: asyncio.AbstractEventLoop | None = None
        self._locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._next = 0

    def connect(self) -> list[str]:
        """Greet the host (blocking); the names of the tools the program may call."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(self._path)
        sock.sendall(_encode({"op": "hello", "token": self._token}, self.limit))
        reply = _read_blocking(sock)
        sock.setblocking(False)
        self._sock = sock
        return [str(name) for name in reply.get("tools", [])]

    def report(self, message: dict[str, Any]) -> None:
        """Send how the program ended (blocking)."""
        try:
            frame = _encode(message, self.limit)
        except ValueError as exc:
            frame = _encode({"op": "raised", "traceback": f"ValueError: {exc}"}, self.limit)
        sock = self._sock
        if sock is None:
            self.connect()
            sock = self._sock
            assert sock is not None
        sock.setblocking(True)
        sock.sendall(frame)

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> asyncio.Future[Any]:
        """Start a call; it is sent with the others started in this turn of the loop."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if self._flush_on is not None and self._flush_on is not loop:
            self._pending, self._flush_on = [], None  # left behind by a loop that ended
        self._pending.append(({"tool": name, "args": list(args), "kwargs": kwargs}, future))
        if self._flush_on is None:
            self._flush_on = loop
            loop.call_soon(self._flush, loop)
        return future

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        batch, self._pending, self._flush_on = self._pending, [], None
        task = loop.create_task(self._exchange(loop, batch))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _exchange(
        self,
        loop: asyncio.AbstractEventLoop,
        batch: list[tuple[dict[str, Any], asyncio.Future[Any]]],
    ) -> None:
        lock = self._locks.setdefault(loop, asyncio.Lock())
        try:
            async with lock:
                if self._sock is None:
                    self.connect()
                sock = self._sock
                assert sock is not None
                self._next += 1
                ident = self._next
                frame = _encode(
                    {"op": "call", "id": ident, "calls": [c for c, _ in batch]}, self.limit
                )
                try:
                    await loop.sock_sendall(sock, frame)
                    reply = await _read(loop, sock)
                except BaseException:
                    self._sock = None  # out of step with the host: the next call reconnects
                    sock.close()
                    raise
            results = reply.get("results")
            if reply.get("id") != ident or not isinstance(results, list):
                raise ConnectionError(f"the host answered out of turn: {reply!r:.200}")
            for (_, future), result in zip(batch, results, strict=False):
                if not future.done():
                    _settle(future, result)
        except BaseException as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc if isinstance(exc, Exception) else ConnectionError())
            if not isinstance(exc, Exception):
                raise
        for _, future in batch:
            if not future.done():
                future.set_exception(ConnectionError("the host gave no answer for this call"))


def _settle(future: asyncio.Future[Any], result: Any) -> None:
    if isinstance(result, dict) and "value" in result:
        future.set_result(result["value"])
        return
    error = result.get("error") if isinstance(result, dict) else None
    error = error if isinstance(error, dict) else {}
    kind = _RAISED.get(str(error.get("type")), RuntimeError)
    future.set_exception(kind(str(error.get("message", "the call failed"))))


_LINK: _Link | None = None


async def call(name: str, /, *args: Any, **kwargs: Any) -> Any:
    """Call the tool the program knows as ``name`` (``"read_file"``, ``"github.create_issue"``)."""
    if _LINK is None:
        raise RuntimeError("toolwire_tools is not connected (it runs inside run_code only)")
    return await _LINK.call(name, args, kwargs)


def _function(name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    async def tool(*args: Any, **kwargs: Any) -> Any:
        return await call(name, *args, **kwargs)

    tool.__name__ = name.rsplit(".", 1)[-1]
    tool.__qualname__ = name
    return tool


def _install(names: list[str], namespace: dict[str, Any]) -> None:
    """Put the tools where the program finds them (globals, this module, server modules)."""
    me = sys.modules[__name__]
    modules: dict[str, types.ModuleType] = {}
    for name in names:
        space, _, base = name.rpartition(".")
        function = _function(name)
        if not space:
            namespace[name] = function
            setattr(me, name, function)
            continue
        module = modules.setdefault(space, types.ModuleType(space))
        setattr(module, base, function)
    for space, module in modules.items():
        namespace[space] = module
        if space not in sys.modules and importlib.util.find_spec(space) is None:
            sys.modules[space] = module  # `import github` works; a real module keeps its name


class _Return(BaseException):
    def __init__(self, value: Any = None) -> None:
        super().__init__()
        self.value = value


class _TopLevel(ast.NodeTransformer):
    """``return x`` at the top level (not in a function or class) raises `_Return`."""

    def visit_Return(self, node: ast.Return) -> ast.AST:
        value = node.value if node.value is not None else ast.Constant(value=None)
        name = ast.Name(id=_RETURN, ctx=ast.Load())
        raise_ = ast.Raise(exc=ast.Call(func=name, args=[value], keywords=[]), cause=None)
        return ast.copy_location(raise_, node)

    def _keep(self, node: ast.AST) -> ast.AST:
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _keep


def compile_program(source: str) -> types.CodeType:
    """The program compiled to run: top-level ``await`` allowed, a top-level ``return`` and
    a last expression statement kept as its value.

    Raises:
        SyntaxError: it is not valid Python.
    """
    tree = ast.parse(source, PROGRAM)
    tree = _TopLevel().visit(tree)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        target = ast.Name(id=_RESULT, ctx=ast.Store())
        tree.body[-1] = ast.copy_location(ast.Assign(targets=[target], value=last.value), last)
    ast.fix_missing_locations(tree)
    code: types.CodeType = compile(
        tree, PROGRAM, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
    )
    return code


def _traceback(exc: BaseException) -> str:
    lines = ["Traceback (most recent call last):"]
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename != PROGRAM:
            continue  # the runner's and this module's frames are not the program's
        name = "<program>" if frame.name == "<module>" else frame.name
        lines.append(f"  line {frame.lineno}, in {name}")
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    lines.append("".join(traceback.format_exception_only(type(exc), exc)).strip())
    return "\n".join(lines)


def run_program(source: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Run ``source`` in ``namespace``; the frame saying how it ended."""
    linecache.cache[PROGRAM] = (len(source), None, source.splitlines(True), PROGRAM)
    try:
        code = compile_program(source)
    except SyntaxError as exc:
        return {"op": "invalid", "line": exc.lineno, "text": exc.text, "message": exc.msg}
    namespace[_RETURN] = _Return
    try:
        if code.co_flags & 0x80:  # CO_COROUTINE: the program awaits at its top level
            asyncio.run(types.FunctionType(code, namespace)())
        else:
            exec(code, namespace)
        value = namespace.get(_RESULT)
    except _Return as returned:
        value = returned.value
    except SystemExit as exc:
        if exc.code not in (None, 0):
            return {"op": "raised", "traceback": f"SystemExit: {exc.code}", "limit": False}
        value = None
    except BaseException as exc:
        limit = isinstance(exc, MemoryError | RecursionError)
        return {"op": "raised", "traceback": _traceback(exc), "limit": limit}
    return {"op": "end", "value": value}


def main() -> int:
    """Connect, run ``program.py`` and report how it ended (the sandbox's entry point)."""
    global _LINK
    os.dup2(1, 2)  # one stream for print and stderr, in the order written
    sys.modules.setdefault("toolwire_tools", sys.modules[__name__])
    here = os.path.dirname(os.path.abspath(__file__))
    link = _Link(
        os.environ[SOCKET_ENV], os.environ.pop(TOKEN_ENV, ""), int(os.environ[MAX_FRAME_ENV])
    )
    _LINK = link
    names = link.connect()
    with open(os.path.join(here, PROGRAM), encoding="utf-8") as handle:
        source = handle.read()
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    _install(names, namespace)
    ended = run_program(source, namespace)
    sys.stdout.flush()
    link.report(ended)
    return 0 if ended["op"] == "end" else 1


if __name__ == "__main__":
    sys.exit(main())
