"""``lint``, ``typecheck`` and ``run_tests`` (toolset ``code``), built for a `Toolchains`.

Each declares ``process([...])`` with exactly the checkers it may run (`BINARIES`), whose
children may read what those checkers need to run (`toolwire.toolbox.code.sandbox_roots`,
found when the tool is built), and file reach (``from-personality``, both sides: reading finds
the project, writing is for fixes, caches and reports). ``is_available`` is false when none of
the checkers of its kind is installed (`PROBES`), checked at most every 30 s. The checkers'
timeouts come from `CodeSettings` (``[code]`` in ``toolwire.toml``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.availability import Gate, Unavailable
from toolwire.capabilities import fs_reach, process
from toolwire.config._code import CodeSettings
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.results import ToolResult
from toolwire.tool_options import ToolOptions
from toolwire.toolbox.code._checking import run_check
from toolwire.toolbox.code._ecosystems import BINARIES, PROBES, CheckKind
from toolwire.toolbox.code._failures import TOOL_NOT_INSTALLED
from toolwire.toolbox.code._toolchains import Toolchains
from toolwire.toolbox.code.sandbox_roots import checker_roots
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
LINT_TIMEOUT_S = CodeSettings().lint_timeout_s
"""Seconds one linter run may take, by default (``[code] lint_timeout_s``)."""
TYPECHECK_TIMEOUT_S = CodeSettings().typecheck_timeout_s
"""Seconds one type checker run may take, by default (``[code] typecheck_timeout_s``)."""
TESTS_TIMEOUT_S = CodeSettings().tests_timeout_s
"""Seconds one test run may take, by default (``[code] tests_timeout_s``)."""


def _code_tool(
    toolchains: Toolchains,
    kind: CheckKind,
    *,
    name: str,
    timeout_s: float,
    annotations: ToolAnnotations,
) -> Callable[[Callable[..., Any]], Tool]:
    """``@tool`` for a code tool of ``kind``: its checkers (`BINARIES`) and what they need to
    run, file reach both sides, available while one of its checkers is installed (`PROBES`)."""
    needed = checker_roots((*BINARIES[kind], *PROBES[kind]), toolchains.dirs())
    missing = Unavailable(
        reason=TOOL_NOT_INSTALLED,
        message=f"{name}: none of its checkers ({', '.join(PROBES[kind])}) is installed beside "
        "toolwire, in the toolchain homes or on PATH",
    )
    return tool(
        name=name,
        capabilities=[
            process(BINARIES[kind], read=needed),
            fs_reach(read="from-personality", write="from-personality"),
        ],
        options=ToolOptions(
            toolset="code",
            is_available=Gate(lambda: None if toolchains.any_installed(PROBES[kind]) else missing),
            max_result_chars=CODE_MAX_CHARS,
            output_is_untrusted=True,
            timeout_s=timeout_s,
            annotations=annotations,
        ),
    )


def make_lint(toolchains: Toolchains, settings: CodeSettings | None = None) -> Tool:
    """The ``lint`` tool, finding checkers through ``toolchains``, with ``settings``'s
    timeout."""
    limit = (settings or CodeSettings()).lint_timeout_s

    @_code_tool(
        toolchains,
        "lint",
        name="lint",
        timeout_s=3 * limit,
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
        return await run_check(ctx, "lint", path, toolchains=toolchains, timeout_s=limit, fix=fix)

    return lint


def make_typecheck(toolchains: Toolchains, settings: CodeSettings | None = None) -> Tool:
    """The ``typecheck`` tool, finding checkers through ``toolchains``, with ``settings``'s
    timeout."""
    limit = (settings or CodeSettings()).typecheck_timeout_s

    @_code_tool(
        toolchains,
        "typecheck",
        name="typecheck",
        timeout_s=2 * limit,
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
        return await run_check(ctx, "typecheck", path, toolchains=toolchains, timeout_s=limit)

    return typecheck


def make_run_tests(toolchains: Toolchains, settings: CodeSettings | None = None) -> Tool:
    """The ``run_tests`` tool, finding test runners through ``toolchains``, with
    ``settings``'s timeout."""
    limit = (settings or CodeSettings()).tests_timeout_s

    @_code_tool(
        toolchains,
        "tests",
        name="run_tests",
        timeout_s=2 * limit,
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
            timeout_s=limit,
            selector=selector,
        )

    return run_tests
