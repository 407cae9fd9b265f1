"""Real captured outputs (tests/fixtures/outputs): failure lines survive, long ones shrink ≥80%."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from toolwire.reducers import ReducerContext, default_reducers
from toolwire.results import Ok, ToolResult, err, ok

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "outputs"
MANIFEST: dict[str, dict[str, Any]] = {
    name: meta
    for name, meta in json.loads((FIXTURES / "manifest.json").read_text()).items()
    if not name.startswith("_")
}
REGISTRY = default_reducers()

# A failure/error line, defined here independently of the reducers' own patterns.
FAILURE_LINE = re.compile(
    r"(?i:\b(?:error|errors|fail|failed|failure|failures|fatal|panic|panicked|traceback)\b)"
    r"|^E\s|[A-Z]\w*(?:Error|Exception)\b"
)


def fixture_result(name: str) -> tuple[str, ToolResult]:
    meta = MANIFEST[name]
    text = (FIXTURES / name).read_text()
    if meta.get("exit_code"):
        return text, err(f"Command exited with code {meta['exit_code']}\n{text}")
    return text, ok(text)


def reduce_fixture(name: str) -> str:
    _, result = fixture_result(name)
    meta = MANIFEST[name]
    reduced = REGISTRY.reduce(meta["tool"], result, ReducerContext(args=meta["args"]))
    return reduced.value if isinstance(reduced, Ok) else reduced.error


def test_every_fixture_is_listed_in_the_manifest() -> None:
    on_disk = {p.name for p in FIXTURES.iterdir() if p.name != "manifest.json"}
    assert on_disk == set(MANIFEST)


@pytest.mark.parametrize("name", sorted(n for n, m in MANIFEST.items() if m["tool"] == "terminal"))
def test_every_failure_line_survives_reduction(name: str) -> None:
    text, _ = fixture_result(name)
    kept = set(reduce_fixture(name).split("\n"))
    failures = [line for line in text.split("\n") if FAILURE_LINE.search(line)]
    missing = [line for line in failures if line not in kept]
    assert not missing


def test_the_failure_fixtures_do_contain_failure_lines() -> None:
    for name in ("pytest_failing.txt", "unittest_failing.txt", "build_log.txt"):
        text, _ = fixture_result(name)
        assert any(FAILURE_LINE.search(line) for line in text.split("\n")), name


@pytest.mark.parametrize(
    "name", sorted(n for n in MANIFEST if len((FIXTURES / n).read_text()) > 8192)
)
def test_long_fixtures_shrink_by_at_least_80_percent(name: str) -> None:
    original, _ = fixture_result(name)
    assert len(reduce_fixture(name)) <= 0.2 * len(original)


def test_failing_verbose_pytest_keeps_every_failed_test_name() -> None:
    out = reduce_fixture("pytest_failing_verbose.txt")
    for test in (
        "test_divide_by_zero_returns_none",
        "test_mean_of_empty_is_zero",
        "test_mean_rounds",
        "test_parse_int_hex",
    ):
        assert f"FAILED tests/test_calc.py::{test} - " in out
    assert "4 failed, 304 passed in" in out


def test_real_human_git_status_is_summarised() -> None:
    out = reduce_fixture("git_status_human.txt")
    assert out.split("\n")[0] == "git status: branch main; 6 staged, 9 unstaged, 7 untracked."


def test_real_pip_install_keeps_the_installed_line() -> None:
    text, _ = fixture_result("pip_install_many.txt")
    installed = next(line for line in text.split("\n") if line.startswith("Successfully installed"))
    assert installed in reduce_fixture("pip_install_many.txt").split("\n")


def test_real_build_log_keeps_the_compiler_error_with_its_context() -> None:
    out = reduce_fixture("build_log.txt")
    assert (
        "src/unit_17.c:3:16: error: ‘undeclared_value’ undeclared (first use in this function)"
        in out
    )
    assert "make: *** [Makefile:8: src/unit_17.o] Error 1" in out
