"""`DirectCall`: the pipeline runs an ``@tool`` async function's own coroutine, and answers
exactly what ``execute`` would have answered, for every kind of ending."""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import anyio.lowlevel
import pytest

from toolwire import ToolCall, ToolContext, ToolOptions, ToolRegistry, tool
from toolwire.execution.gates import RegisteredTool
from toolwire.results import Err, ErrorCode, Ok
from toolwire.tools import DirectCall, Tool, direct_call_of

pytestmark = pytest.mark.anyio


def _circular() -> dict[str, Any]:
    value: dict[str, Any] = {}
    value["self"] = value
    return value


ENDINGS: dict[str, Any] = {
    "text": "ok",
    "mapping": {"a": 1, "b": [1, 2]},
    "list": [1, "two"],
    "none": None,
    "number": 3.5,
    "ok": Ok("fine"),
    "err": Err("refused", ErrorCode.INPUT_INVALID),
    "circular": "circular",
    "raises": ValueError("broken"),
    "exit": SystemExit(3),
}


def _make(ending: str, *, wait: bool) -> Tool:
    async def give(n: int) -> Any:
        """Give back what the ending says.

        Args:
            n: Unused.
        """
        if wait:
            await anyio.lowlevel.checkpoint()
        value = ENDINGS[ending]
        if isinstance(value, BaseException):
            raise value
        return _circular() if value == "circular" else value

    return tool(name=f"give_{ending}")(give)


def _without_direct_call(t: Tool) -> Tool:
    """The same tool whose ``execute`` carries no `DirectCall` (the wrapper path)."""
    execute: Any = t.execute
    bare = types.FunctionType(
        execute.__code__, execute.__globals__, execute.__name__, None, execute.__closure__
    )
    return dataclasses.replace(t, name=t.name + "_wrapped", execute=bare)


def test_tool_attaches_a_direct_call_only_without_a_context_parameter() -> None:
    async def plain(n: int) -> str:
        """Plain.

        Args:
            n: A number.
        """
        return str(n)

    async def with_ctx(n: int, ctx: ToolContext) -> str:
        """With a context.

        Args:
            n: A number.
        """
        return str(n)

    direct = direct_call_of(tool(plain).execute)
    assert isinstance(direct, DirectCall)
    assert direct.function is plain
    assert direct_call_of(tool(with_ctx).execute) is None
    assert RegisteredTool(tool(plain)).direct == direct
    assert RegisteredTool(_without_direct_call(tool(plain))).direct is None


@pytest.mark.parametrize("wait", [False, True], ids=["first-step", "after-await"])
@pytest.mark.parametrize("ending", sorted(ENDINGS))
async def test_the_direct_path_answers_what_execute_answers(ending: str, wait: bool) -> None:
    direct = _make(ending, wait=wait)
    wrapped = _without_direct_call(direct)
    registry = ToolRegistry()
    registry.register_all([direct, wrapped])
    assert registry.get(direct.name) is not None
    calls = [
        ToolCall(id="1", name=direct.name, args='{"n": 1}'),
        ToolCall(id="2", name=wrapped.name, args='{"n": 1}'),
    ]
    first, second = await registry.execute_parallel(calls, ToolContext(session_id="s"))
    assert first.result == second.result
    if ending in ("raises", "exit", "circular"):
        assert isinstance(first.result, Err)
        assert first.result.code is ErrorCode.EXECUTION_FAILED


async def test_a_timeout_interrupts_a_directly_run_function() -> None:
    @tool(options=ToolOptions(timeout_s=0.05))
    async def stall(n: int) -> str:
        """Wait forever.

        Args:
            n: Unused.
        """
        await anyio.Event().wait()
        return "never"

    registry = ToolRegistry()
    registry.register(stall)
    (outcome,) = await registry.execute_parallel(
        [ToolCall(id="1", name="stall", args='{"n": 1}')], ToolContext(session_id="s")
    )
    assert outcome.result == Err(
        "Tool stall timed out after 0.05 s", ErrorCode.EXECUTION_FAILED, cause="timeout"
    )
