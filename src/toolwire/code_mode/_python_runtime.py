"""``run_code(code, runtime="python")``: the program in the real CPython, in the command sandbox.

For programs that need what Monty lacks (the standard library whole, installed packages).
Offered only with ``CodeModeSettings(python_runtime=True)`` (``[code_mode] python_runtime``).
One run:

1. a private directory (mode 0700) gets the program (``program.py``), the client and runner
   (`toolwire.code_mode.toolwire_tools`, standard library only) and the run's tool socket,
   served by a `ProgramBridge` and guarded by a random token;
2. ``python_executable -I -X utf8 toolwire_tools.py`` runs through the registry's process
   backend, with the reach ``terminal`` has (the files the policy grants; no network, or
   ``python_hosts`` through the egress proxy under the network policy) plus that directory,
   read-only: nothing of another run, nor the host's other sockets;
3. the program's tool calls come back over the socket and run through the pipeline
   (`toolwire.code_mode.inner_calls`), one batch per ``call`` frame;
4. the socket and the directory are removed, and the program's last frame says how it
   ended: its value, its traceback or its syntax error.

The answers are those of the Monty runtime (``structured["runtime"] = "python"``), with two
differences. **Time**: ``timeout_s`` is the sandbox's life; at the deadline it is killed with
everything it started (``execution_failed``, ``cause="limit"``); memory and CPU are the
sandbox's limits (``[sandbox]``), not ``max_memory_bytes`` and ``cpu_time_s``. **Approval**: a
CPython process cannot be snapshotted, so an inner call that needs approval stops the program
(its sandbox is killed) and ``run_code`` answers ``not_available``
(``reason="approval_required"``) naming the call and its token, like Monty's pause; sent
again with ``approvals=[token]`` the program runs **from the start** and the approved call
then runs. Programs that must pause for a human and resume belong in Monty.

Without a sandboxing process backend (bubblewrap cannot run, ``[sandbox] mode = "off"``) a
program is refused: ``not_available``, ``reason="sandbox_unavailable"``, unless
``python_unsandboxed`` says otherwise.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import anyio
import anyio.to_thread

import toolwire.code_mode.toolwire_tools as toolwire_tools
from toolwire.capabilities.seams import ProcessResult, ScopedProcess
from toolwire.code_mode._flow import FlowState
from toolwire.code_mode._programs import cut_output, finished_result
from toolwire.code_mode._settings import CodeModeSettings
from toolwire.code_mode._stubs import CallableTool
from toolwire.code_mode._turns import TurnTaint
from toolwire.code_mode.inner_calls import Approval, InnerCalls
from toolwire.code_mode.python_bridge import ProgramBridge
from toolwire.context import AbortSignal, ToolContext
from toolwire.errors import CapabilityError
from toolwire.execution.admit import Admission
from toolwire.execution.approvals import waiting_call
from toolwire.execution.flow import FLOW_SCOPE, FLOW_TOOL
from toolwire.registry import ToolRegistry
from toolwire.results import Err, ErrorCode, ToolResult

__all__ = ["run_python"]

_CLIENT = Path(toolwire_tools.__file__).read_text(encoding="utf-8")
_TRACE_CHARS = 20_000
"""The most of a program's traceback kept (its output is cut at ``max_output_chars``)."""
_DRAIN_S = 2.0
"""How long the bridge waits, after the program's process ended, for its last frames."""


async def run_python(
    *,
    registry: ToolRegistry,
    settings: CodeModeSettings,
    entries: Mapping[str, CallableTool],
    code: str,
    ctx: ToolContext,
    admission: Admission,
    program_id: str,
    tool_name: str,
) -> ToolResult:
    """Run ``code`` in CPython in the sandbox (see the module docstring)."""
    backends = registry.backends
    processes = backends.processes if backends is not None else None
    if backends is None or processes is None:
        return Err(
            "runtime='python' runs the program as a sandboxed process, and this registry has "
            "no process backend; use runtime='monty'",
            ErrorCode.NOT_AVAILABLE,
            reason="no_process_backend",
        )
    if not processes.sandboxed and not settings.python_unsandboxed:
        return _unsandboxed(getattr(processes, "reason", None))
    factory = backends.kv_store_factory
    turns = TurnTaint(factory(FLOW_TOOL, FLOW_SCOPE)) if factory is not None else None
    flow = FlowState(untrusted_from=await turns.source(ctx) if turns is not None else None)
    inner = InnerCalls(
        registry=registry,
        ctx=ctx,
        admission=admission,
        settings=settings,
        prefix=program_id,
        flow=flow,
    )
    stop = AbortSignal()
    unsubscribe = (
        ctx.abort_signal.subscribe(lambda: stop.abort("the run_code call was aborted"))
        if ctx.abort_signal is not None
        else None
    )
    token = secrets.token_urlsafe(32)
    bridge = ProgramBridge(
        entries=entries,
        inner=inner,
        settings=settings,
        token=token,
        on_approval=lambda: stop.abort("an inner call requires approval"),
    )
    run_dir = await anyio.to_thread.run_sync(_prepare, code)
    try:
        ended = await _run(bridge, backends, settings, ctx, stop, run_dir, token, tool_name)
    finally:
        if unsubscribe is not None:
            unsubscribe()
        await anyio.to_thread.run_sync(shutil.rmtree, run_dir, True)
    if turns is not None and flow.untrusted_from is not None:
        await turns.mark(ctx, flow.untrusted_from)
    if isinstance(ended, Err):
        return ended
    return _answer(bridge, ended, settings, stop)


def _prepare(code: str) -> str:
    """The run's private directory with the program and the client in it (blocking)."""
    run_dir = tempfile.mkdtemp(prefix="toolwire-code-")
    for name, text in (("program.py", code), ("toolwire_tools.py", _CLIENT)):
        path = os.path.join(run_dir, name)
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)
        os.chmod(path, 0o444)
    return run_dir


def _runner(
    backends: object, settings: CodeModeSettings, ctx: ToolContext, stop: AbortSignal, run_dir: str
) -> ScopedProcess | None:
    """The process seam of the program: ``terminal``'s reach, the interpreter, ``run_dir``."""
    from toolwire.capabilities import ToolCapabilities, fs_reach, network, process
    from toolwire.capabilities.resolver import (
        CapabilityBackends,
        CapabilityScope,
        resolve_capabilities,
    )

    assert isinstance(backends, CapabilityBackends)
    declared = [
        process([settings.python_executable], read=[run_dir]),
        fs_reach(read="from-personality", write="from-personality"),
    ]
    if settings.python_hosts:
        declared.append(network(settings.python_hosts))
    scope = CapabilityScope.from_context(ctx.derive(abort_signal=stop))
    resolved = resolve_capabilities("run_code", ToolCapabilities.of(*declared), scope, backends)
    return resolved.scoped_process


async def _run(
    bridge: ProgramBridge,
    backends: object,
    settings: CodeModeSettings,
    ctx: ToolContext,
    stop: AbortSignal,
    run_dir: str,
    token: str,
    tool_name: str,
) -> ProcessResult | Err:
    try:
        runner = _runner(backends, settings, ctx, stop, run_dir)
    except Exception as exc:  # a reach that cannot be resolved denies, as in the pipeline
        return Err(
            f"runtime='python': the program's reach could not be resolved ({exc})",
            ErrorCode.NOT_AVAILABLE,
            reason="capability_resolution_failed",
        )
    if runner is None:
        return _unsandboxed(None)
    from toolwire.toolbox._sandbox_notices import emit_sandbox_notice

    emit_sandbox_notice(ctx, runner, tool_name)
    env = {
        toolwire_tools.SOCKET_ENV: os.path.join(run_dir, "tools.sock"),
        toolwire_tools.TOKEN_ENV: token,
        toolwire_tools.MAX_FRAME_ENV: str(settings.python_max_frame_bytes),
    }
    listener = await anyio.create_unix_listener(env[toolwire_tools.SOCKET_ENV])
    ended: ProcessResult | Err
    try:
        async with anyio.create_task_group() as serving:
            serving.start_soon(bridge.serve, listener)
            try:
                ended = await runner.spawn(
                    settings.python_executable,
                    ["-I", "-X", "utf8", os.path.join(run_dir, "toolwire_tools.py")],
                    cwd=ctx.working_dir or run_dir,
                    env=env,
                    timeout=settings.timeout_s,
                )
            except CapabilityError as exc:  # the required sandbox cannot run here
                ended = _unsandboxed(str(exc))
            except OSError as exc:
                ended = Err(
                    f"runtime='python': the program could not be started: {exc}",
                    ErrorCode.EXECUTION_FAILED,
                    cause=type(exc).__name__,
                )
            with anyio.move_on_after(_DRAIN_S):
                await bridge.drained()
            serving.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await listener.aclose()
    return ended


def _answer(
    bridge: ProgramBridge, ended: ProcessResult, settings: CodeModeSettings, stop: AbortSignal
) -> ToolResult:
    printed = cut_output(ended.stdout + ended.stderr, settings.max_output_chars)
    if bridge.waiting:
        return _approval_required(tuple(bridge.waiting))
    if ended.timed_out:
        return Err(
            f"The program ran longer than {settings.timeout_s:g} s (its inner calls included) "
            "and was stopped with everything it started",
            ErrorCode.EXECUTION_FAILED,
            cause="limit",
        )
    if ended.aborted:
        return Err(f"The program was stopped: {stop.reason}", cause="aborted")
    report = bridge.report or {}
    op = report.get("op")
    if op == "invalid":
        line, text = report.get("line"), report.get("text")
        where = f"line {line}: " if isinstance(line, int) else ""
        if isinstance(text, str) and text.strip():
            where += f"`{text.strip()[:200]}`: "
        return Err(
            f"The program is not valid Python: {where}{str(report.get('message'))[:500]}",
            ErrorCode.INPUT_INVALID,
            field="code",
        )
    if op == "raised":
        trace = cut_output(str(report.get("traceback")), _TRACE_CHARS)
        output = f"\nIts output:\n{printed}" if printed else ""
        return Err(
            f"The program raised an exception:\n{trace}{output}",
            ErrorCode.EXECUTION_FAILED,
            cause="limit" if report.get("limit") is True else "exception",
        )
    if op != "end" and ended.exit_code != 0:
        return Err(
            f"The program's process exited with code {ended.exit_code} before it finished"
            + (f":\n{printed}" if printed else ""),
            ErrorCode.EXECUTION_FAILED,
            cause="exited",
        )
    cost = bridge.inner.cost_usd
    return finished_result(report.get("value"), printed, bridge.calls, cost, runtime="python")


def _unsandboxed(why: str | None) -> Err:
    if why is None:
        from toolwire.capabilities.kinds.process.sandbox._probe import probe_bubblewrap

        probe = probe_bubblewrap()
        why = probe.reason if not probe.usable else "the process backend does not sandbox"
    return Err(
        f"runtime='python' runs programs only in the command sandbox, and commands here are "
        f"not sandboxed ({why}); use runtime='monty' (or set [code_mode] python_unsandboxed = "
        "true to allow unsandboxed programs)",
        ErrorCode.NOT_AVAILABLE,
        reason="sandbox_unavailable",
    )


def _approval_required(waiting: tuple[Approval, ...]) -> Err:
    lines = [
        waiting_call(
            item.call.tool_name,
            item.call.args,
            item.token,
            " after the program read untrusted output" if item.why == "untrusted_to_sink" else "",
        )
        for item in waiting
    ]
    return Err(
        "The program was stopped: its "
        + "; ".join(lines)
        + " requires approval before it runs. A runtime='python' program cannot wait for a "
        "human: once the user approves, the same run_code call runs the program again from "
        "the start, and the approved call then runs (use runtime='monty' to pause and resume "
        "instead)",
        ErrorCode.NOT_AVAILABLE,
        reason="approval_required",
    )
