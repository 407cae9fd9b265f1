"""Fixtures for the code tools: the npm tools and one small Rust crate, shared by a session."""

from __future__ import annotations

from pathlib import Path

import pytest
from code_projects import node_tools, require_binary, write_tree


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """typescript, eslint, vitest and jest, pinned (installed by scripts/node-tools.sh)."""
    return node_tools()


RUST_CRATE = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": (
        "pub fn add(a: i32, b: i32) -> i32 {\n"
        "    let unused = 3;\n"
        "    a + b\n"
        "}\n\n"
        "#[cfg(test)]\n"
        "mod tests {\n"
        "    use super::*;\n\n"
        "    #[test]\n"
        "    fn adds() {\n"
        "        assert_eq!(add(1, 2), 3);\n"
        "    }\n\n"
        "    #[test]\n"
        "    fn fails() {\n"
        '        assert_eq!(add(1, 2), 4, "math is off");\n'
        "    }\n\n"
        "    #[test]\n"
        "    #[ignore]\n"
        "    fn later() {}\n"
        "}\n"
    ),
    "tests/it.rs": (
        "use demo::add;\n\n#[test]\nfn integration() {\n    assert_eq!(add(2, 2), 4);\n}\n"
    ),
}
"""A crate with a warning, a passing, a failing and an ignored unit test, and an
integration test."""


@pytest.fixture(scope="session")
def rust_crate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One small crate the Rust tests share (cargo builds are slow); never modify it."""
    require_binary("cargo")
    return write_tree(tmp_path_factory.mktemp("crate"), RUST_CRATE)
