"""Fixtures for the built-in tools: a registry whose backends reach one temporary directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.toolbox import default_tools


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The working directory: the only place the tools can reach."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the working directory, out of reach."""
    path = tmp_path / "outside"
    path.mkdir()
    return path


@pytest.fixture
def registry(work: Path) -> ToolRegistry:
    """File and terminal tools over backends reaching ``work`` only."""
    backends = CapabilityBackends(fs_read=(str(work),), fs_write=(str(work),))
    registry = ToolRegistry(backends=backends)
    registry.register_all(default_tools())
    return registry


@pytest.fixture
def ctx(work: Path) -> ToolContext:
    """A context whose working directory is ``work``."""
    return ToolContext(session_id="s1", working_dir=str(work))
