"""Every process of a sandbox dies when its call ends — exit, timeout, abort, registry close —
setsid and double-fork survivors included; background processes get one sandbox each; a fork
loop is bounded."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest
from sandbox_helpers import (  # noqa: F401  (bwrap is a fixture)
    abort_when,
    appeared,
    bwrap,
    ctx_for,
    err,
    gone,
    marker,
    ok,
    running_with,
    sandboxed_registry,
    terminal,
)

from toolwire.capabilities.kinds.process.sandbox import SandboxLimits, probe_bubblewrap
from toolwire.capabilities.kinds.process.sandbox._cgroups import PidsCgroups
from toolwire.capabilities.kinds.process.sandbox._launch import nproc_launcher
from toolwire.capabilities.kinds.process.sandbox._probe import bwrap_namespace_flags
from toolwire.context import AbortSignal
from toolwire.results import Ok

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap")]


def escapers(tag: str) -> str:
    """Start sleepers that try to outlive the call: in a new session, double-forked, and
    ignoring SIGTERM and SIGHUP."""
    return (
        f"setsid sleep {tag} & "
        f"( ( sleep {tag} & ) & ) ; "
        f"nohup bash -c 'trap \"\" TERM HUP; sleep {tag}' >/dev/null 2>&1 & "
        f"setsid bash -c '( sleep {tag} & ); sleep {tag}' & "
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


async def test_nothing_survives_a_command_that_exits(work: Path) -> None:
    tag = marker()
    async with sandboxed_registry(work) as registry:
        result = await terminal(registry, work, escapers(tag) + "sleep 0.3; echo left")
    assert ok(result) == "left"
    assert await gone(tag)


async def test_nothing_survives_a_timeout(work: Path) -> None:
    tag = marker()
    async with sandboxed_registry(work) as registry:
        result = err(await terminal(registry, work, escapers(tag) + "wait", timeout_s=1))
    assert result.error.startswith("Command exited with code 124")
    assert await gone(tag)


async def test_nothing_survives_an_abort(work: Path) -> None:
    tag = marker()
    signal = AbortSignal()
    outcome = None
    async with sandboxed_registry(work) as registry:

        async def call() -> None:
            nonlocal outcome
            outcome = await terminal(
                registry, work, escapers(tag) + "wait", timeout_s=120, abort_signal=signal
            )

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await abort_when(signal, tag)
    assert outcome is not None
    assert err(outcome).error.startswith(("aborted", "[aborted"))
    assert await gone(tag)


async def test_nothing_survives_closing_the_registry(work: Path) -> None:
    tag = marker()
    outcome = None
    registry = sandboxed_registry(work)

    async def call() -> None:
        nonlocal outcome
        outcome = await terminal(registry, work, escapers(tag) + "wait", timeout_s=120)

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        assert await appeared(tag)
        await registry.aclose()
    assert outcome is not None
    assert err(outcome).error.startswith(("aborted", "[aborted"))
    assert await gone(tag)
    after = err(await terminal(registry, work, "true"))
    assert "SANDBOX_CLOSED" in after.error


async def test_background_processes_have_a_sandbox_each_and_stop_kills_it(
    work: Path, tmp_path: Path
) -> None:
    first, second = marker(), marker()
    ctx = ctx_for(work, personality_id="p1")
    async with sandboxed_registry(work, logs=tmp_path / "procs") as registry:
        ids = []
        for tag in (first, second):
            started = await registry.execute(
                "process_start", {"command": escapers(tag) + "echo up; wait"}, ctx
            )
            assert isinstance(started.result, Ok), started.result
            ids.append(started.result.structured["process_id"])  # type: ignore[index]
        assert await appeared(first)
        assert await appeared(second)
        watch = await registry.execute(
            "process_watch", {"process_id": ids[0], "patterns": ["up"], "timeout_s": 10}, ctx
        )
        assert isinstance(watch.result, Ok), watch.result
        pattern = "sleep " + second.replace(".", "[.]")  # matches the sleepers, not itself
        own = await registry.execute("terminal", {"command": f"pgrep -c -f '{pattern}'"}, ctx)
        stopped = await registry.execute("process_stop", {"process_id": ids[0]}, ctx)
        assert isinstance(stopped.result, Ok), stopped.result
        assert await gone(first)
        assert running_with(second)  # the other sandbox is untouched
    assert err(own.result).error.splitlines()[1] == "0"  # it sees no other sandbox's processes
    assert await gone(second)  # closing the registry ended the other one


async def test_a_background_process_that_writes_stays_in_its_roots(
    work: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    ctx = ctx_for(work)
    command = f"echo made > made.txt; echo x > {outside}/escaped.txt; echo done"
    async with sandboxed_registry(work, logs=tmp_path / "procs") as registry:
        started = await registry.execute("process_start", {"command": command}, ctx)
        assert isinstance(started.result, Ok), started.result
        process_id = started.result.structured["process_id"]  # type: ignore[index]
        await registry.execute("process_wait", {"process_id": process_id, "timeout_s": 10}, ctx)
        logs = await registry.execute("process_logs", {"process_id": process_id}, ctx)
    assert (work / "made.txt").read_text() == "made\n"
    assert not (outside / "escaped.txt").exists()
    assert isinstance(logs.result, Ok)
    assert "No such file or directory" in logs.result.value


FORKS = """
import os, sys, time
made = 0
for _ in range(int(sys.argv[1])):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    made += 1
print(made)
"""


async def test_a_fork_loop_is_bounded(work: Path) -> None:
    (work / "forks.py").write_text(FORKS)
    tag = marker()
    limits = SandboxLimits(max_processes=40)
    async with sandboxed_registry(work, limits=limits) as registry:
        made = int(ok(await terminal(registry, work, f"python3 forks.py 200 # {tag}")))
        bomb = await terminal(registry, work, f"f() {{ f | f & }}; f; sleep 2 # {tag}")
    assert 10 <= made < 40  # the launcher, bwrap and python hold a few of the 40
    said = bomb.value if isinstance(bomb, Ok) else bomb.error
    assert "fork: retry: Resource temporarily unavailable" in said  # it hit the bound
    assert await gone(tag)
    async with sandboxed_registry(work, limits=SandboxLimits(max_processes=0)) as registry:
        unbounded = int(ok(await terminal(registry, work, f"python3 forks.py 60 # {tag}")))
    assert unbounded == 60  # the control: without the limit the same loop is not stopped
    assert await gone(tag)


async def test_the_fork_bound_here_is_a_pids_cgroup_or_the_user_namespace() -> None:
    if os.geteuid() == 0:  # RLIMIT_NPROC is not enforced for root: only a cgroup bounds it
        assert PidsCgroups.detect() is not None, "root without a writable pids cgroup"


NPROC_FORKS = """
import os, time
made = 0
for _ in range(100):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    made += 1
print(made)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another user needs root")
def test_for_a_non_root_toolwire_rlimit_nproc_in_the_user_namespace_bounds_forks() -> None:
    """The fallback bound, as a non-root toolwire gets it: ``RLIMIT_NPROC`` set by the inner
    launcher inside the sandbox's own user namespace (here as ``nobody``, via setpriv)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed")
    bwrap_path = probe_bubblewrap().path
    assert bwrap_path is not None
    flags = [f for f in bwrap_namespace_flags() if f != "--unshare-user"] + ["--unshare-user"]
    argv = [
        setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
        bwrap_path, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", *flags, "--",
        *nproc_launcher(20), "/usr/bin/python3", "-c", NPROC_FORKS,
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert 5 <= int(done.stdout) < 20


async def test_file_size_memory_and_cpu_are_limited_per_process(work: Path) -> None:
    limits = SandboxLimits(
        max_file_size_bytes=1024 * 1024, max_memory_bytes=256 * 1024 * 1024, max_cpu_s=1
    )
    async with sandboxed_registry(work, limits=limits) as registry:
        big = err(await terminal(registry, work, "head -c 3000000 /dev/zero > big.bin"))
        memory = ok(
            await terminal(
                registry,
                work,
                "python3 -c \"\ntry:\n b = bytearray(512 * 1024 * 1024); print('got it')\n"
                "except MemoryError:\n print('refused')\"",
            )
        )
        spin = err(await terminal(registry, work, "while :; do :; done", timeout_s=20))
    assert "File size limit exceeded" in big.error
    assert (work / "big.bin").stat().st_size <= 1024 * 1024
    assert memory == "refused"
    code = int(spin.error.splitlines()[0].rsplit(" ", 1)[1])
    assert code in (128 + 24, 128 + 9)  # SIGXCPU at the limit (SIGKILL: soft = hard limit)
    assert "timed out" not in spin.error  # the CPU limit ended it, well before the timeout
