"""The pipeline's tests run on both anyio backends, the way anyio runs its own suite."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Every ``@pytest.mark.anyio`` test here runs once on asyncio and once on trio."""
    return str(request.param)
