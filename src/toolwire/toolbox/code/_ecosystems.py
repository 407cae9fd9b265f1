"""The table of ecosystems: which checker each code tool runs for each, and what it needs.

| ecosystem | lint | typecheck | run_tests |
| --- | --- | --- | --- |
| ``python`` | ruff | pyright or mypy | pytest |
| ``javascript`` | eslint | tsc (with a ``tsconfig.json``) | vitest or jest (the test script's) |
| ``rust`` | cargo clippy | cargo check | cargo test |
| ``go`` | go vet | go build | go test |
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from toolwire.results import Err
from toolwire.toolbox.code._diagnostics import CheckRun
from toolwire.toolbox.code._go_checks import go_lint, go_tests, go_typecheck
from toolwire.toolbox.code._javascript_checks import javascript_lint, javascript_typecheck
from toolwire.toolbox.code._javascript_tests import javascript_tests
from toolwire.toolbox.code._pytest_checks import python_tests
from toolwire.toolbox.code._python_checks import python_lint, python_typecheck
from toolwire.toolbox.code._running import CheckRequest
from toolwire.toolbox.code._rust_checks import rust_lint, rust_tests, rust_typecheck

__all__ = ["BINARIES", "CHECKS", "PROBES", "CheckFn", "CheckKind", "Ecosystem"]

CheckKind: TypeAlias = Literal["lint", "typecheck", "tests"]
CheckFn: TypeAlias = Callable[[CheckRequest], Awaitable[CheckRun | Err]]


@dataclass(frozen=True, kw_only=True, slots=True)
class Ecosystem:
    """One ecosystem's checkers, by kind."""

    name: str
    lint: CheckFn
    typecheck: CheckFn
    tests: CheckFn

    def check(self, kind: CheckKind) -> CheckFn:
        """The checker of ``kind``."""
        return (
            self.lint if kind == "lint" else self.typecheck if kind == "typecheck" else self.tests
        )


CHECKS: dict[str, Ecosystem] = {
    "python": Ecosystem(
        name="python", lint=python_lint, typecheck=python_typecheck, tests=python_tests
    ),
    "javascript": Ecosystem(
        name="javascript",
        lint=javascript_lint,
        typecheck=javascript_typecheck,
        tests=javascript_tests,
    ),
    "rust": Ecosystem(name="rust", lint=rust_lint, typecheck=rust_typecheck, tests=rust_tests),
    "go": Ecosystem(name="go", lint=go_lint, typecheck=go_typecheck, tests=go_tests),
}
"""Every ecosystem's checkers, by name (`toolwire.toolbox.code._projects.ECOSYSTEMS`)."""

BINARIES: dict[CheckKind, tuple[str, ...]] = {
    "lint": ("ruff", "eslint", "cargo", "go"),
    "typecheck": ("mypy", "pyright", "tsc", "cargo", "go"),
    "tests": ("pytest", "vitest", "jest", "npm", "cargo", "go"),
}
"""What each tool declares in ``process([...])``: the only binaries it may run."""

PROBES: dict[CheckKind, tuple[str, ...]] = {
    "lint": ("ruff", "node", "cargo", "go"),
    "typecheck": ("mypy", "pyright", "node", "cargo", "go"),
    "tests": ("pytest", "node", "cargo", "go"),
}
"""What ``is_available`` looks for: one of them installed (``node`` stands for the project's
own eslint, tsc, vitest or jest in ``node_modules/.bin``)."""
