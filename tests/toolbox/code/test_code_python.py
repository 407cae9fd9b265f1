"""lint, typecheck and run_tests on real small Python projects: ruff, mypy and pytest."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from code_projects import (
    PYTEST_OPTIONS,
    call,
    code_registry,
    err_of,
    ok_of,
    require_binary,
    write_tree,
)

from toolwire.results import ErrorCode

pytestmark = pytest.mark.anyio

PYPROJECT = (
    '[project]\nname = "demo"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["F", "E", "I"]\n\n'
)
MESSY = "import os\nimport sys\n\n\ndef f(x: int) -> str:\n    return x\n"
TESTS = (
    "import pytest\n\nfrom pkg.a import double\n\n\n"
    "def test_ok():\n    assert double(2) == 4\n\n\n"
    "def test_bad():\n    assert double(2) == 5, 'double is off'\n\n\n"
    "@pytest.mark.skip(reason='later')\ndef test_skip():\n    pass\n\n\n"
    "class TestGroup:\n    def test_inner(self):\n        raise ValueError('boom')\n"
)


@pytest.fixture(autouse=True)
def _python_tools() -> None:
    for name in ("ruff", "mypy", "pytest"):
        require_binary(name)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A Python project with lint and type errors and a mixed test file."""
    return write_tree(
        tmp_path / "proj",
        {
            "pyproject.toml": PYPROJECT + PYTEST_OPTIONS,
            "pkg/__init__.py": "",
            "pkg/a.py": "def double(x: int) -> int:\n    return x * 2\n",
            "pkg/messy.py": MESSY,
            "tests/test_a.py": TESTS,
        },
    )


async def test_lint_lists_every_ruff_finding_with_its_place(project: Path) -> None:
    result = ok_of(await call(code_registry([project]), project, "lint"))
    found = {
        (d["file"], d["line"], d["column"], d["code"]) for d in result.structured["diagnostics"]
    }
    assert ("pkg/messy.py", 1, 8, "F401") in found
    assert ("pkg/messy.py", 2, 8, "F401") in found
    first = result.structured["diagnostics"][0]
    assert first["tool"] == "ruff"
    assert first["severity"] == "error"
    assert result.structured["clean"] is False
    lines = result.value.splitlines()
    assert lines[0].startswith("ruff: ")
    assert "fixable with lint(fix=true)" in lines[0]
    assert "pkg/messy.py" in lines
    assert "  1:8 error F401 `os` imported but unused" in lines


async def test_lint_of_a_file_reports_only_that_file(project: Path) -> None:
    result = ok_of(await call(code_registry([project]), project, "lint", path="pkg/a.py"))
    assert result.structured["diagnostics"] == []
    assert result.structured["target"] == "pkg/a.py"
    assert result.value == "ruff: no problems"


async def test_lint_fix_applies_safe_fixes_and_reports_them(project: Path) -> None:
    result = ok_of(await call(code_registry([project]), project, "lint", fix=True))
    fixed = {(d["file"], d["code"]) for d in result.structured["fixed"]}
    assert ("pkg/messy.py", "F401") in fixed
    assert result.structured["changed_files"] == sorted({f for f, _ in fixed})
    assert "import os" not in (project / "pkg/messy.py").read_text()
    assert result.value.startswith("ruff: fixed ")


async def test_lint_without_fix_never_changes_files_even_when_ruff_is_configured_to(
    project: Path,
) -> None:
    (project / "pyproject.toml").write_text(
        PYPROJECT.replace("[tool.ruff.lint]", "[tool.ruff]\nfix = true\n\n[tool.ruff.lint]")
    )
    ok_of(await call(code_registry([project]), project, "lint"))
    assert (project / "pkg/messy.py").read_text() == MESSY


async def test_lint_fix_without_write_reach_is_refused_and_changes_nothing(project: Path) -> None:
    registry = code_registry([project], write=[])
    error = err_of(await call(registry, project, "lint", fix=True))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert error.error.startswith("PATH_NOT_REACHABLE:")
    assert (project / "pkg/messy.py").read_text() == MESSY


async def test_lint_without_write_reach_still_lints(project: Path) -> None:
    result = ok_of(await call(code_registry([project], write=[]), project, "lint"))
    assert result.structured["counts"]["error"] >= 2


async def test_typecheck_reports_mypy_errors_with_code_and_column(project: Path) -> None:
    result = ok_of(await call(code_registry([project]), project, "typecheck"))
    [diagnostic] = [d for d in result.structured["diagnostics"] if d["file"] == "pkg/messy.py"]
    assert diagnostic["tool"] == "mypy"
    assert (diagnostic["line"], diagnostic["column"]) == (6, 12)
    assert diagnostic["code"] == "return-value"
    assert "Incompatible return value type" in diagnostic["message"]
    assert result.value.startswith("mypy: 1 problem (1 error) in 1 file")


async def test_typecheck_of_a_clean_file_is_clean(project: Path) -> None:
    result = ok_of(await call(code_registry([project]), project, "typecheck", path="pkg/a.py"))
    assert result.structured["clean"] is True
    assert result.value == "mypy: no problems"


async def test_run_tests_reads_every_outcome_from_the_junit_report(project: Path) -> None:
    result = ok_of(await call(code_registry([project]), project, "run_tests"))
    tests = {t["name"]: t for t in result.structured["tests"]}
    assert set(tests) == {
        "tests/test_a.py::test_ok",
        "tests/test_a.py::test_bad",
        "tests/test_a.py::test_skip",
        "tests/test_a.py::TestGroup::test_inner",
    }
    assert tests["tests/test_a.py::test_ok"]["outcome"] == "passed"
    assert tests["tests/test_a.py::test_skip"]["outcome"] == "skipped"
    bad = tests["tests/test_a.py::test_bad"]
    assert bad["outcome"] == "failed"
    assert bad["file"] == "tests/test_a.py"
    assert bad["message"].startswith("AssertionError: double is off")
    assert "assert 4 == 5" in bad["details"]
    assert isinstance(bad["duration_s"], float)
    assert result.structured["test_counts"] == {"passed": 1, "failed": 2, "error": 0, "skipped": 1}
    assert result.structured["passed"] is False
    assert result.value.startswith("pytest: FAILED: 2 failed, 1 passed, 1 skipped (4 tests")
    assert "  FAILED tests/test_a.py::TestGroup::test_inner" in result.value


async def test_run_tests_selector_picks_tests_by_keyword_or_node_id(project: Path) -> None:
    registry = code_registry([project])
    by_keyword = ok_of(await call(registry, project, "run_tests", selector="test_ok"))
    assert [t["name"] for t in by_keyword.structured["tests"]] == ["tests/test_a.py::test_ok"]
    assert by_keyword.structured["passed"] is True
    node = "tests/test_a.py::TestGroup::test_inner"
    by_node = ok_of(await call(registry, project, "run_tests", selector=node))
    assert [t["name"] for t in by_node.structured["tests"]] == [node]


async def test_run_tests_of_a_path_runs_only_that_file(project: Path) -> None:
    write_tree(project, {"tests/test_b.py": "def test_b():\n    assert True\n"})
    result = ok_of(
        await call(code_registry([project]), project, "run_tests", path="tests/test_b.py")
    )
    assert [t["name"] for t in result.structured["tests"]] == ["tests/test_b.py::test_b"]
    assert result.value.startswith("pytest: passed: 1 passed (1 test")


async def test_a_module_that_fails_to_import_is_an_error_test(project: Path) -> None:
    write_tree(project, {"tests/test_c.py": "import not_a_module_anywhere\n"})
    result = ok_of(await call(code_registry([project]), project, "run_tests"))
    [broken] = [t for t in result.structured["tests"] if t["outcome"] == "error"]
    assert broken["name"] == "tests/test_c.py"
    assert "not_a_module_anywhere" in broken["details"]


async def test_a_collection_error_says_the_run_stopped_and_where(project: Path) -> None:
    write_tree(
        project,
        {
            "tests/test_b.py": "def test_b():\n    assert True\n",
            "tests/test_c.py": "import os\n\nimport not_a_module_anywhere\n",
        },
    )
    result = ok_of(await call(code_registry([project]), project, "run_tests"))
    first = "pytest: the run stopped: 1 collection error; no test ran (first: tests/test_c.py:3)"
    assert result.value.splitlines()[0] == first
    assert result.structured["runs"][0]["stopped"] == first.removeprefix("pytest: ")
    assert result.structured["passed"] is False


async def test_a_project_without_tests_says_no_tests_ran(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "empty", {"pyproject.toml": PYTEST_OPTIONS})
    result = ok_of(await call(code_registry([root]), root, "run_tests"))
    assert result.value == "pytest: no tests ran"
    assert result.structured["runs"][0]["status"] == "no_tests"


async def test_run_tests_without_write_reach_is_refused(project: Path) -> None:
    error = err_of(await call(code_registry([project], write=[]), project, "run_tests"))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert error.error.startswith("PATH_NOT_REACHABLE:")


async def test_every_failure_stays_in_structured_when_the_text_is_trimmed(tmp_path: Path) -> None:
    many = "".join(f"def test_{i}():\n    assert {i} == -1\n\n\n" for i in range(40))
    root = write_tree(
        tmp_path / "many", {"pyproject.toml": PYTEST_OPTIONS, "tests/test_many.py": many}
    )
    result = ok_of(await call(code_registry([root]), root, "run_tests", budget=1500))
    assert result.structured["test_counts"]["failed"] == 40
    assert len(result.value) <= 1500
    shown = result.value.count("  FAILED tests/test_many.py::")
    assert 0 < shown < 40
    assert result.value.endswith(f"… {40 - shown} more not shown here (every one is in structured)")


async def test_report_files_are_removed_after_the_run(project: Path) -> None:
    registry = code_registry([project])
    ok_of(await call(registry, project, "run_tests"))
    ok_of(await call(registry, project, "lint"))
    assert not [name for name in os.listdir(project) if name.startswith(".code-report-")]
