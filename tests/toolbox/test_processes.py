"""Background processes: the manager and the six tools, with real bash process trees."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from toolbox_helpers import alive, error_of, ok_value, read_pid, run

from toolwire.backends.background import ProcessManager
from toolwire.backends.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.errors import CapabilityError
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.toolbox import command_guard_hook, process_tools

pytestmark = pytest.mark.anyio

TREE = "bash -c 'sleep 300 & echo $! > {pidfile}; wait' & echo started; wait"


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[ProcessManager]:
    async with ProcessManager(str(tmp_path / "procs"), stop_grace_s=1.0) as manager:
        yield manager


@pytest.fixture
def preg(work: Path, manager: ProcessManager) -> ToolRegistry:
    backends = CapabilityBackends(fs_read=(str(work),), fs_write=(str(work),))
    registry = ToolRegistry(backends=backends)
    registry.register_all(process_tools(manager))
    return registry


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


async def test_logs_rotate_and_keep_a_bounded_number_of_generations(tmp_path: Path) -> None:
    async with ProcessManager(str(tmp_path), log_max_bytes=1000, log_backups=2) as manager:
        info = await manager.start("seq 1 3000", owner="p", cwd=str(tmp_path))
        await manager.wait(info.id, owner="p", timeout_s=10)
        with anyio.fail_after(5):
            while await manager.read_tail(info.id, owner="p", stream="stdout", lines=1) != ["3000"]:
                await anyio.sleep(0.02)
        log = Path(info.log_dir) / "stdout.log"
        generations = sorted(p.name for p in log.parent.glob("stdout.log*"))
        assert generations == ["stdout.log", "stdout.log.1", "stdout.log.2"]
        assert all(p.stat().st_size <= 1000 for p in log.parent.glob("stdout.log*"))
        tail = await manager.read_tail(info.id, owner="p", stream="stdout", lines=300)
        assert tail == [str(i) for i in range(2701, 3001)]


async def test_aclose_leaves_no_orphans_and_refuses_new_starts(tmp_path: Path) -> None:
    manager = ProcessManager(str(tmp_path / "procs"), stop_grace_s=1.0)
    leaders = []
    grandchildren = []
    for n in range(3):
        pidfile = tmp_path / f"gc{n}.pid"
        info = await manager.start(TREE.format(pidfile=pidfile), owner="p", cwd=str(tmp_path))
        leaders.append(info.pid)
        grandchildren.append(await read_pid(pidfile))
    await manager.aclose()
    assert not any(alive(pid) for pid in leaders + grandchildren)
    assert all(p.status == "stopped" for p in manager.list_processes(owner="p"))
    with pytest.raises(CapabilityError, match="closed"):
        await manager.start("true", owner="p", cwd=str(tmp_path))


async def test_closing_the_registry_stops_the_process_tree_it_started(
    tmp_path: Path, work: Path
) -> None:
    manager = ProcessManager(str(tmp_path / "procs"), stop_grace_s=1.0)
    backends = CapabilityBackends(fs_read=(str(work),), fs_write=(str(work),))
    registry = ToolRegistry(backends=backends)
    registry.register_all(process_tools(manager))
    registry.add_cleanup(manager.aclose)
    pidfile = tmp_path / "grandchild.pid"
    async with registry:
        await _start(registry, _ctx(work), TREE.format(pidfile=pidfile))
        grandchild = await read_pid(pidfile)
        assert alive(grandchild)
    assert not alive(grandchild)


async def test_child_environment_is_scrubbed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLWIRE_TEST_TOKEN", "secret")
    async with ProcessManager(str(tmp_path)) as manager:
        info = await manager.start(
            'echo "[$TOOLWIRE_TEST_TOKEN][$EXTRA]"',
            owner="p",
            cwd=str(tmp_path),
            env={"EXTRA": "x"},
        )
        await manager.wait(info.id, owner="p", timeout_s=10)
        with anyio.fail_after(5):
            while not await manager.read_tail(info.id, owner="p", stream="stdout", lines=1):
                await anyio.sleep(0.02)
        assert await manager.read_tail(info.id, owner="p", stream="stdout", lines=1) == ["[][x]"]


def test_relative_base_dir_is_a_configuration_error() -> None:
    from toolwire.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="absolute"):
        ProcessManager("relative/dir")
    assert os.path.isabs(os.getcwd())
