"""Background-process tools (toolset ``process``), over the process seam.

``process_start`` runs a long-lived command (a dev server, a watcher, a build) in the
background and answers its id at once; ``process_list``, ``process_logs``, ``process_wait``,
``process_watch`` and ``process_stop`` act on it later. They use only
``ctx.scoped_process.background``: the call owner's background processes on the backends'
process backend, so whatever wraps that backend (a sandbox) covers them too. The backends own
the processes: closing them (or the registry) stops everything still running. Processes
belong to the personality that started them (``ctx.personality_id``, ``"default"`` without
one), at most 8 running at once with the local backend.

The tools declare ``process(["bash"])``: a registry without backends refuses them like every other
capability tool, and a backend without background support answers ``not_available`` with a setup
hint. ``process_start`` also declares file reach (the personality's): it checks ``cwd``, and a
sandboxing backend (`toolwire.capabilities.kinds.process.sandbox`) confines each process to it, one
sandbox (and pid namespace) per process, ended by ``process_stop``. Without a sandbox, the first
start emits a ``user`` progress warning saying commands run unsandboxed.
"""

from __future__ import annotations

import re
import time
from typing import Literal

from toolwire.capabilities import fs_reach, process
from toolwire.capabilities.seams import (
    DEFAULT_OWNER,
    STREAMS,
    BackgroundProcess,
    BackgroundProcesses,
    ElsewhereError,
    LogStream,
)
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import CapabilityError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tool_options import ToolOptions
from toolwire.toolbox._common import missing_seam, refused
from toolwire.toolbox._sandbox_notices import emit_sandbox_notice
from toolwire.toolbox._terminal import MAX_TIMEOUT_S, check_cwd
from toolwire.tools import Tool, ToolAnnotations

__all__ = ["BACKGROUND_SETUP_HINT", "DEFAULT_OWNER", "describe", "process_tools"]

_MAX_LOG_LINES = 2000
BACKGROUND_SETUP_HINT = (
    "the process backend runs no background processes; create the registry with "
    "backends=create_backends() (logs in <working_dir>/.toolwire/processes) or "
    "CapabilityBackends(processes=LocalProcessBackend(ProcessManager('/abs/log/dir')))"
)
"""How to get background processes; part of the answer when the backend has none."""


def describe(info: BackgroundProcess, now: float | None = None) -> str:
    """One line about a process: id, status, pid, age, name and command."""
    end = info.ended_at if info.ended_at is not None else (now or time.time())
    state = info.status if info.exit_code is None else f"{info.status} (code {info.exit_code})"
    command = info.command if len(info.command) <= 80 else info.command[:79] + "…"
    return (
        f"{info.id}  {state}  pid {info.pid}  {end - info.started_at:.0f}s  {info.name}: {command}"
    )


def _unknown(process_id: str, missing: LookupError | None = None) -> Err:
    if isinstance(missing, ElsewhereError):  # another replica's process (docs/scaling.md)
        return missing.to_err()
    return Err(
        f"No background process with id {process_id!r}; process_list shows yours.",
        ErrorCode.INPUT_INVALID,
        field="process_id",
    )


def _background(ctx: ToolContext, name: str) -> BackgroundProcesses | Err:
    """The call's background processes, or the ``not_available`` answer."""
    seam = ctx.scoped_process
    if seam is None:
        return missing_seam(name, "running processes")
    background = seam.background
    if background is None:
        return Err(
            f"{name}: {BACKGROUND_SETUP_HINT}.",
            ErrorCode.NOT_AVAILABLE,
            reason="capability_not_configured",
        )
    return background


def process_tools() -> list[Tool]:
    """The six background-process tools; they reach processes only through their seam."""
    caps = [process(["bash"])]

    @tool(
        capabilities=[
            process(["bash"]),
            fs_reach(read="from-personality", write="from-personality"),
        ],
        options=ToolOptions(
            toolset="process",
            max_result_chars=1024,
            annotations=ToolAnnotations(title="Start background process", open_world=True),
        ),
    )
    async def process_start(
        ctx: ToolContext,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        name: str | None = None,
    ) -> ToolResult:
        """Start a long-running command (server, watcher, build) in the background.

        Answers its id at once; read its output with process_logs, wait for a line with
        process_watch, end it with process_stop. At most 8 may run at once.

        Args:
            command: The bash command line.
            cwd: Working directory (default: the session's working directory).
            env: Extra environment variables.
            name: A short label to recognise it by.
        """
        if isinstance(background := _background(ctx, "process_start"), Err):
            return background
        if not command.strip():
            return Err("command is empty", ErrorCode.INPUT_INVALID, field="command")
        directory, problem = await check_cwd(ctx, cwd)
        if problem is not None:
            return Err(
                f"INVALID_CWD: {problem.error}", problem.code, field="cwd", reason=problem.reason
            )
        emit_sandbox_notice(ctx, ctx.scoped_process, "process_start")
        try:
            info = await background.start(command, cwd=directory, env=env, name=name)
        except CapabilityError as exc:
            return refused(exc)
        except OSError as exc:
            return Err(f"SPAWN_FAILED: {exc.strerror or exc}", cause=type(exc).__name__)
        return Ok(
            f"Started {info.id} (pid {info.pid}, {info.name}). Use process_logs or "
            f"process_watch with process_id={info.id!r}; process_stop ends it.",
            structured={"process_id": info.id, "pid": info.pid, "name": info.name},
        )

    @tool(
        capabilities=caps,
        options=ToolOptions(
            toolset="process",
            annotations=ToolAnnotations(
                title="List background processes", read_only=True, open_world=False
            ),
        ),
    )
    async def process_list(ctx: ToolContext) -> ToolResult:
        """List your background processes: id, status, pid, age, name and command."""
        if isinstance(background := _background(ctx, "process_list"), Err):
            return background
        try:
            found = await background.list()
        except CapabilityError as exc:
            return refused(exc)
        if not found:
            return Ok("No background processes.")
        now = time.time()
        return Ok("\n".join(describe(info, now) for info in found))

    @tool(
        capabilities=caps,
        options=ToolOptions(
            toolset="process",
            max_result_chars=64_000,
            output_is_untrusted=True,
            annotations=ToolAnnotations(
                title="Background process logs", read_only=True, open_world=False
            ),
        ),
    )
    async def process_logs(
        ctx: ToolContext,
        process_id: str,
        lines: int = 200,
        stream: Literal["stdout", "stderr", "both"] = "both",
    ) -> ToolResult:
        """Show the last lines a background process wrote.

        Args:
            process_id: The id process_start answered.
            lines: How many of the last lines, per stream (1-2000).
            stream: stdout, stderr or both (stdout first).
        """
        if isinstance(background := _background(ctx, "process_logs"), Err):
            return background
        count = min(max(lines, 1), _MAX_LOG_LINES)
        try:
            info = await background.get(process_id)
            sections = []
            for name in STREAMS:
                if stream not in (name, "both"):
                    continue
                tail = await background.read_tail(process_id, stream=name, lines=count)
                body = "\n".join(tail) if tail else "(no output)"
                sections.append(f"--- {name} (last {len(tail)} lines) ---\n{body}")
        except LookupError as missing:
            return _unknown(process_id, missing)
        except CapabilityError as exc:
            return refused(exc)
        return Ok(describe(info) + "\n" + "\n".join(sections))

    @tool(
        capabilities=caps,
        options=ToolOptions(
            toolset="process",
            annotations=ToolAnnotations(
                title="Stop background process", destructive=True, open_world=False
            ),
        ),
    )
    async def process_stop(ctx: ToolContext, process_id: str) -> ToolResult:
        """Stop a background process and everything it started (SIGTERM, then SIGKILL after 5 s).

        Args:
            process_id: The id process_start answered.
        """
        if isinstance(background := _background(ctx, "process_stop"), Err):
            return background
        try:
            before = await background.get(process_id)
            info = await background.stop(process_id)
        except LookupError as missing:
            return _unknown(process_id, missing)
        except CapabilityError as exc:
            return refused(exc)
        if before.status != "running":
            return Ok(f"{process_id} had already ended: {describe(info)}")
        return Ok(f"Stopped {describe(info)}")

    @tool(
        capabilities=caps,
        options=ToolOptions(
            toolset="process",
            timeout_s=MAX_TIMEOUT_S + 30,
            annotations=ToolAnnotations(
                title="Wait for background process", read_only=True, open_world=False
            ),
        ),
    )
    async def process_wait(ctx: ToolContext, process_id: str, timeout_s: float = 30) -> ToolResult:
        """Wait until a background process ends, at most `timeout_s` seconds (0-600).

        Args:
            process_id: The id process_start answered.
            timeout_s: The longest to wait; still running then is not an error.
        """
        if isinstance(background := _background(ctx, "process_wait"), Err):
            return background
        limit = min(max(timeout_s, 0.0), MAX_TIMEOUT_S)
        try:
            info = await background.wait(process_id, timeout_s=limit)
        except LookupError as missing:
            return _unknown(process_id, missing)
        except CapabilityError as exc:
            return refused(exc)
        if info.status == "running":
            return Ok(f"{process_id} is still running after {limit:g} s.")
        return Ok(f"{process_id} ended: {describe(info)}")

    @tool(
        capabilities=caps,
        options=ToolOptions(
            toolset="process",
            max_result_chars=4096,
            output_is_untrusted=True,
            timeout_s=MAX_TIMEOUT_S + 30,
            annotations=ToolAnnotations(
                title="Watch background process output", read_only=True, open_world=False
            ),
        ),
    )
    async def process_watch(
        ctx: ToolContext,
        process_id: str,
        patterns: list[str],
        timeout_s: float = 60,
        stream: Literal["stdout", "stderr", "both"] = "both",
    ) -> ToolResult:
        """Wait for a background process to print a line matching one of `patterns`.

        A pattern is a plain substring, or `/regex/`. Lines already written count. Returns at
        the first match, when the process ends, or after `timeout_s` (0-600).

        Args:
            process_id: The id process_start answered.
            patterns: Substrings or /regex/ patterns, e.g. ["listening on", "/error|failed/"].
            timeout_s: The longest to wait.
            stream: stdout, stderr or both.
        """
        if isinstance(background := _background(ctx, "process_watch"), Err):
            return background
        if not patterns or any(not p for p in patterns):
            return Err(
                "patterns must be non-empty strings", ErrorCode.INPUT_INVALID, field="patterns"
            )
        limit = min(max(timeout_s, 0.0), MAX_TIMEOUT_S)
        streams: tuple[LogStream, ...] = STREAMS if stream == "both" else (stream,)
        try:
            seen = await background.watch(
                process_id, patterns=patterns, timeout_s=limit, streams=streams
            )
        except LookupError as missing:
            return _unknown(process_id, missing)
        except CapabilityError as exc:
            return refused(exc)
        except re.error as exc:
            return Err(f"invalid /regex/ pattern: {exc}", ErrorCode.INPUT_INVALID, field="patterns")
        if seen.matched:
            return Ok(f"Matched {seen.pattern!r} in {seen.stream}: {seen.line}")
        if seen.process.status != "running":
            return Ok(f"No match; the process ended: {describe(seen.process)}")
        return Ok(f"No match within {limit:g} s; {process_id} is still running.")

    return [process_start, process_list, process_logs, process_stop, process_wait, process_watch]
