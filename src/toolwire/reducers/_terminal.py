"""The ``terminal`` reducer: git status, test runs, installs, then head + tail.

The terminal tool answers ``Ok(<stdout+stderr>)`` or, when the command exits non-zero,
``Err(execution_failed, "Command exited with code N\\n<output>")``. Both are reduced — a failing
test run is when its output matters most — and the ``Command exited`` line is kept as is. The
command comes from ``args["command"]``. Rules, first match wins:

1. ``git status`` (porcelain or human form) → a summary by kind (`toolwire.reducers._git_status`);
2. a test run → failures, tracebacks and summary (`toolwire.reducers.test_runs`);
3. an install → added/removed, warnings, errors (`toolwire.reducers._installs`);
4. anything over 8 KiB → head + tail with diagnostics kept (`toolwire.reducers._head_tail`).

The spill pointer (``[full output: <path> (<n> chars)]``) survives exactly once, and a rewrite
that would not be shorter than the original is discarded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from toolwire.reducers._git_status import (
    is_git_status_command,
    parse_git_status,
    summarise_git_status,
)
from toolwire.reducers._head_tail import reduce_head_tail
from toolwire.reducers._installs import is_install_command, reduce_install_output
from toolwire.reducers._registry import GuardedReducer, ReducerContext
from toolwire.reducers._spill import attach_spill_pointer, split_spill_pointer
from toolwire.reducers.test_runs import detect_test_runner, reduce_test_output
from toolwire.results import ErrorCode, Ok, ToolResult
from toolwire.safety.linear_regex import linear

__all__ = ["TerminalReducer", "reduce_terminal_output"]

_EXIT_LINE = linear(r"\ACommand exited with code -?\d+\r?\n")


class TerminalReducer(GuardedReducer):
    """Reduces the ``terminal`` tool's results; see the module docstring for the rules."""

    tool_name = "terminal"

    def _reduce(self, result: ToolResult, ctx: ReducerContext) -> ToolResult:
        command = _command_of(ctx)
        if isinstance(result, Ok):
            original = result.value
            rewritten = _rewrite(command, original)
            if rewritten is None:
                return result
            return dataclasses.replace(result, value=rewritten)
        if result.code is not ErrorCode.EXECUTION_FAILED:
            return result
        exit_line = _EXIT_LINE.match(result.error)
        if exit_line is None:
            return result
        body = result.error[exit_line.end() :]
        rewritten = _rewrite(command, body)
        if rewritten is None:
            return result
        return dataclasses.replace(result, error=exit_line.group(0) + rewritten)


def _command_of(ctx: ReducerContext) -> str:
    args: Any = getattr(ctx, "args", None)
    command = args.get("command") if hasattr(args, "get") else None
    return command if isinstance(command, str) else ""


def _rewrite(command: str, original: str) -> str | None:
    body, pointer = split_spill_pointer(original)
    reduced = reduce_terminal_output(command, body)
    if reduced is None:
        return None
    rewritten = attach_spill_pointer(reduced, pointer)
    if len(rewritten) >= len(original):
        return None
    return rewritten


def reduce_terminal_output(command: str, output: str) -> str | None:
    """Apply the first matching rule to ``output``; ``None`` when no rule applies.

    Args:
        command: The shell command that produced the output (may be empty).
        output: The command's combined stdout and stderr, without the spill pointer.
    """
    rules: tuple[Callable[[str, str], str | None], ...] = (_git_status, _test_run, _install)
    for rule in rules:
        reduced = rule(command, output)
        if reduced is not None:
            return reduced
    return reduce_head_tail(output)


def _git_status(command: str, output: str) -> str | None:
    if not is_git_status_command(command):
        return None
    status = parse_git_status(output)
    return None if status is None else summarise_git_status(status)


def _test_run(command: str, output: str) -> str | None:
    runner = detect_test_runner(command, output)
    return None if runner is None else reduce_test_output(runner, output)


def _install(command: str, output: str) -> str | None:
    return reduce_install_output(output) if is_install_command(command) else None
