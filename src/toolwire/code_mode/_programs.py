"""`Program`: drives one program in a Monty worker, call by call, until it ends or pauses.

Monty stops at each call the program makes to a host function. A tool call is answered
with a *future* at once, so the program runs on to its next ``await``; when every task of
the program waits, Monty reports the calls still pending and they run as one batch
(`toolwire.code_mode.inner_calls`): ``await f()`` is a batch of one, ``asyncio.gather`` of
twenty is a batch of twenty. A call to a name that is no tool raises ``NameError``; the
program's imports of tool namespaces are answered from the session's modules; every other
operating-system call (files, the environment) is refused by Monty's default. (Monty 1.4 takes
no value for a call awaited at once through ``resume``: the program would get the bare value,
not an awaitable, so every call is answered with a future, two round trips per call.)

The stepping from one batch to the next (`Program.advance`) runs in the worker's thread
(`toolwire.code_mode._workers.WorkerSession`); the batches run on the event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolwire.code_mode._settings import CodeModeSettings
from toolwire.code_mode._stubs import CallableTool
from toolwire.code_mode._workers import WorkerSession, load_monty
from toolwire.code_mode.inner_calls import (
    Approval,
    InnerCalls,
    PendingCall,
    Settled,
    dumps,
    raised,
)
from toolwire.results import Err, ErrorCode, ToolResult, ok

__all__ = ["Finished", "Paused", "Program", "bind_arguments", "failure", "finished_result"]

_CUT = "\n[output cut at {limit} characters]"


@dataclass(frozen=True, kw_only=True, slots=True)
class Finished:
    """The program ended: the value of its last expression (``None`` when there is none)."""

    value: Any


@dataclass(frozen=True, kw_only=True, slots=True)
class Paused:
    """The program waits for a human.

    Attributes:
        snapshot: The suspended interpreter (``snapshot.dump()``).
        waiting: The calls waiting for approval.
        settled: The answers the rest of their batch already has.
    """

    snapshot: bytes
    waiting: tuple[Approval, ...]
    settled: Mapping[int, Settled]


class Program:
    """One program's run (or resumed run) in one worker session.

    Args:
        entries: The tools it may call, by the name it calls them by.
        inner: The inner-call bridge.
        settings: The limits.
        calls: Calls made before (a resumed program keeps counting).
        output: What it printed before.
    """

    def __init__(
        self,
        *,
        entries: Mapping[str, CallableTool],
        inner: InnerCalls,
        settings: CodeModeSettings,
        calls: int = 0,
        output: str = "",
    ) -> None:
        self._entries = entries
        self.inner = inner
        self._settings = settings
        self.calls = calls
        self._printed: list[str] = [output] if output else []
        self._chars = len(output)
        self._cut = False
        self._pending: dict[int, PendingCall] = {}
        self._monty = load_monty()

    @property
    def output(self) -> str:
        """What the program printed (cut at ``max_output_chars``)."""
        text = "".join(self._printed)
        if self._cut:
            text += _CUT.format(limit=self._settings.max_output_chars)
        return text

    def printed(self, stream: Literal["stdout", "stderr"], text: str) -> None:
        """Monty's print callback: keep the output up to the limit."""
        room = self._settings.max_output_chars - self._chars
        if room <= 0:
            self._cut = self._cut or bool(text)
            return
        if len(text) > room:
            text, self._cut = text[:room], True
        self._printed.append(text)
        self._chars += len(text)

    async def drive(
        self,
        worker: WorkerSession,
        start: Callable[[], Any],
        settled: Mapping[int, Settled] | None = None,
    ) -> Finished | Paused:
        """Run from ``start()`` (the first snapshot, or one restored) until the program ends or
        pauses. ``settled`` holds answers a restored batch already has."""
        monty = self._monty
        carried: dict[int, Settled | Approval] = dict(settled or {})
        snapshot = await worker.run(self.advance, start)
        while True:
            if isinstance(snapshot, monty.MontyComplete):
                return Finished(value=snapshot.output)
            ids = list(snapshot.pending_call_ids)
            answers, carried = carried, {}
            batch = [self._pending[i] for i in ids if i in self._pending and i not in answers]
            answers.update(await self.inner.run(batch))
            waiting = tuple(a for a in answers.values() if isinstance(a, Approval))
            done = {k: v for k, v in answers.items() if not isinstance(v, Approval)}
            if waiting:  # only now is the interpreter's state written out
                dumped = await worker.run(snapshot.dump)
                return Paused(snapshot=dumped, waiting=waiting, settled=done)
            for call_id in ids:
                self._pending.pop(call_id, None)
                if call_id not in done:
                    done[call_id] = raised("RuntimeError", "the call was lost")
            snapshot = await worker.run(self.advance, snapshot.resume, done)

    def advance(self, step: Callable[..., Any], *args: Any) -> Any:
        """``step(*args)``, then on through the program's calls (in the worker's thread) until
        it ends or every task waits (a ``FutureSnapshot``: the batch)."""
        function, lookup = self._monty.FunctionSnapshot, self._monty.NameLookupSnapshot
        snapshot = step(*args)
        while True:
            if isinstance(snapshot, function):
                if snapshot.is_os_function:
                    snapshot = snapshot.resume_auto()  # namespace imports; the rest refused
                    continue
                snapshot = snapshot.resume(self._called(snapshot))
            elif isinstance(snapshot, lookup):
                snapshot = snapshot.resume()  # an undefined name: NameError
            else:
                return snapshot  # ended, or every task waits: a batch

    def restore(self, waiting: tuple[Approval, ...]) -> None:
        """Know the calls a restored program still waits for."""
        for item in waiting:
            self._pending[item.call.call_id] = item.call

    def _called(self, snapshot: Any) -> Settled:
        """The answer to a tool call: a future (``{"future": ...}``) or an exception."""
        entry = self._entries.get(snapshot.function_name)
        if entry is None:
            message = f"name {snapshot.function_name!r} is not defined (not a tool you may call)"
            return raised("NameError", message)
        if self.calls >= self._settings.max_inner_calls:
            message = (
                f"this program reached its limit of {self._settings.max_inner_calls} tool calls"
            )
            return raised("RuntimeError", message)
        args = bind_arguments(entry, snapshot.args, snapshot.kwargs)
        if isinstance(args, str):
            return raised("TypeError", args)
        self.calls += 1
        call_id = int(snapshot.call_id)
        self._pending[call_id] = PendingCall(call_id=call_id, tool_name=entry.tool.name, args=args)
        return _FUTURE


_FUTURE: Settled = {"future": ...}


def bind_arguments(
    entry: CallableTool, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any] | str:
    """The arguments by name, positional ones bound in stub order; a message when they clash."""
    if not args:
        return kwargs
    if len(args) > len(entry.params):
        return f"{entry.python_name}() takes {len(entry.params)} arguments, {len(args)} given"
    bound = dict(kwargs)
    for name, value in zip(entry.params, args, strict=False):
        if name in bound:
            return f"{entry.python_name}() got two values for {name!r}"
        bound[name] = value
    return bound


def finished_result(
    value: Any, printed: str, calls: int, cost_usd: float | None, **facts: Any
) -> ToolResult:
    """The result of a program that ended: what it printed, then its value as JSON (when not
    ``None``); ``structured`` = ``{result, printed, inner_calls, **facts}``."""
    import pydantic_core

    value = pydantic_core.to_jsonable_python(value, fallback=str)
    parts = [printed.rstrip("\n")] if printed else []
    if value is not None:
        parts.append(dumps(value))
    structured = {"result": value, "printed": printed, "inner_calls": calls, **facts}
    return ok("\n".join(parts), structured=structured, cost_usd=cost_usd)


def cut_output(text: str, limit: int) -> str:
    """``text`` cut at ``limit`` characters, with the marker a program's output is cut with."""
    return text if len(text) <= limit else text[:limit] + _CUT.format(limit=limit)


def failure(exc: BaseException, line_offset: int) -> Err:
    """The answer for a program Monty refused or that failed: ``input_invalid`` with the line
    for a syntax error; ``execution_failed`` with the traceback for an exception, a limit
    (``cause="limit"``) or a crashed worker (``cause="crashed"``)."""
    monty = load_monty()
    if isinstance(exc, monty.MontySyntaxError):
        frames = exc.traceback()
        where = ""
        if frames:
            line = frames[0].line - line_offset
            source = (frames[0].source_line or "").splitlines()[:1]
            where = f"line {line}: " + (f"`{source[0].strip()}`: " if source else "")
        return Err(
            f"The program is not valid Python for the sandbox: {where}{exc.display('msg')}",
            ErrorCode.INPUT_INVALID,
            field="code",
        )
    if isinstance(exc, monty.MontyCrashedError):
        return Err(
            f"The program's interpreter crashed ({exc}); the server is unaffected, run it again "
            "or simplify it",
            ErrorCode.EXECUTION_FAILED,
            cause="crashed",
        )
    if isinstance(exc, monty.MontyRuntimeError):
        kind = exc.display("type-msg")
        limit = kind.startswith(("TimeoutError", "MemoryError", "RecursionError"))
        lines = ["Traceback (most recent call last):"]
        for frame in exc.traceback():
            name = frame.function_name or "<program>"
            lines.append(f"  line {frame.line - line_offset}, in {name}")
            if frame.source_line:
                lines.append(f"    {frame.source_line.strip()}")
        lines.append(kind)
        return Err(
            "The program raised an exception:\n" + "\n".join(lines),
            ErrorCode.EXECUTION_FAILED,
            cause="limit" if limit else "exception",
        )
    return Err(f"The program failed: {exc}", ErrorCode.EXECUTION_FAILED, cause=type(exc).__name__)
