"""The six background-process tools over the process seam, with real bash process trees."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from toolbox_helpers import alive, error_of, ok_value, read_pid, run

from toolwire.capabilities import process
from toolwire.capabilities.kinds.process._backends import LocalProcessBackend
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import BinaryNotAllowedError
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.toolbox import command_guard_hook, process_tools

pytestmark = pytest.mark.anyio

TREE = "bash -c 'sleep 300 & echo $! > {pidfile}; wait' & echo started; wait"


def backends_for(work: Path, log_dir: Path) -> CapabilityBackends:
    """Backends reaching ``work``, with local background processes logging to ``log_dir``."""
    processes = LocalProcessBackend(ProcessManager(str(log_dir), stop_grace_s=1.0))
    return CapabilityBackends(fs_read=(str(work),), fs_write=(str(work),), processes=processes)


@pytest.fixture
async def preg(work: Path, tmp_path: Path) -> AsyncIterator[ToolRegistry]:
    async with backends_for(work, tmp_path / "procs") as backends:
        registry = ToolRegistry(backends=backends)
        registry.register_all(process_tools())
        yield registry


def _ctx(work: Path, personality: str = "p1") -> ToolContext:
    return ToolContext(session_id="s", working_dir=str(work), personality_id=personality)


async def _start(registry: ToolRegistry, ctx: ToolContext, command: str) -> str:
    result = await run(registry, ctx, "process_start", command=command)
    assert isinstance(result, Ok), result
    assert result.structured is not None
    return str(result.structured["process_id"])


async def test_start_then_wait_then_logs(preg: ToolRegistry, work: Path) -> None:
    ctx = _ctx(work)
    pid = await _start(preg, ctx, "echo out; echo err >&2; exit 4")
    waited = ok_value(await run(preg, ctx, "process_wait", process_id=pid, timeout_s=10))
    assert "exited (code 4)" in waited
    logs = ok_value(await run(preg, ctx, "process_logs", process_id=pid))
    assert "--- stdout (last 1 lines) ---\nout" in logs
    assert "--- stderr (last 1 lines) ---\nerr" in logs


async def test_logs_of_one_stream_and_empty_output(preg: ToolRegistry, work: Path) -> None:
    ctx = _ctx(work)
    pid = await _start(preg, ctx, "echo only-out")
    await run(preg, ctx, "process_wait", process_id=pid, timeout_s=10)
    logs = ok_value(await run(preg, ctx, "process_logs", process_id=pid, stream="stderr"))
    assert logs.endswith("--- stderr (last 0 lines) ---\n(no output)")
    assert "--- stdout" not in logs


async def test_wait_timeout_is_not_an_error(preg: ToolRegistry, work: Path) -> None:
    ctx = _ctx(work)
    pid = await _start(preg, ctx, "sleep 300")
    value = ok_value(await run(preg, ctx, "process_wait", process_id=pid, timeout_s=0.1))
    assert value == f"{pid} is still running after 0.1 s."


async def test_stop_kills_the_group_including_grandchildren(preg: ToolRegistry, work: Path) -> None:
    ctx = _ctx(work)
    pid = await _start(preg, ctx, TREE.format(pidfile=work / "gc.pid"))
    grandchild = await read_pid(work / "gc.pid")
    value = ok_value(await run(preg, ctx, "process_stop", process_id=pid))
    assert value.startswith(f"Stopped {pid}  stopped (code -15)")
    assert not alive(grandchild)


async def test_stop_escalates_to_sigkill_when_sigterm_is_ignored(
    preg: ToolRegistry, work: Path
) -> None:
    ctx = _ctx(work)
    pid = await _start(preg, ctx, "trap '' TERM; echo ready; while :; do sleep 0.05; done")
    ok_value(await run(preg, ctx, "process_watch", process_id=pid, patterns=["ready"]))
    value = ok_value(await run(preg, ctx, "process_stop", process_id=pid))
    assert "(code -9)" in value


async def test_cap_is_eight_running_processes_per_personality(
    preg: ToolRegistry, work: Path
) -> None:
    ctx = _ctx(work, "p1")
    ids = [await _start(preg, ctx, "sleep 300") for _ in range(8)]
    error = error_of(await run(preg, ctx, "process_start", command="sleep 300"))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert error.error.startswith("PROCESS_CAP_EXCEEDED: max 8 concurrent processes")
    await _start(preg, _ctx(work, "p2"), "sleep 300")  # another personality has its own cap
    await run(preg, ctx, "process_stop", process_id=ids[0])
    await _start(preg, ctx, "sleep 300")  # a stopped process frees its slot


async def test_personalities_do_not_see_each_others_processes(
    preg: ToolRegistry, work: Path
) -> None:
    mine = await _start(preg, _ctx(work, "p1"), "sleep 300")
    theirs = _ctx(work, "p2")
    assert ok_value(await run(preg, theirs, "process_list")) == "No background processes."
    error = error_of(await run(preg, theirs, "process_stop", process_id=mine))
    assert error.code is ErrorCode.INPUT_INVALID
    listing = ok_value(await run(preg, _ctx(work, "p1"), "process_list"))
    assert listing.startswith(f"{mine}  running")


async def test_watch_matches_substrings_and_regexes(preg: ToolRegistry, work: Path) -> None:
    ctx = _ctx(work)
    pid = await _start(preg, ctx, "echo booting; sleep 0.2; echo 'listening on :8080'; sleep 300")
    value = ok_value(
        await run(preg, ctx, "process_watch", process_id=pid, patterns=["/on :\\d+/"], timeout_s=10)
    )
    assert value == "Matched '/on :\\\\d+/' in stdout: listening on :8080"
    again = ok_value(await run(preg, ctx, "process_watch", process_id=pid, patterns=["booting"]))
    assert again.startswith("Matched 'booting'")  # lines written before the call count


async def test_watch_reports_an_end_without_match(preg: ToolRegistry, work: Path) -> None:
    ctx = _ctx(work)
    pid = await _start(preg, ctx, "echo nothing here")
    value = ok_value(await run(preg, ctx, "process_watch", process_id=pid, patterns=["ready"]))
    assert value.startswith("No match; the process ended")


async def test_cwd_out_of_reach_is_invalid(preg: ToolRegistry, work: Path, outside: Path) -> None:
    error = error_of(await run(preg, _ctx(work), "process_start", command="true", cwd=str(outside)))
    assert error.error.startswith("INVALID_CWD: PATH_NOT_REACHABLE:")


async def test_guard_denies_process_start_before_it_runs(preg: ToolRegistry, work: Path) -> None:
    command_guard_hook(preg.hooks)
    marker = work / "ran"
    error = error_of(
        await run(preg, _ctx(work), "process_start", command=f"touch {marker}; rm -rf ~")
    )
    assert error.error.startswith("Command blocked: ")
    await anyio.sleep(0.1)
    assert not marker.exists()


async def test_closing_the_registry_stops_the_process_tree_it_started(
    tmp_path: Path, work: Path
) -> None:
    registry = ToolRegistry(backends=backends_for(work, tmp_path / "procs"))
    registry.register_all(process_tools())
    pidfile = tmp_path / "grandchild.pid"
    async with registry:
        await _start(registry, _ctx(work), TREE.format(pidfile=pidfile))
        grandchild = await read_pid(pidfile)
        assert alive(grandchild)
    assert not alive(grandchild)


async def test_a_tool_without_bash_declared_cannot_start_background_commands(
    preg: ToolRegistry, work: Path
) -> None:
    @tool(capabilities=[process(["git"])])
    async def sneaky_start(ctx: ToolContext, command: str) -> str:
        """Start a background command although only git is declared."""
        assert ctx.scoped_process is not None
        assert ctx.scoped_process.background is not None
        try:
            await ctx.scoped_process.background.start(command)
        except BinaryNotAllowedError as exc:
            return f"refused: {exc}"
        return "started"

    preg.register(sneaky_start)
    marker = work / "ran"
    value = ok_value(await run(preg, _ctx(work), "sneaky_start", command=f"touch {marker}"))
    assert value == (
        "refused: BINARY_NOT_ALLOWED: bash is not in the declared allowed_binaries "
        "(background processes run bash -c)"
    )
    assert ok_value(await run(preg, _ctx(work), "process_list")) == "No background processes."
    await anyio.sleep(0.1)
    assert not marker.exists()
