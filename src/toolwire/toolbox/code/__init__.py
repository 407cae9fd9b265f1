"""Code checks (toolset ``code``): ``lint``, ``typecheck`` and ``run_tests``.

Each tool finds the project at or above ``path`` from its files and runs that ecosystem's own
checker through the process seam (so a sandboxed process backend covers it), reading the
checker's machine-readable output into structured diagnostics and test results:

| ecosystem | lint | typecheck | run_tests |
| --- | --- | --- | --- |
| Python | ruff | pyright or mypy | pytest (JUnit XML) |
| JavaScript / TypeScript | eslint | tsc | vitest or jest (JSON report) |
| Rust | cargo clippy | cargo check | cargo test |
| Go | go vet | go build | go test -json |

```python
from toolwire.toolbox.code import Toolchains, code_tools

registry.register_all(code_tools())                      # checkers from the default places
registry.register_all(code_tools(Toolchains(search_dirs=("/opt/tools/bin", "/usr/bin"))))
registry.register_all(code_tools(settings=CodeSettings(tests_timeout_s=1800)))  # [code]
```

The result is ``Ok`` whenever the checker ran, findings or not: the text gives the counts,
then every finding grouped by file; ``structured`` holds every diagnostic (file, line, column,
code, severity, message, tool) and test (name, outcome, duration, message, details). Errors
(`toolwire.toolbox.code._failures`) mean the checker could not run. Where checkers are looked
for: `toolwire.toolbox.code._toolchains`.

Rooms:

- ``_definitions.py`` (the three tools), ``_checking.py`` (their shared flow), ``_running.py``
  (`CheckRequest`), ``_toolchains.py``, ``sandbox_roots.py``, ``_projects.py`` (marker files),
  ``_ecosystems.py`` (the table: which checker per ecosystem);
- the checkers: ``_python_checks.py``, ``_pytest_checks.py``, ``_javascript_checks.py``,
  ``_javascript_tests.py``, ``_go_checks.py``, ``_rust_checks.py``, ``_report_lint.py``;
- reading them: ``_parsing.py``, ``_reports.py``, ``_junit.py``, ``_safe_xml.py``,
  ``_cargo_messages.py``; answering: ``_diagnostics.py``, ``_failures.py``, ``_rendering.py``.
"""

from __future__ import annotations

from toolwire.config._code import CodeSettings
from toolwire.toolbox.code._definitions import make_lint, make_run_tests, make_typecheck
from toolwire.toolbox.code._diagnostics import CheckRun, Diagnostic, TestOutcome
from toolwire.toolbox.code._projects import Project, detect_project
from toolwire.toolbox.code._toolchains import Toolchains
from toolwire.tools import Tool

__all__ = [
    "CheckRun",
    "CodeSettings",
    "Diagnostic",
    "Project",
    "TestOutcome",
    "Toolchains",
    "code_tools",
    "detect_project",
]


def code_tools(
    toolchains: Toolchains | None = None, settings: CodeSettings | None = None
) -> list[Tool]:
    """``lint``, ``typecheck`` and ``run_tests`` (toolset ``code``).

    Args:
        toolchains: Where to look for checkers (default: the project's own directories, the
            environment toolwire runs in, the toolchain homes, then ``PATH``).
        settings: The checkers' timeouts (default: 240, 300 and 600 s; ``[code]`` in
            ``toolwire.toml``).
    """
    chains = toolchains if toolchains is not None else Toolchains()
    return [
        make_lint(chains, settings),
        make_typecheck(chains, settings),
        make_run_tests(chains, settings),
    ]
