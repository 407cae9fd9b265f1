"""What the code tools answer when they cannot check: no project, no checker, a checker that
crashes, hangs or is aborted, a path out of reach; and where checkers are looked for."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import anyio
import pytest
from code_projects import call, code_registry, err_of, ok_of, write_tree

from toolwire.context import AbortSignal, ToolContext
from toolwire.results import ErrorCode
from toolwire.safety.sensitive_paths import is_sensitive
from toolwire.toolbox.code import CodeSettings, Toolchains, code_tools
from toolwire.toolbox.code._failures import (
    ABORTED,
    NO_CHECKER,
    TIMEOUT,
    TOOL_CRASHED,
    TOOL_NOT_INSTALLED,
)
from toolwire.toolbox.code.sandbox_roots import checker_roots

pytestmark = pytest.mark.anyio

RUFF_FINDING = (
    '[{"filename": "a.py", "location": {"row": 3, "column": 1}, "code": "X1", '
    '"message": "from the project ruff", "fix": null}]'
)


def executable(path: Path, script: str) -> Path:
    """Write a bash script at ``path`` and make it executable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/bash\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_ruff(project: Path, report: str, exit_code: int) -> Path:
    """A project-local ``ruff`` that writes ``report`` where it is told to (bash builtins
    only: the search path may hold nothing else)."""
    script = (
        "out=/dev/stdout\n"
        'while [ $# -gt 0 ]; do [ "$1" = --output-file ] && out=$2; shift; done\n'
        f"printf '%s' '{report}' > \"$out\"\nexit {exit_code}\n"
    )
    return executable(project / ".venv/bin/ruff", script)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "proj", {"pyproject.toml": "", "a.py": "x = 1\n"})


@pytest.fixture
def nowhere(tmp_path: Path) -> Toolchains:
    """A search path holding no checker at all."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    return Toolchains(search_dirs=(str(empty),))


@pytest.fixture
def only_node(tmp_path: Path) -> Toolchains:
    """A search path holding ``node`` and nothing else: the tools are listed (a project may
    hold its own eslint, tsc, vitest) but no Python checker is found."""
    executable(tmp_path / "node-bin" / "node", "exit 0\n")
    return Toolchains(search_dirs=(str(tmp_path / "node-bin"),))


async def test_a_path_in_no_project_is_input_invalid(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    error = err_of(await call(code_registry([bare]), bare, "lint"))
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.field == "path"
    assert error.error.startswith(f"No project found at or above {bare}")


async def test_a_missing_path_is_input_invalid(project: Path) -> None:
    error = err_of(await call(code_registry([project]), project, "typecheck", path="nope"))
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.field == "path"


async def test_a_path_out_of_reach_is_refused_by_the_seam(project: Path, tmp_path: Path) -> None:
    other = write_tree(tmp_path / "other", {"pyproject.toml": ""})
    error = err_of(await call(code_registry([project]), project, "lint", path=str(other)))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert error.error.startswith("PATH_NOT_REACHABLE:")


async def test_the_walk_up_stops_at_the_edge_of_reach(tmp_path: Path) -> None:
    outer = write_tree(tmp_path / "outer", {"pyproject.toml": ""})
    inner = outer / "inner"
    inner.mkdir()
    error = err_of(await call(code_registry([inner]), inner, "lint"))
    assert error.code is ErrorCode.INPUT_INVALID


async def test_a_missing_checker_is_tool_not_installed(
    project: Path, only_node: Toolchains
) -> None:
    registry = code_registry([project], toolchains=only_node)
    for name in ("lint", "typecheck", "run_tests"):
        error = err_of(await call(registry, project, name))
        assert error.code is ErrorCode.NOT_AVAILABLE, name
        assert error.reason == TOOL_NOT_INSTALLED, name


def test_the_tools_are_unavailable_when_nothing_is_installed(nowhere: Toolchains) -> None:
    tools = code_tools(nowhere)
    assert [t.name for t in tools] == ["lint", "typecheck", "run_tests"]
    assert not any(t.currently_available() for t in tools)


def test_the_tools_are_available_when_a_checker_is_installed(tmp_path: Path) -> None:
    executable(tmp_path / "bin" / "ruff", "exit 0\n")
    tools = {t.name: t for t in code_tools(Toolchains(search_dirs=(str(tmp_path / "bin"),)))}
    assert tools["lint"].currently_available()
    assert not tools["typecheck"].currently_available()


async def test_the_projects_own_checker_comes_first(project: Path, only_node: Toolchains) -> None:
    fake_ruff(project, RUFF_FINDING, 1)
    result = ok_of(await call(code_registry([project], toolchains=only_node), project, "lint"))
    [diagnostic] = result.structured["diagnostics"]
    assert diagnostic["message"] == "from the project ruff"
    assert (diagnostic["file"], diagnostic["line"], diagnostic["code"]) == ("a.py", 3, "X1")


async def test_a_crashing_checker_is_tool_crashed_with_its_output(project: Path) -> None:
    executable(
        project / ".venv/bin/ruff", "echo 'ruff: bad config in pyproject.toml' >&2\nexit 2\n"
    )
    error = err_of(await call(code_registry([project]), project, "lint"))
    assert error.code is ErrorCode.EXECUTION_FAILED
    assert error.cause == TOOL_CRASHED
    assert error.error.startswith("ruff failed: exited with code 2")
    assert "bad config in pyproject.toml" in error.error


async def test_a_checker_that_writes_no_report_is_tool_crashed(project: Path) -> None:
    executable(project / ".venv/bin/ruff", "exit 1\n")
    error = err_of(await call(code_registry([project]), project, "lint"))
    assert error.cause == TOOL_CRASHED
    assert "wrote no report" in error.error


async def test_a_hanging_checker_is_killed_at_its_timeout(project: Path) -> None:
    executable(project / ".venv/bin/ruff", f"echo $$ > {project}/pid\nexec sleep 60\n")
    registry = code_registry([project], settings=CodeSettings(lint_timeout_s=1))
    error = err_of(await call(registry, project, "lint"))
    assert error.cause == TIMEOUT
    assert error.error.startswith("ruff timed out after 1 s")
    assert not _alive(int((project / "pid").read_text()))


async def test_an_aborted_call_kills_the_checker(project: Path) -> None:
    marker = project / "pid"
    executable(project / ".venv/bin/ruff", f"echo $$ > {marker}\nexec sleep 60\n")
    registry = code_registry([project])
    signal = AbortSignal()
    ctx = ToolContext(session_id="s1", working_dir=str(project), abort_signal=signal)
    results = []

    async def lint() -> None:
        results.append((await registry.execute("lint", {}, ctx)).result)

    async with anyio.create_task_group() as group:
        group.start_soon(lint)
        with anyio.fail_after(20):
            while not marker.exists() or not marker.read_text().strip():
                await anyio.sleep(0.02)
        signal.abort("user cancelled")
    error = err_of(results[0])
    assert error.code is ErrorCode.EXECUTION_FAILED
    assert error.cause == ABORTED or error.error.startswith("aborted")
    assert not _alive(int(marker.read_text()))


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_an_ecosystem_without_a_checker_is_skipped_beside_one_that_runs(
    project: Path, only_node: Toolchains
) -> None:
    fake_ruff(project, "[]", 0)
    write_tree(project, {"package.json": "{}"})
    lint = ok_of(await call(code_registry([project], toolchains=only_node), project, "lint"))
    assert lint.value.splitlines()[0] == "ruff: no problems"
    assert lint.value.splitlines()[1].startswith("skipped: javascript: eslint is not installed")
    assert lint.structured["skipped"][0]["reason"] == TOOL_NOT_INSTALLED


async def test_typecheck_of_javascript_without_tsconfig_has_no_checker(
    tmp_path: Path, only_node: Toolchains
) -> None:
    root = write_tree(tmp_path / "js", {"package.json": "{}"})
    error = err_of(await call(code_registry([root], toolchains=only_node), root, "typecheck"))
    assert error.reason == NO_CHECKER


def test_checker_roots_name_existing_directories_outside_the_system() -> None:
    roots = checker_roots(["ruff", "mypy", "pytest", "cargo", "go", "node"])
    assert all(os.path.isdir(r) for r in roots)
    assert not any(r == "/usr" or r.startswith("/usr/") for r in roots)
    assert not any(is_sensitive(r) for r in roots)  # every sandbox hides those anyway


@pytest.mark.parametrize("selector", ["--junitxml=/tmp/x", "-x", "", "  "])
async def test_a_selector_that_would_read_as_an_option_is_refused(
    project: Path, selector: str
) -> None:
    error = err_of(await call(code_registry([project]), project, "run_tests", selector=selector))
    assert error.code is ErrorCode.INPUT_INVALID
    assert error.field == "selector"


async def test_a_path_that_starts_with_a_dash_is_passed_as_a_path(project: Path) -> None:
    fake_ruff(project, "[]", 0)
    (project / "-weird.py").write_text("x = 1\n")
    result = ok_of(await call(code_registry([project]), project, "lint", path="-weird.py"))
    assert result.structured["target"] == "./-weird.py"
    assert result.structured["runs"][0]["command"][-1] == "./-weird.py"


PYRIGHT_REPORT = (
    '{"generalDiagnostics": [{"file": "PROJECT/a.py", "severity": "error", "message": "bad", '
    '"rule": "reportGeneralTypeIssues", "range": {"start": {"line": 0, "character": 0}, '
    '"end": {"line": 0, "character": 1}}}], "summary": {"errorCount": 1}}'
)


async def test_a_project_configured_for_pyright_is_checked_by_pyright(
    project: Path, only_node: Toolchains
) -> None:
    report = PYRIGHT_REPORT.replace("PROJECT", str(project))
    executable(project / ".venv/bin/pyright", f"printf '%s' '{report}'\nexit 1\n")
    executable(project / ".venv/bin/mypy", "exit 2\n")
    (project / "pyrightconfig.json").write_text("{}")
    registry = code_registry([project], toolchains=only_node)
    result = ok_of(await call(registry, project, "typecheck"))
    [diagnostic] = result.structured["diagnostics"]
    assert (diagnostic["tool"], diagnostic["file"], diagnostic["line"]) == ("pyright", "a.py", 1)
    (project / "pyrightconfig.json").unlink()
    crashed = err_of(await call(registry, project, "typecheck"))  # now mypy is preferred
    assert crashed.error.startswith("mypy failed")


def test_the_checker_environment_names_the_search_path_and_the_rust_homes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/home/ann")
    monkeypatch.delenv("CARGO_HOME", raising=False)
    monkeypatch.setenv("RUSTUP_HOME", "/opt/rustup")
    monkeypatch.setenv("GOFLAGS", "-mod=vendor")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    env = Toolchains().env(["/p/.venv/bin", "/usr/bin"], {"CI": "true"})
    assert env["PATH"] == "/p/.venv/bin:/usr/bin"
    assert env["CARGO_HOME"] == "/home/ann/.cargo"
    assert env["RUSTUP_HOME"] == "/opt/rustup"
    assert env["GOFLAGS"] == "-mod=vendor"
    assert env["NO_COLOR"] == "1"
    assert env["CI"] == "true"
    assert "OPENAI_API_KEY" not in env
