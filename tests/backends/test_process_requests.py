"""ProcessRequest / BackgroundRequest: what the process seam hands a backend, as one value."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest

from toolwire.capabilities.kinds.process._backends import (
    BackgroundRequest,
    LocalProcessBackend,
    ProcessRequest,
    WrapperProcessBackend,
)
from toolwire.capabilities.kinds.process._scoped import LocalScopedProcess
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.kinds.process.sandbox import Confinement
from toolwire.capabilities.seams import BackgroundProcess, ProcessResult
from toolwire.context import AbortSignal

pytestmark = pytest.mark.anyio


class Seen(WrapperProcessBackend):
    """Keeps every request; may rewrite one-shot requests before passing them on."""

    def __init__(self, wrapped: LocalProcessBackend, *, timeout_s: float | None = None) -> None:
        super().__init__(wrapped)
        self.requests: list[ProcessRequest | BackgroundRequest] = []
        self.timeout_s = timeout_s

    async def run(self, request: ProcessRequest) -> ProcessResult:
        self.requests.append(request)
        if self.timeout_s is not None:
            request = replace(request, timeout_s=self.timeout_s)
        return await super().run(request)

    async def start(self, request: BackgroundRequest) -> BackgroundProcess:
        self.requests.append(request)
        return await super().start(request)


async def test_the_seam_hands_the_backend_one_request_with_the_calls_choices(
    tmp_path: Path,
) -> None:
    backend = Seen(LocalProcessBackend())
    signal = AbortSignal()
    reach = Confinement(read_roots=(str(tmp_path),))
    seam = LocalScopedProcess(
        ["echo"],
        backend=backend,
        abort_signal=signal,
        default_timeout_s=7,
        max_output_bytes=4096,
        default_cwd=str(tmp_path),
        confinement=reach,
    )
    done = await seam.spawn("echo", ["hi"], env={"EXTRA": "1"})
    assert done.stdout == "hi\n"
    [request] = backend.requests
    assert isinstance(request, ProcessRequest)
    assert list(request.argv) == ["echo", "hi"]
    assert (request.cwd, request.timeout_s, request.max_output_bytes) == (str(tmp_path), 7, 4096)
    assert request.abort_signal is signal
    assert request.confinement == reach
    assert request.env["EXTRA"] == "1"
    assert "PATH" in request.env


async def test_a_wrapper_rewrites_a_request_with_replace(tmp_path: Path) -> None:
    backend = Seen(LocalProcessBackend(), timeout_s=0.2)
    seam = LocalScopedProcess(["sleep"], backend=backend, default_cwd=str(tmp_path))
    done = await seam.spawn("sleep", ["30"])
    assert done.timed_out
    assert done.exit_code == 124


async def test_background_starts_reach_the_backend_as_one_request(tmp_path: Path) -> None:
    inner = LocalProcessBackend(ProcessManager(str(tmp_path / "procs"), stop_grace_s=0.5))
    backend = Seen(inner)
    async with backend:
        seam = LocalScopedProcess(["bash"], backend=backend, owner="p1", default_cwd=str(tmp_path))
        assert seam.background is not None
        started = await seam.background.start("true", name="noop")
        [request] = backend.requests
        assert isinstance(request, BackgroundRequest)
        assert (request.command, request.owner, request.name) == ("true", "p1", "noop")
        assert request.cwd == str(tmp_path)
        assert started.owner == "p1"


def test_requests_are_frozen_values() -> None:
    request = ProcessRequest(argv=["true"], env={})
    with pytest.raises(FrozenInstanceError):
        request.timeout_s = 3  # type: ignore[misc]
    assert replace(request, cwd="/") == ProcessRequest(argv=["true"], env={}, cwd="/")
