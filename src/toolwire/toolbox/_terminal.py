"""``terminal`` (toolset ``terminal``): run a shell command to completion.

The command runs as ``bash -c`` through the tool's ``ScopedProcess``: no host shell around it,
a scrubbed environment, stdin closed, its own process group. stderr is merged into stdout
(``exec 2>&1`` before the command), so the output keeps the order it was written in.

* ``timeout_s`` is clamped to 1-600 s; at the deadline, or when the call is aborted, the whole
  process tree (children and grandchildren) is killed.
* exit 0 → ``Ok(<output>)`` (``(command completed with no output)`` when empty);
* any other exit → ``Err(execution_failed, "Command exited with code N\\n<output>")``; a timeout
  reports code 124 and a line saying it timed out.
* output over the call's budget is written to a spill file (`toolwire.toolbox._spill`) and the
  result keeps its head, its tail and the spill pointer ``[full output: <path> (<n> chars)]``
  (``[partial output: ...]``, with the bytes the command really wrote, when the process runner
  kept only the head and tail of it); a success also carries ``structured["spill"]`` =
  ``{path, total_bytes, kept_bytes}``. Pointer-shaped lines of the command's own output are
  defused, so the pointer always comes from the tool.
* ``cwd`` (default: the working directory) must be a directory inside the tool's read reach.

With a sandboxing process backend (the default where bubblewrap runs,
`toolwire.capabilities.kinds.process.sandbox`) the command sees only the system (read-only) and the
tool's file reach: read roots read-only, write roots read-write, the sensitive-path floor and
toolwire's state hidden, no network, its own pid namespace (everything it started dies with it).
Without one it runs anything bash can: the command guard (`toolwire.toolbox.guard`) refuses the
catastrophic commands, but it is a guard, not a sandbox; the first command then emits a ``user``
progress warning saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolwire.capabilities import fs_reach, process
from toolwire.capabilities.seams import ProcessResult
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import CapabilityError
from toolwire.results import Err, ErrorCode, Ok, ToolResult
from toolwire.tool_options import ToolOptions
from toolwire.toolbox._common import missing_seam, refused, resolve_target
from toolwire.toolbox._sandbox_notices import emit_sandbox_notice
from toolwire.toolbox._spill import (
    OutputSize,
    defuse_pointers,
    inline_with_spill,
    output_size,
    spill_facts,
    spill_output,
)
from toolwire.tools import ToolAnnotations

__all__ = [
    "MAX_TIMEOUT_S",
    "TERMINAL_MAX_CHARS",
    "check_cwd",
    "clamp_timeout",
    "combined_output",
    "terminal",
]

MAX_TIMEOUT_S = 600.0
"""The longest a command may run."""
TERMINAL_MAX_CHARS = 20_000
"""``terminal``'s ``max_result_chars``."""
_NO_OUTPUT = "(command completed with no output)"


def clamp_timeout(timeout_s: float) -> float:
    """``timeout_s`` clamped to 1-600 seconds."""
    return min(max(float(timeout_s), 1.0), MAX_TIMEOUT_S)


def combined_output(result: ProcessResult) -> str:
    """stdout then stderr (when any), trailing whitespace removed."""
    parts = [part.rstrip() for part in (result.stdout, result.stderr) if part.strip()]
    return "\n".join(parts)


async def check_cwd(ctx: ToolContext, cwd: str | None) -> tuple[str, Err | None]:
    """The absolute working directory for a command, or the error that refuses it."""
    target = resolve_target(cwd, ctx.working_dir, "cwd") if cwd else ctx.working_dir
    if isinstance(target, Err):
        return cwd or "", target
    fs = ctx.scoped_fs
    if fs is None:
        return target, None
    try:
        if not await fs.exists(target):
            return target, Err(f"cwd {target} does not exist", ErrorCode.INPUT_INVALID, field="cwd")
        await fs.list_entries(target)
    except CapabilityError as exc:
        return target, refused(exc)
    except NotADirectoryError:
        return target, Err(f"cwd {target} is not a directory", ErrorCode.INPUT_INVALID, field="cwd")
    except OSError as exc:
        return target, Err(f"cwd {target}: {exc.strerror or exc}", ErrorCode.INPUT_INVALID)
    return target, None


@dataclass(frozen=True, kw_only=True, slots=True)
class _Fitted:
    text: str
    structured: dict[str, Any] | None = None


async def _fit(ctx: ToolContext, text: str, size: OutputSize, prefix: str = "") -> _Fitted:
    """``prefix + text``, with ``text`` spilled when the whole is over the call's budget."""
    budget = ctx.result_budget_chars
    if len(prefix) + len(text) <= budget:
        return _Fitted(text=prefix + defuse_pointers(text))
    path, failure = await spill_output(ctx, text)
    inline = inline_with_spill(text, budget - len(prefix), path, failure, size)
    return _Fitted(
        text=prefix + inline, structured=None if path is None else spill_facts(path, size)
    )


@tool(
    capabilities=[
        process(["bash"]),
        fs_reach(read="from-personality", write="from-personality"),
    ],
    options=ToolOptions(
        toolset="terminal",
        max_result_chars=TERMINAL_MAX_CHARS,
        output_is_untrusted=True,
        timeout_s=MAX_TIMEOUT_S + 30,
        annotations=ToolAnnotations(title="Terminal", destructive=True, open_world=True),
    ),
)
async def terminal(
    ctx: ToolContext, command: str, cwd: str | None = None, timeout_s: float = 30
) -> ToolResult:
    """Run a bash command and return its combined stdout and stderr.

    Non-zero exit codes are errors that include the output. Long output is cut to its head and
    tail, and the full text is saved to a file whose path is given. For servers and other
    long-running commands use process_start instead.

    Args:
        command: The bash command line (pipes, `&&` and redirections work).
        cwd: Working directory (default: the session's working directory).
        timeout_s: Seconds before the command and everything it started are killed (1-600).
    """
    runner = ctx.scoped_process
    if runner is None:
        return missing_seam("terminal", "running processes")
    if not command.strip():
        return Err("command is empty", ErrorCode.INPUT_INVALID, field="command")
    directory, problem = await check_cwd(ctx, cwd)
    if problem is not None:
        return problem
    emit_sandbox_notice(ctx, runner, "terminal")
    limit = clamp_timeout(timeout_s)
    try:
        result = await runner.spawn(
            "bash", ["-c", "exec 2>&1; " + command], cwd=directory, timeout=limit
        )
    except CapabilityError as exc:
        return refused(exc)
    except OSError as exc:
        return Err(f"Could not start the command: {exc.strerror or exc}", cause=type(exc).__name__)
    output = combined_output(result)
    size = output_size(result)
    if result.aborted:
        note = "[aborted: the command and every process it started were killed]"
        return Err((await _fit(ctx, output, size, f"{note}\n")).text, cause="aborted")
    if result.timed_out:
        head = (
            f"Command exited with code {result.exit_code}\n[timed out after {limit:g} s: the "
            "command and every process it started were killed]\n"
        )
        return Err((await _fit(ctx, output or "(no output)", size, head)).text, cause="timeout")
    if result.exit_code != 0:
        head = f"Command exited with code {result.exit_code}\n"
        fitted = await _fit(ctx, output or "(no output)", size, head)
        return Err(fitted.text, cause="exit_status")
    fitted = await _fit(ctx, output or _NO_OUTPUT, size)
    return Ok(fitted.text, structured=fitted.structured)
