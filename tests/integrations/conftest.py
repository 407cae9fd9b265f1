"""The adapter tests' workspace: a registry with built-in and user tools on a temp root."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from integration_helpers import USER_TOOLS, RecordingRegistry

from toolwire import create_backends
from toolwire.toolbox._files import read_file, write_file


@pytest.fixture
async def workspace(tmp_path: Path) -> AsyncIterator[tuple[RecordingRegistry, Path]]:
    """A registry with read_file, write_file and the user tools, rooted at a temp dir."""
    (tmp_path / "notes.txt").write_text("first line\nsecond line\n", encoding="utf-8")
    backends = create_backends(working_dir=str(tmp_path), kv_url="memory://", fetcher=None)
    registry = RecordingRegistry(backends=backends)
    registry.register_all([read_file, write_file, *USER_TOOLS])
    async with backends, registry:
        yield registry, tmp_path
