"""Background processes behind the process seam: ProcessManager, LocalProcessBackend, the
owner-bound view, wrappers of the backend and closing, with real bash process trees."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import anyio
import pytest
from process_helpers import alive, all_dead, read_pids

from toolwire.capabilities import ToolCapabilities, process
from toolwire.capabilities.kinds.process._backends import (
    BackgroundRequest,
    LocalProcessBackend,
    ProcessBackend,
    ProcessRequest,
    WrapperProcessBackend,
)
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.resolver import (
    BACKEND_SETUP_HINTS,
    CapabilityBackends,
    CapabilityScope,
    missing_backends,
    resolve_capabilities,
)
from toolwire.capabilities.seams import (
    BackgroundProcess,
    BackgroundProcesses,
    ProcessResult,
    ScopedProcess,
)
from toolwire.context import ToolContext
from toolwire.errors import BinaryNotAllowedError, CapabilityError, ConfigurationError
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok
from toolwire.toolbox import process_tools, terminal_tools

pytestmark = pytest.mark.anyio

# The leader, a child and a grandchild (in a subshell) record their pids, then wait.
TREE = (
    'sleep 300 & echo $! >> "{pids}"; '
    '(sleep 300 & echo $! >> "{pids}"; wait) & '
    'echo $$ >> "{pids}"; echo started; wait'
)


def backends_with(manager: ProcessManager, **changes: object) -> CapabilityBackends:
    return CapabilityBackends(processes=LocalProcessBackend(manager), **changes)  # type: ignore[arg-type]


def seam_for(
    backends: CapabilityBackends,
    personality: str | None,
    binaries: Sequence[str] = ("bash",),
    working_dir: str | None = None,
) -> ScopedProcess:
    scope = CapabilityScope(
        session_id="s", personality_id=personality, working_dir=working_dir or os.getcwd()
    )
    caps = ToolCapabilities.of(process(binaries))
    seam = resolve_capabilities("t", caps, scope, backends).scoped_process
    assert seam is not None
    return seam


def background_of(seam: ScopedProcess) -> BackgroundProcesses:
    assert seam.background is not None
    return seam.background


@pytest.fixture
async def backends(tmp_path: Path) -> AsyncIterator[CapabilityBackends]:
    manager = ProcessManager(str(tmp_path / "procs"), stop_grace_s=1.0)
    async with backends_with(manager) as backends:
        yield backends


# ---------------------------------------------------------------- the owner-bound seam


async def test_the_seam_offers_background_processes_that_satisfy_the_protocol(
    backends: CapabilityBackends,
) -> None:
    assert isinstance(background_of(seam_for(backends, "p1")), BackgroundProcesses)


async def test_two_personalities_cannot_see_or_stop_each_others_processes(
    backends: CapabilityBackends, tmp_path: Path
) -> None:
    mine = background_of(seam_for(backends, "p1", working_dir=str(tmp_path)))
    theirs = background_of(seam_for(backends, "p2", working_dir=str(tmp_path)))
    started = await mine.start("sleep 300")
    assert started.owner == "p1"
    assert await theirs.list() == []
    for attempt in (
        theirs.get(started.id),
        theirs.stop(started.id),
        theirs.wait(started.id, timeout_s=0),
        theirs.read_tail(started.id, stream="stdout", lines=5),
        theirs.watch(started.id, patterns=["x"], timeout_s=0),
    ):
        with pytest.raises(LookupError):
            await attempt
    assert (await mine.get(started.id)).status == "running"
    assert alive(started.pid)
    assert [p.id for p in await mine.list()] == [started.id]


async def test_without_a_personality_the_owner_is_default(backends: CapabilityBackends) -> None:
    started = await background_of(seam_for(backends, None)).start("true")
    assert started.owner == "default"
    assert [p.id for p in await background_of(seam_for(backends, None)).list()] == [started.id]


async def test_a_tool_without_bash_declared_cannot_use_background_processes(
    backends: CapabilityBackends, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    background = background_of(seam_for(backends, "p1", binaries=("git",)))
    with pytest.raises(BinaryNotAllowedError, match=r"^BINARY_NOT_ALLOWED: bash is not in"):
        await background.start(f"touch {marker}")
    with pytest.raises(BinaryNotAllowedError):
        await background.list()
    assert await background_of(seam_for(backends, "p1")).list() == []
    await anyio.sleep(0.1)
    assert not marker.exists()


@pytest.mark.parametrize("binaries", [("bash",), ("*",)])
async def test_bash_or_star_allows_background_commands(
    backends: CapabilityBackends, tmp_path: Path, binaries: tuple[str, ...]
) -> None:
    background = background_of(seam_for(backends, "p1", binaries, working_dir=str(tmp_path)))
    started = await background.start("pwd", name="where")
    finished = await background.wait(started.id, timeout_s=10)
    assert (finished.status, finished.exit_code, finished.name) == ("exited", 0, "where")
    assert finished.cwd == str(tmp_path)


async def test_background_children_get_the_scrubbed_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLWIRE_TEST_TOKEN", "secret")
    monkeypatch.setenv("TOOLWIRE_TEST_VISIBLE", "shown")
    manager = ProcessManager(str(tmp_path / "procs"))
    async with backends_with(manager, process_env_allowlist=["TOOLWIRE_TEST_VISIBLE"]) as backends:
        background = background_of(seam_for(backends, "p"))
        command = 'echo "[$TOOLWIRE_TEST_TOKEN][$TOOLWIRE_TEST_VISIBLE][$EXTRA]"'
        started = await background.start(command, env={"EXTRA": "x"})
        await background.wait(started.id, timeout_s=10)
        with anyio.fail_after(5):
            while not await background.read_tail(started.id, stream="stdout", lines=1):
                await anyio.sleep(0.02)
        lines = await background.read_tail(started.id, stream="stdout", lines=1)
    assert lines == ["[][shown][x]"]


async def test_an_empty_command_is_refused(backends: CapabilityBackends) -> None:
    with pytest.raises(ValueError, match="empty"):
        await background_of(seam_for(backends, "p")).start("   ")


# ---------------------------------------------------------------- backends without background


async def test_default_backends_run_one_shot_children_but_no_background_ones() -> None:
    seam = seam_for(CapabilityBackends(), "p1", binaries=("echo",))
    assert seam.background is None
    assert (await seam.spawn("echo", ["hi"])).stdout == "hi\n"


async def test_the_base_backend_refuses_background_operations() -> None:
    backend = LocalProcessBackend()
    assert not backend.supports_background
    with pytest.raises(CapabilityError, match=r"^BACKGROUND_NOT_SUPPORTED: "):
        await backend.start(BackgroundRequest(command="true", owner="p", cwd="/", env={}))
    with pytest.raises(CapabilityError, match=r"^BACKGROUND_NOT_SUPPORTED: "):
        await backend.list_processes(owner="p")


async def test_no_process_backend_means_no_process_seam_and_a_hint() -> None:
    caps = ToolCapabilities.of(process(["echo"]))
    backends = CapabilityBackends(processes=None)
    scope = CapabilityScope(session_id="s")
    assert resolve_capabilities("t", caps, scope, backends).scoped_process is None
    assert missing_backends(caps, backends) == ["process"]
    assert "processes=LocalProcessBackend()" in BACKEND_SETUP_HINTS["process"]


def test_processes_must_be_a_process_backend(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="ProcessBackend"):
        CapabilityBackends(processes=ProcessManager(str(tmp_path)))  # type: ignore[arg-type]


# ---------------------------------------------------------------- wrappers of the backend


class RecordingBackend(WrapperProcessBackend):
    """Wraps another backend: records every child it runs, and refuses starts when told to."""

    def __init__(self, wrapped: ProcessBackend, *, refuse: bool = False) -> None:
        super().__init__(wrapped)
        self.refuse = refuse
        self.runs: list[list[str]] = []
        self.starts: list[tuple[str, str]] = []

    async def run(self, request: ProcessRequest) -> ProcessResult:
        self.runs.append(list(request.argv))
        return await super().run(request)

    async def start(self, request: BackgroundRequest) -> BackgroundProcess:
        self.starts.append((request.owner, request.command))
        if self.refuse:
            raise CapabilityError("SANDBOX_REFUSED: background processes are off here")
        return await super().start(request)


def registry_over(backend: ProcessBackend, work: Path) -> ToolRegistry:
    backends = CapabilityBackends(fs_read=(str(work),), processes=backend)
    registry = ToolRegistry(backends=backends)
    registry.register_all([*process_tools(), *terminal_tools()])
    return registry


async def test_a_wrapper_of_the_backend_sees_every_child_the_tools_start(tmp_path: Path) -> None:
    inner = LocalProcessBackend(ProcessManager(str(tmp_path / "procs"), stop_grace_s=1.0))
    wrapper = RecordingBackend(inner)
    async with registry_over(wrapper, tmp_path) as registry:
        ctx = ToolContext(session_id="s", personality_id="p1", working_dir=str(tmp_path))
        started = await registry.execute("process_start", {"command": "echo hi"}, ctx)
        assert isinstance(started.result, Ok), started.result
        ran = await registry.execute("terminal", {"command": "true"}, ctx)
        assert isinstance(ran.result, Ok), ran.result
    assert wrapper.starts == [("p1", "echo hi")]
    assert len(wrapper.runs) == 1
    assert wrapper.runs[0][:2] == ["bash", "-c"]


async def test_a_wrapper_that_refuses_starts_stops_the_process_tools(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    inner = LocalProcessBackend(ProcessManager(str(tmp_path / "procs")))
    wrapper = RecordingBackend(inner, refuse=True)
    async with registry_over(wrapper, tmp_path) as registry:
        ctx = ToolContext(session_id="s", working_dir=str(tmp_path))
        outcome = await registry.execute("process_start", {"command": f"touch {marker}"}, ctx)
    assert isinstance(outcome.result, Err)
    assert outcome.result.error == "SANDBOX_REFUSED: background processes are off here"
    assert wrapper.starts == [("default", f"touch {marker}")]
    await anyio.sleep(0.1)
    assert not marker.exists()


# ---------------------------------------------------------------- closing


async def test_closing_the_backends_kills_every_process_group_grandchildren_included(
    tmp_path: Path,
) -> None:
    backends = backends_with(ProcessManager(str(tmp_path / "procs"), stop_grace_s=1.0))
    recorded: list[int] = []
    for n, personality in enumerate(("p1", "p2", None)):
        pids = tmp_path / f"tree{n}.pids"
        await background_of(seam_for(backends, personality)).start(TREE.format(pids=pids))
        recorded += await read_pids(pids, 3)
    assert all(alive(pid) for pid in recorded)
    await backends.aclose()
    assert await all_dead(recorded)
    await backends.aclose()  # closing twice is harmless
    with pytest.raises(CapabilityError, match="closed"):
        await background_of(seam_for(backends, "p1")).start("true")


# The script starts a process tree, drops its manager unclosed, collects it and exits.
DROPPED_MANAGER = """
import gc, sys
import anyio
from toolwire.capabilities.kinds.process.background import ProcessManager

async def main() -> None:
    manager = ProcessManager(sys.argv[1], stop_grace_s=1.0)
    await manager.start(sys.argv[2], owner="p", cwd=sys.argv[1])

anyio.run(main)
gc.collect()
print("started", flush=True)
"""


async def test_groups_of_a_collected_manager_are_killed_at_interpreter_exit(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "tree.pids"
    script = tmp_path / "dropped.py"
    script.write_text(DROPPED_MANAGER)
    recorded: list[int] = []
    try:
        with anyio.fail_after(30):
            done = await anyio.run_process(
                [sys.executable, str(script), str(tmp_path), TREE.format(pids=pids)],
                check=False,
            )
        assert done.returncode == 0, done.stderr.decode()
        assert done.stdout.decode().strip() == "started"
        recorded = await read_pids(pids, 3)
        assert await all_dead(recorded)
    finally:
        for pid in recorded:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


# ---------------------------------------------------------------- ProcessManager itself


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


async def test_aclose_leaves_no_orphans_refuses_new_starts_and_is_idempotent(
    tmp_path: Path,
) -> None:
    manager = ProcessManager(str(tmp_path / "procs"), stop_grace_s=1.0)
    recorded: list[int] = []
    for n in range(3):
        pids = tmp_path / f"tree{n}.pids"
        await manager.start(TREE.format(pids=pids), owner="p", cwd=str(tmp_path))
        recorded += await read_pids(pids, 3)
    await manager.aclose()
    assert await all_dead(recorded)
    assert all(p.status == "stopped" for p in manager.list_processes(owner="p"))
    await manager.aclose()
    assert manager.closed
    with pytest.raises(CapabilityError, match="closed"):
        await manager.start("true", owner="p", cwd=str(tmp_path))


async def test_the_manager_scrubs_the_environment(
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
    with pytest.raises(ConfigurationError, match="absolute"):
        ProcessManager("relative/dir")
