"""Limits: time, memory, inner calls, output; a crashed worker answers and the server lives on."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
import pytest
from code_helpers import error_of, registry_with, run, value_of

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.code_mode import CodeModeSettings, run_code_tool
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.execution.handles import ResultHandles
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok
from toolwire.stores._sqlite import SqliteKeyValueBackend

pytestmark = pytest.mark.anyio


@tool
async def ping() -> str:
    """Answer pong."""
    return "pong"


async def test_an_endless_loop_ends_at_the_time_limit(tmp_path: Path) -> None:
    registry = registry_with([ping], tmp_path / "kv.db", CodeModeSettings(cpu_time_s=0.3))
    err = error_of(await run(registry, "while True:\n    pass\n"))
    assert err.code is ErrorCode.EXECUTION_FAILED
    assert err.cause == "limit"
    assert "TimeoutError" in err.error
    assert value_of(await run(registry, "1 + 1")) == 2  # the next program runs
    await registry.aclose()


async def test_a_program_that_grows_without_end_hits_the_memory_limit(tmp_path: Path) -> None:
    settings = CodeModeSettings(max_memory_bytes=8_000_000)
    registry = registry_with([ping], tmp_path / "kv.db", settings)
    err = error_of(await run(registry, "x = []\nwhile True:\n    x.append('a' * 1000)\n"))
    assert err.cause == "limit"
    assert "MemoryError" in err.error
    await registry.aclose()


async def test_inner_calls_beyond_the_limit_raise_in_the_program(tmp_path: Path) -> None:
    registry = registry_with([ping], tmp_path / "kv.db", CodeModeSettings(max_inner_calls=3))
    code = """
answers = []
try:
    for _ in range(10):
        answers.append(await ping())
except RuntimeError as exc:
    answers.append(str(exc))
answers
"""
    answers = value_of(await run(registry, code))
    assert answers[:3] == ["pong", "pong", "pong"]
    assert "limit of 3 tool calls" in answers[3]
    await registry.aclose()


async def test_printed_output_is_cut_at_the_limit(tmp_path: Path) -> None:
    registry = registry_with([ping], tmp_path / "kv.db", CodeModeSettings(max_output_chars=100))
    outcome = await run(registry, "for i in range(1000):\n    print('line', i)\n")
    assert isinstance(outcome.result, Ok)
    assert outcome.result.structured is not None
    printed = outcome.result.structured["printed"]
    assert printed.endswith("[output cut at 100 characters]")
    assert len(printed) < 200
    await registry.aclose()


def _monty_workers() -> list[int]:
    """This process's Monty worker processes."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().split(b"\0")[0]
        except (OSError, ValueError, IndexError):
            continue
        if parent == os.getpid() and command.endswith(b"monty"):
            found.append(int(entry))
    return found


async def test_a_crashed_worker_answers_execution_failed_and_the_next_program_runs(
    tmp_path: Path,
) -> None:
    @tool
    async def crash() -> str:
        """Kill the interpreter the program runs in (as a segfault would)."""
        for pid in _monty_workers():
            os.kill(pid, signal.SIGKILL)
        return "killed"

    registry = registry_with([crash], tmp_path / "kv.db")
    err = error_of(await run(registry, "await crash()\n1"))
    assert err.code is ErrorCode.EXECUTION_FAILED
    assert err.cause == "crashed"
    assert value_of(await run(registry, "2 + 2")) == 4
    await registry.aclose()


async def test_a_program_waiting_past_its_wall_clock_limit_is_stopped(tmp_path: Path) -> None:
    @tool
    async def hang() -> str:
        """Never answer."""
        await anyio.sleep_forever()
        return ""

    registry = registry_with([hang], tmp_path / "kv.db", CodeModeSettings(timeout_s=0.5))
    err = error_of(await run(registry, "await hang()"))
    assert err.cause == "limit"
    assert "longer than 0.5 s" in err.error
    assert value_of(await run(registry, "3")) == 3
    await registry.aclose()


async def test_a_program_computing_past_its_wall_clock_limit_frees_its_worker(
    tmp_path: Path,
) -> None:
    """The wall clock ends a program while its interpreter still computes (the interpreter's own
    limit is longer): the answer comes at the wall clock, and the only worker is given back once
    the interpreter stops, so the next program runs on it."""
    settings = CodeModeSettings(timeout_s=0.3, cpu_time_s=1.0, max_processes=1)
    registry = registry_with([ping], tmp_path / "kv.db", settings)
    assert value_of(await run(registry, "await ping()")) == "pong"
    err = error_of(await run(registry, "while True:\n    pass\n"))
    assert err.cause == "limit"
    assert "longer than 0.3 s" in err.error
    with anyio.fail_after(10):
        assert value_of(await run(registry, "await ping()")) == "pong"
    await registry.aclose()


async def test_a_registry_closed_while_a_program_still_computes_runs_programs_again(
    tmp_path: Path,
) -> None:
    """Closed while a timed-out program's interpreter still computes, then used again: the
    next program gets a fresh worker and thread, not the stopped ones."""
    settings = CodeModeSettings(timeout_s=0.3, cpu_time_s=1.0, max_processes=1)
    registry = registry_with([ping], tmp_path / "kv.db", settings)
    assert error_of(await run(registry, "while True:\n    pass\n")).cause == "limit"
    await registry.aclose()
    with anyio.fail_after(10):
        assert value_of(await run(registry, "await ping()")) == "pong"
    await registry.aclose()


async def test_more_programs_than_workers_wait_their_turn_and_all_finish(tmp_path: Path) -> None:
    """Six programs at once on two workers: each gets a worker (and its thread) in turn, their
    batches interleave on the event loop, and each answers its own value."""
    registry = registry_with([ping], tmp_path / "kv.db", CodeModeSettings(max_processes=2))
    programs = [
        f"import asyncio\nr = await asyncio.gather(*[ping() for _ in range({n})])\n"
        f"for _ in range({n}):\n    r.append(await ping())\nlen(r)"
        for n in range(1, 7)
    ]
    got: dict[int, object] = {}

    async def one(n: int, code: str) -> None:
        got[n] = value_of(await run(registry, code))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            for n, code in enumerate(programs, start=1):
                group.start_soon(one, n, code)
    assert got == {n: 2 * n for n in range(1, 7)}
    await registry.aclose()


async def test_a_long_result_is_trimmed_to_its_budget_and_kept_behind_a_handle(
    tmp_path: Path,
) -> None:
    kv = SqliteKeyValueBackend(tmp_path / "kv.db")
    registry = ToolRegistry(
        backends=CapabilityBackends(kv_store_factory=kv.scoped, processes=None),
        reducers=None,
        result_handles=ResultHandles(),
    )
    registry.register(ping)
    registry.register(run_code_tool(registry))
    small = ToolContext(session_id="s-code", result_budget_chars=500)
    code = "for i in range(300):\n    print('line', i)\n"
    outcome = await registry.execute("run_code", {"code": code}, small)
    assert isinstance(outcome.result, Ok)
    assert "[truncated — " in outcome.result.value
    assert "[result handle: h-" in outcome.result.value
    await registry.aclose()
