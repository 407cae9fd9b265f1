"""LocalScopedProcess and run_process against real child processes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from process_helpers import all_dead, read_pids

from toolwire.capabilities.kinds.process._runner import TIMEOUT_EXIT_CODE, run_process, scrubbed_env
from toolwire.capabilities.kinds.process._scoped import LocalScopedProcess
from toolwire.capabilities.seams import ScopedProcess
from toolwire.context import AbortSignal
from toolwire.errors import AbortedError, BinaryNotAllowedError

pytestmark = pytest.mark.anyio

PY = sys.executable

# Two background sleepers (one a grandchild via a subshell) record their PIDs; the leader too.
SLEEPERS = (
    'sleep 30 & echo $! >> "$1"; '
    '(sleep 30 & echo $! >> "$1"; wait) & echo $! >> "$1"; '
    'echo $$ >> "$1"; wait'
)


def same_file(a: str, b: Path) -> bool:
    return Path(a).samefile(b)


async def test_it_satisfies_the_scoped_process_protocol() -> None:
    assert isinstance(LocalScopedProcess(["echo"]), ScopedProcess)


async def test_an_allowed_binary_runs_and_its_stdout_is_captured() -> None:
    result = await LocalScopedProcess(["echo"]).spawn("echo", ["hello", "world"])
    assert result.exit_code == 0
    assert result.stdout == "hello world\n"
    assert not result.timed_out
    assert not result.aborted


async def test_arguments_reach_the_child_without_a_shell() -> None:
    result = await LocalScopedProcess(["echo"]).spawn("echo", ["$HOME", "*", "a;b"])
    assert result.stdout == "$HOME * a;b\n"


async def test_a_binary_not_declared_is_refused_and_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(BinaryNotAllowedError) as exc:
        await LocalScopedProcess(["echo"]).spawn("touch", [str(marker)])
    assert str(exc.value) == "BINARY_NOT_ALLOWED: touch is not in the declared allowed_binaries"
    assert not marker.exists()


async def test_binaries_match_exactly() -> None:
    with pytest.raises(BinaryNotAllowedError):
        await LocalScopedProcess(["echo"]).spawn("/bin/echo", ["x"])


async def test_star_allows_any_binary() -> None:
    result = await LocalScopedProcess(["*"]).spawn("sh", ["-c", "echo any"])
    assert result.stdout == "any\n"


async def test_an_empty_binary_is_refused_even_with_star() -> None:
    with pytest.raises(BinaryNotAllowedError):
        await LocalScopedProcess(["*"]).spawn("")


async def test_stderr_is_captured_separately() -> None:
    result = await LocalScopedProcess(["sh"]).spawn("sh", ["-c", "echo out; echo err >&2"])
    assert result.stdout == "out\n"
    assert result.stderr == "err\n"


async def test_a_non_zero_exit_code_is_reported() -> None:
    result = await LocalScopedProcess(["sh"]).spawn("sh", ["-c", "exit 3"])
    assert result.exit_code == 3


async def test_a_string_of_args_is_refused() -> None:
    with pytest.raises(TypeError, match="no shell"):
        await LocalScopedProcess(["echo"]).spawn("echo", "-n hi")


async def test_a_missing_binary_raises_file_not_found_naming_it() -> None:
    with pytest.raises(FileNotFoundError, match="no-such-binary-xyz"):
        await LocalScopedProcess(["*"]).spawn("no-such-binary-xyz")


async def test_a_missing_working_directory_is_named(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone")
    with pytest.raises(FileNotFoundError, match="working directory"):
        await LocalScopedProcess(["echo"]).spawn("echo", cwd=missing)


async def test_cwd_defaults_to_default_cwd(tmp_path: Path) -> None:
    result = await LocalScopedProcess(["pwd"], default_cwd=str(tmp_path)).spawn("pwd")
    assert same_file(result.stdout.strip(), tmp_path)


async def test_stdin_is_closed_so_a_reader_ends() -> None:
    result = await LocalScopedProcess(["cat"]).spawn("cat", timeout=20)
    assert result.exit_code == 0
    assert result.stdout == ""
    assert not result.timed_out


async def test_the_child_runs_in_its_own_session() -> None:
    code = "import os; print(os.getsid(0))"
    result = await LocalScopedProcess([PY]).spawn(PY, ["-c", code])
    assert int(result.stdout) != os.getsid(0)


# ---------------------------------------------------------------- environment


async def test_a_host_secret_does_not_reach_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLWIRE_TEST_API_KEY", "sk-very-secret")
    result = await LocalScopedProcess(["env"]).spawn("env")
    assert "sk-very-secret" not in result.stdout
    assert "TOOLWIRE_TEST_API_KEY" not in result.stdout


async def test_safe_variables_cross(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LC_TOOLWIRE_TEST", "kept")
    monkeypatch.setenv("TERM", "xterm-test")
    result = await LocalScopedProcess(["env"]).spawn("env")
    lines = result.stdout.splitlines()
    assert "LC_TOOLWIRE_TEST=kept" in lines
    assert "TERM=xterm-test" in lines
    assert any(line.startswith("PATH=") for line in lines)


async def test_explicit_env_reaches_the_child() -> None:
    result = await LocalScopedProcess(["env"]).spawn("env", env={"GIT_AUTHOR_NAME": "Ann"})
    assert "GIT_AUTHOR_NAME=Ann" in result.stdout.splitlines()


async def test_extra_allowlist_lets_named_host_variables_cross(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLWIRE_TEST_VISIBLE", "yes")
    monkeypatch.setenv("TOOLWIRE_TEST_HIDDEN", "no")
    process = LocalScopedProcess(["env"], extra_env_allowlist=["TOOLWIRE_TEST_VISIBLE"])
    lines = (await process.spawn("env")).stdout.splitlines()
    assert "TOOLWIRE_TEST_VISIBLE=yes" in lines
    assert not any(line.startswith("TOOLWIRE_TEST_HIDDEN=") for line in lines)


def test_scrubbed_env_keeps_only_safe_names_and_adds_path() -> None:
    env = scrubbed_env(
        {"X": "1"}, environ={"HOME": "/h", "AWS_SECRET_ACCESS_KEY": "k", "LC_A": "a"}
    )
    assert env == {"HOME": "/h", "LC_A": "a", "PATH": os.defpath, "X": "1"}


async def test_run_process_uses_an_explicit_env_as_the_whole_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLWIRE_TEST_LEAK", "leak")
    result = await run_process(["/usr/bin/env"], env={"ONLY": "this"})
    assert result.stdout.splitlines() == ["ONLY=this"]


# ---------------------------------------------------------------- killing the group


async def test_a_timeout_kills_the_whole_group_including_grandchildren(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    result = await LocalScopedProcess(["sh"]).spawn(
        "sh", ["-c", SLEEPERS, "sh", str(pids)], timeout=1.0
    )
    assert result.timed_out
    assert result.exit_code == TIMEOUT_EXIT_CODE
    recorded = await read_pids(pids, 4)
    assert await all_dead(recorded)


async def test_an_abort_from_another_task_kills_the_whole_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    signal = AbortSignal()
    process = LocalScopedProcess(["sh"], abort_signal=signal)
    results = []

    async def run() -> None:
        results.append(await process.spawn("sh", ["-c", SLEEPERS, "sh", str(pids)], timeout=60))

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        recorded = await read_pids(pids, 4)
        signal.abort("user pressed stop")
    (result,) = results
    assert result.aborted
    assert not result.timed_out
    assert result.exit_code < 0
    assert await all_dead(recorded)


async def test_an_already_fired_abort_signal_prevents_the_spawn(tmp_path: Path) -> None:
    signal = AbortSignal()
    signal.abort("gone")
    marker = tmp_path / "ran"
    with pytest.raises(AbortedError):
        await LocalScopedProcess(["touch"], abort_signal=signal).spawn("touch", [str(marker)])
    assert not marker.exists()


async def test_cancelling_the_caller_kills_the_whole_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    async with anyio.create_task_group() as group:

        async def run() -> None:
            await run_process(["sh", "-c", SLEEPERS, "sh", str(pids)])

        group.start_soon(run)
        recorded = await read_pids(pids, 4)
        group.cancel_scope.cancel()
    assert await all_dead(recorded)


async def test_processes_left_behind_by_a_finished_leader_are_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = f'sleep 30 >/dev/null 2>&1 & echo $! > "{pid_file}"'
    result = await LocalScopedProcess(["sh"]).spawn("sh", ["-c", script], timeout=30)
    assert result.exit_code == 0
    assert not result.timed_out
    assert await all_dead(await read_pids(pid_file, 1))


# ---------------------------------------------------------------- bounded output


async def test_output_keeps_head_and_tail_and_counts_what_it_dropped() -> None:
    code = "import sys; sys.stdout.write('HEAD' + 'x' * 5_000_000 + 'TAIL')"
    process = LocalScopedProcess([PY], max_output_bytes=1000)
    result = await process.spawn(PY, ["-c", code], timeout=60)
    assert result.exit_code == 0
    assert result.stdout.startswith("HEAD")
    assert result.stdout.endswith("TAIL")
    assert result.dropped_stdout_bytes == 5_000_008 - 1000
    assert f"[… {5_000_008 - 1000} bytes of output dropped …]" in result.stdout
    assert len(result.stdout) < 1200


async def test_stderr_is_bounded_separately() -> None:
    code = "import sys; sys.stderr.write('e' * 10_000); print('fine')"
    result = await run_process([PY, "-c", code], max_output_bytes=100)
    assert result.stdout == "fine\n"
    assert result.dropped_stdout_bytes == 0
    assert result.dropped_stderr_bytes == 9_900


async def test_output_within_the_limit_is_untouched() -> None:
    result = await run_process([PY, "-c", "print('é' * 10)"], max_output_bytes=100)
    assert result.stdout == "é" * 10 + "\n"


async def test_invalid_utf8_output_is_replaced() -> None:
    code = "import sys; sys.stdout.buffer.write(b'ok\\xff')"
    result = await run_process([PY, "-c", code])
    assert result.stdout == "ok\ufffd"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"timeout": 0}, "timeout"), ({"max_output_bytes": 1}, "max_output_bytes")],
)
async def test_run_process_rejects_bad_limits(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        await run_process(["true"], **kwargs)  # type: ignore[arg-type]


async def test_run_process_rejects_a_string_argv() -> None:
    with pytest.raises(ValueError, match="list"):
        await run_process("echo hi")


def test_repr_names_the_allowed_binaries() -> None:
    assert repr(LocalScopedProcess(["git", "echo"])) == (
        "LocalScopedProcess(allowed_binaries=['echo', 'git'])"
    )
