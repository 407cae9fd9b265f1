"""A sandboxed command is ended as documented: ``SIGTERM`` to every process of its sandbox when
it is stopped or times out, then ``SIGKILL`` to the whole sandbox after the grace."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_helpers import (  # noqa: F401  (bwrap is a fixture)
    appeared,
    bwrap,
    ctx_for,
    err,
    gone,
    marker,
    sandboxed_registry,
    terminal,
)

from toolwire.results import Ok

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap")]

GRACEFUL = "trap 'echo got-term > got-term.txt; exit 0' TERM; echo up; sleep 100"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


async def test_process_stop_sends_sigterm_to_the_command(work: Path, tmp_path: Path) -> None:
    ctx = ctx_for(work)
    async with sandboxed_registry(work, logs=tmp_path / "procs") as registry:
        started = await registry.execute("process_start", {"command": GRACEFUL}, ctx)
        assert isinstance(started.result, Ok), started.result
        process_id = started.result.structured["process_id"]  # type: ignore[index]
        up = await registry.execute(
            "process_watch", {"process_id": process_id, "patterns": ["up"], "timeout_s": 30}, ctx
        )
        assert isinstance(up.result, Ok), up.result
        assert up.result.value.startswith("Matched"), up.result.value
        stopped = await registry.execute("process_stop", {"process_id": process_id}, ctx)
    assert isinstance(stopped.result, Ok), stopped.result
    assert (work / "got-term.txt").read_text() == "got-term\n"
    assert "stopped (code 0)" in stopped.result.value  # the code of its trap's exit


async def test_a_terminal_timeout_sends_sigterm_to_the_command(work: Path) -> None:
    async with sandboxed_registry(work) as registry:
        result = err(await terminal(registry, work, GRACEFUL, timeout_s=1))
    assert result.error.startswith("Command exited with code 124")
    assert (work / "got-term.txt").read_text() == "got-term\n"


async def test_a_command_ignoring_sigterm_is_killed_after_the_grace(
    work: Path, tmp_path: Path
) -> None:
    tag = marker()
    ctx = ctx_for(work)
    command = f"trap '' TERM; setsid sleep {tag} & sleep {tag}"
    async with sandboxed_registry(work, logs=tmp_path / "procs") as registry:
        started = await registry.execute("process_start", {"command": command}, ctx)
        assert isinstance(started.result, Ok), started.result
        process_id = started.result.structured["process_id"]  # type: ignore[index]
        assert await appeared(tag)
        stopped = await registry.execute("process_stop", {"process_id": process_id}, ctx)
        assert isinstance(stopped.result, Ok), stopped.result
        assert "stopped (code" in stopped.result.value
        assert await gone(tag)
