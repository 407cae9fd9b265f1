"""``lint``, ``typecheck`` and ``run_tests`` (toolset ``code``), built for a `Toolchains`.

Each declares ``process([...])`` with exactly the checkers it may run (`BINARIES`) and file
reach (``from-personality``, both sides: reading finds the project, writing is for fixes,
caches and reports). ``is_available`` is false when none of the checkers of its kind is
installed (`PROBES`), checked at most every 30 s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.capabilities import fs_reach, process
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.results import ToolResult
from toolwire.toolbox.code.checking import run_check
from toolwire.toolbox.code.ecosystems import BINARIES, PROBES, CheckKind
from toolwire.toolbox.code.toolchains import Toolchains
from toolwire.tools import Tool, ToolAnnotations

__all__ = [
    "CODE_MAX_CHARS",
    "LINT_TIMEOUT_S",
    "TESTS_TIMEOUT_S",
    "TYPECHECK_TIMEOUT_S",
    "make_lint",
    "make_run_tests",
    "make_typecheck",
]

CODE_MAX_CHARS = 20_000
"""Each code tool's ``max_result_chars``."""
LINT_TIMEOUT_S = 240.0
"""Seconds one linter run may take."""
TYPECHECK_TIMEOUT_S = 300.0
"""Seconds one type checker run may take."""
TESTS_TIMEOUT_S = 600.0
"""Seconds one test run may take."""


def _code_tool(
    toolchains: Toolchains,
    kind: CheckKind,
    *,
    name: str,
    timeout_s: float,
    annotations: ToolAnnotations,
) -> Callable[[Callable[..., Any]], Tool]:
    """``@tool`` for a code tool of ``kind``: its checkers (`BINARIES`), file reach both
    sides, available while one of its checkers is installed (`PROBES`)."""
    return tool(
        name=name,
        toolset="code",
        capabilities=[
            process(BINARIES[kind]),
            fs_reach(read="from-personality", write="from-personality"),
        ],
        is_available=lambda: toolchains.any_installed(PROBES[kind]),
        max_result_chars=CODE_MAX_CHARS,
        output_is_untrusted=True,
        timeout_s=timeout_s,
        annotations=annotations,
    )


def make_lint(toolchains: Toolchains) -> Tool:
    """The ``lint`` tool, finding checkers through ``toolchains``."""

    @_code_tool(
        toolchains,
        "lint",
        name="lint",
        timeout_s=3 * LINT_TIMEOUT_S,
        annotations=ToolAnnotations(title="Lint", destructive=False, open_world=False),
    )
    async def lint(ctx: ToolContext, path: str | None = None, fix: bool = False) -> ToolResult:
        """Lint the project (ruff, eslint, cargo clippy or go vet, detected from its files).

        Returns the counts, then every problem grouped by file (line:column severity code
        message). Problems marked fixable can be fixed automatically with fix=true, which
        changes the files and reports what it fixed.

        Args:
            path: A file or directory to lint (default: the whole project of the working
                directory); the project is found from the files at or above it.
            fix: Apply the linter's safe automatic fixes.
        """
        return await run_check(
            ctx, "lint", path, toolchains=toolchains, timeout_s=LINT_TIMEOUT_S, fix=fix
        )

    return lint


def make_typecheck(toolchains: Toolchains) -> Tool:
    """The ``typecheck`` tool, finding checkers through ``toolchains``."""

    @_code_tool(
        toolchains,
        "typecheck",
        name="typecheck",
        timeout_s=2 * TYPECHECK_TIMEOUT_S,
        annotations=ToolAnnotations(title="Type check", read_only=True, open_world=False),
    )
    async def typecheck(ctx: ToolContext, path: str | None = None) -> ToolResult:
        """Type-check the project (mypy or pyright, tsc, cargo check or go build).

        Returns the counts, then every type error grouped by file (line:column severity code
        message).

        Args:
            path: A file or directory to check (default: the whole project of the working
                directory); the project is found from the files at or above it.
        """
        return await run_check(
            ctx, "typecheck", path, toolchains=toolchains, timeout_s=TYPECHECK_TIMEOUT_S
        )

    return typecheck


def make_run_tests(toolchains: Toolchains) -> Tool:
    """The ``run_tests`` tool, finding test runners through ``toolchains``."""

    @_code_tool(
        toolchains,
        "tests",
        name="run_tests",
        timeout_s=2 * TESTS_TIMEOUT_S,
        annotations=ToolAnnotations(title="Run tests", destructive=False, open_world=True),
    )
    async def run_tests(
        ctx: ToolContext, path: str | None = None, selector: str | None = None
    ) -> ToolResult:
        """Run the project's tests (pytest, vitest or jest, cargo test or go test).

        Returns the counts, then every failed test grouped by file with its message and the
        end of its traceback. Passing tests are counted, not listed.

        Args:
            path: A test file or directory (default: all the project's tests); the project is
                found from the files at or above it.
            selector: Which tests: a test name or pattern (pytest -k, vitest/jest -t, cargo
                test filter, go test -run), or a pytest node id such as
                tests/test_a.py::test_one.
        """
        return await run_check(
            ctx,
            "tests",
            path,
            toolchains=toolchains,
            timeout_s=TESTS_TIMEOUT_S,
            selector=selector,
        )

    return run_tests
