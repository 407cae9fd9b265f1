"""Shared test fixtures: the anyio backend and access to the machine's real services."""

from __future__ import annotations

from pathlib import Path

import pytest

from service_checks import IN_CI, require_service, service_reachable

__all__ = ["IN_CI", "require_service", "service_reachable"]


BOTH_BACKENDS = ("execution", "providers", "test_registry.py", "test_hooks.py", "test_context.py")
"""Test folders and files that run on asyncio and on trio, the way anyio runs its own suite:
the pipeline and what it is built from. The rest runs on asyncio (the stores' drivers and the
MCP SDK are asyncio libraries)."""


@pytest.fixture
def anyio_backend() -> str:
    """Run ``@pytest.mark.anyio`` tests on asyncio (see `BOTH_BACKENDS` for the exceptions)."""
    return "asyncio"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize the tests under `BOTH_BACKENDS` over asyncio and trio."""
    if "anyio_backend" not in metafunc.fixturenames:
        return
    if metafunc.definition.get_closest_marker("parametrize") is not None and any(
        "anyio_backend" in (m.args[0] if m.args else "")
        for m in metafunc.definition.iter_markers("parametrize")
    ):
        return  # the test chose its backend itself
    parts = metafunc.definition.path.relative_to(Path(__file__).parent).parts
    if parts and (parts[0] in BOTH_BACKENDS or parts[-1] in BOTH_BACKENDS):
        metafunc.parametrize("anyio_backend", ["asyncio", "trio"])
