"""Rust: ``cargo clippy`` (lint), ``cargo check`` (types), ``cargo test`` (tests).

Every run uses ``--message-format=json`` (compiler messages as JSON lines on stdout, read by
`toolwire.toolbox.code._cargo_messages`) and covers all targets (library, binaries, tests,
examples). ``fix=True`` runs ``cargo clippy --fix --allow-dirty --allow-staged
--allow-no-vcs`` between two plain runs and reports the difference.

``cargo test --no-fail-fast`` runs every test binary; results come from libtest's own output
(stable Rust prints no JSON for tests). A ``path`` under ``tests/`` runs that integration test
only (``--test <name>``); any other path runs the whole package. The selector is libtest's
name filter (passed after ``--``). When the code does not compile the run is ``build_failed``
with the errors.

cargo is found on the search path (``~/.cargo/bin`` by default, or ``$CARGO_HOME/bin``); the
rustup proxies find their toolchain through ``HOME`` (or ``RUSTUP_HOME``, passed on when set).
"""

from __future__ import annotations

import os

import toolwire.toolbox.code._failures as failures
from toolwire.capabilities.seams import ProcessResult
from toolwire.results import Err
from toolwire.toolbox.code._cargo_messages import parse_cargo_messages, parse_libtest
from toolwire.toolbox.code._diagnostics import CheckRun, RunStatus
from toolwire.toolbox.code._parsing import fixed_diagnostics
from toolwire.toolbox.code._running import CheckRequest

__all__ = ["rust_lint", "rust_tests", "rust_typecheck"]

_ENV = {"CARGO_TERM_COLOR": "never", "RUST_BACKTRACE": "0"}
_INSTALL = "install Rust with rustup (https://rustup.rs); clippy: rustup component add clippy"
_FIX = ["--fix", "--allow-dirty", "--allow-staged", "--allow-no-vcs"]


async def _cargo(request: CheckRequest, label: str, args: list[str]) -> ProcessResult | Err:
    if await request.which("cargo") is None:
        return failures.not_installed("cargo", _INSTALL)
    result = await request.run(label, "cargo", args, env=_ENV)
    if isinstance(result, Err):
        return result
    if "no such command" in result.stderr:
        return failures.not_installed(label, _INSTALL)
    return result


async def _compile_check(request: CheckRequest, subcommand: str, fix: bool) -> CheckRun | Err:
    label = f"cargo {subcommand}"
    args = [subcommand, "--message-format=json", "--all-targets", *(_FIX if fix else [])]
    result = await _cargo(request, label, args)
    if isinstance(result, Err):
        return result
    found = parse_cargo_messages(result.stdout, request.root, label)
    if result.exit_code != 0 and not any(d.severity == "error" for d in found):
        return failures.crashed(label, result)
    return CheckRun.of_check(label, "rust", ("cargo", *args), result.exit_code, found)


async def rust_lint(request: CheckRequest) -> CheckRun | Err:
    """``cargo clippy`` over the package; with ``request.fix``, its fixes."""
    before = await _compile_check(request, "clippy", fix=False)
    if isinstance(before, Err) or not request.fix:
        return before
    applied = await _compile_check(request, "clippy", fix=True)
    if isinstance(applied, Err):
        return applied
    after = await _compile_check(request, "clippy", fix=False)
    if isinstance(after, Err):
        return after
    return CheckRun(
        tool=after.tool,
        ecosystem="rust",
        command=applied.command,
        exit_code=after.exit_code,
        status=after.status,
        diagnostics=after.diagnostics,
        fixed=fixed_diagnostics(before.diagnostics, after.diagnostics),
    )


async def rust_typecheck(request: CheckRequest) -> CheckRun | Err:
    """``cargo check`` over the package."""
    return await _compile_check(request, "check", fix=False)


def _narrowing(request: CheckRequest) -> tuple[list[str], tuple[str, ...]]:
    target = request.target
    if not target:
        return [], ()
    parts = target.split("/")
    if len(parts) == 2 and parts[0] == "tests" and parts[1].endswith(".rs"):
        return ["--test", os.path.splitext(parts[1])[0]], ()
    return [], (f"cargo test runs the whole package; {target} did not narrow it",)


async def rust_tests(request: CheckRequest) -> CheckRun | Err:
    """``cargo test`` over the package (see the module docstring)."""
    narrowing, notes = _narrowing(request)
    args = ["test", "--message-format=json", "--no-fail-fast", *narrowing]
    if request.selector:
        args += ["--", request.selector]  # libtest's name filter, after cargo's own options
    result = await _cargo(request, "cargo test", args)
    if isinstance(result, Err):
        return result
    found = parse_cargo_messages(result.stdout, request.root, "cargo test")
    diagnostics = [d for d in found if d.severity == "error"]  # warnings belong to lint
    tests = parse_libtest(result.stdout, request.root)
    errors = bool(diagnostics)
    status: RunStatus
    if result.exit_code == 0:
        status = "passed" if tests else "no_tests"
    elif errors and not tests:
        status = "build_failed"
    elif any(t.outcome == "failed" for t in tests):
        status = "failed"
    else:
        return failures.crashed("cargo test", result)
    return CheckRun(
        tool="cargo test",
        ecosystem="rust",
        command=("cargo", *args),
        exit_code=result.exit_code,
        status=status,
        diagnostics=tuple(diagnostics),
        tests=tuple(tests),
        notes=notes,
    )
