"""lint, typecheck and run_tests on a real small crate: cargo clippy, check and test.

The tests share one crate (the ``rust_crate`` session fixture: cargo builds are slow) and make
their own only to change files (fixes, a compile error)."""

from __future__ import annotations

from pathlib import Path

import pytest
from code_projects import RUST_CRATE, call, code_registry, ok_of, write_tree

pytestmark = pytest.mark.anyio


async def test_lint_reads_clippy_messages(rust_crate: Path) -> None:
    result = ok_of(await call(code_registry([rust_crate]), rust_crate, "lint"))
    [unused] = [d for d in result.structured["diagnostics"] if d["code"] == "unused_variables"]
    assert (unused["file"], unused["line"], unused["column"]) == ("src/lib.rs", 2, 9)
    assert unused["severity"] == "warning"
    assert unused["fixable"] is True
    assert unused["tool"] == "cargo clippy"
    assert (
        "help: if this is intentional, prefix it with an underscore: `_unused`" in unused["message"]
    )
    assert "for further information" not in unused["message"]
    assert result.structured["clean"] is True  # warnings only


async def test_typecheck_is_cargo_check(rust_crate: Path) -> None:
    result = ok_of(await call(code_registry([rust_crate]), rust_crate, "typecheck"))
    assert result.structured["runs"][0]["tool"] == "cargo check"
    assert [d["code"] for d in result.structured["diagnostics"]] == ["unused_variables"]
    assert result.value.splitlines()[0] == "cargo check: 1 problem (1 warning) in 1 file"


async def test_run_tests_reads_libtest_results_of_every_test_binary(rust_crate: Path) -> None:
    result = ok_of(await call(code_registry([rust_crate]), rust_crate, "run_tests"))
    outcomes = {t["name"]: t["outcome"] for t in result.structured["tests"]}
    assert outcomes == {
        "tests::adds": "passed",
        "tests::fails": "failed",
        "tests::later": "skipped",
        "integration": "passed",
    }
    [failed] = [t for t in result.structured["tests"] if t["outcome"] == "failed"]
    assert (failed["file"], failed["line"]) == ("src/lib.rs", 17)
    assert failed["message"] == "assertion `left == right` failed: math is off"
    assert "left: 3" in failed["details"]
    assert result.structured["diagnostics"] == []  # warnings belong to lint
    assert result.value.startswith("cargo test: FAILED: 1 failed, 2 passed, 1 skipped (4 tests)")


async def test_run_tests_selector_and_integration_test_path(rust_crate: Path) -> None:
    registry = code_registry([rust_crate])
    selected = ok_of(await call(registry, rust_crate, "run_tests", selector="adds"))
    assert {t["name"] for t in selected.structured["tests"]} == {"tests::adds"}
    assert selected.structured["passed"] is True
    only_it = ok_of(await call(registry, rust_crate, "run_tests", path="tests/it.rs"))
    assert [t["name"] for t in only_it.structured["tests"]] == ["integration"]


async def test_lint_fix_applies_clippy_fixes(tmp_path: Path) -> None:
    crate = write_tree(
        tmp_path / "fixme",
        {
            "Cargo.toml": RUST_CRATE["Cargo.toml"],
            "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    return a + b;\n}\n",
        },
    )
    result = ok_of(await call(code_registry([crate]), crate, "lint", fix=True))
    assert [d["code"] for d in result.structured["fixed"]] == ["clippy::needless_return"]
    assert result.structured["changed_files"] == ["src/lib.rs"]
    assert "return" not in (crate / "src/lib.rs").read_text()
    assert result.value == "cargo clippy: fixed 1 in 1 file; nothing left"


async def test_code_that_does_not_compile(tmp_path: Path) -> None:
    crate = write_tree(
        tmp_path / "broken",
        {
            "Cargo.toml": RUST_CRATE["Cargo.toml"],
            "src/lib.rs": 'pub fn add(a: i32) -> i32 {\n    a + "one"\n}\n',
        },
    )
    registry = code_registry([crate])
    checked = ok_of(await call(registry, crate, "typecheck"))
    [error] = checked.structured["diagnostics"]
    assert (error["file"], error["line"], error["code"], error["severity"]) == (
        "src/lib.rs",
        2,
        "E0277",
        "error",
    )
    assert checked.structured["clean"] is False
    tested = ok_of(await call(registry, crate, "run_tests"))
    assert tested.structured["runs"][0]["status"] == "build_failed"
    assert [d["code"] for d in tested.structured["diagnostics"]] == ["E0277"]
    assert tested.value.startswith("cargo test: build failed (1 error)")
