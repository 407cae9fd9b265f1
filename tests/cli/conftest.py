"""Fixtures for the tests that run ``toolwire serve`` as a real process."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_helpers import Served, make_project, serve_http, stop


@pytest.fixture
def serve_project(tmp_path: Path) -> Path:
    """A working directory for ``toolwire serve``: a config on the in-memory store."""
    return make_project(tmp_path)


@pytest.fixture
def http_server(serve_project: Path) -> Iterator[Served]:
    """``toolwire serve --http`` on a free port in `serve_project`; killed afterwards if alive."""
    served = serve_http(serve_project)
    yield served
    stop(served.process)


@pytest.fixture
def process_groups() -> Iterator[list[int]]:
    """Process groups a test saw started; any still running afterwards are killed, so a
    failing test leaves nothing behind."""
    groups: list[int] = []
    yield groups
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
