"""Fixtures: the marker file and the toolwire test registry served over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_helpers import REGISTRY_SERVER, HttpServer, start_http_server, stop


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop per module, so servers and clients are started once per module."""
    return "asyncio"


@pytest.fixture(scope="module")
def markers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory the test servers write ``<tag>`` files to when a call is aborted."""
    return tmp_path_factory.mktemp("markers")


@pytest.fixture(scope="module")
def registry_http(tmp_path_factory: pytest.TempPathFactory, markers: Path) -> Iterator[HttpServer]:
    """The toolwire test registry served over streamable HTTP (one per module)."""
    server = start_http_server(
        REGISTRY_SERVER, tmp_path_factory.mktemp("http"), {"TOOLWIRE_TEST_MARKERS": str(markers)}
    )
    yield server
    stop(server.process)
