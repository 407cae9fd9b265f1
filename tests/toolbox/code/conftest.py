"""Fixtures for the code tools: the npm tools and one small Rust crate, shared by a session."""

from __future__ import annotations

from pathlib import Path

import pytest
from code_projects import RUST_CRATE, node_tools, require_binary, write_tree


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """typescript, eslint, vitest and jest, pinned (installed by scripts/node-tools.sh)."""
    return node_tools()


@pytest.fixture(scope="session")
def rust_crate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One small crate the Rust tests share (cargo builds are slow); never modify it."""
    require_binary("cargo")
    return write_tree(tmp_path_factory.mktemp("crate"), RUST_CRATE)
