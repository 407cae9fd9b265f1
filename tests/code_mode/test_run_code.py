"""``run_code``: programs with loops, branches and gather calling real registered tools."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from code_helpers import error_of, registry_with, run, value_of

from toolwire.decorator import tool
from toolwire.results import ErrorCode, Ok

pytestmark = pytest.mark.anyio

SEEN: list[tuple[str, object]] = []


@tool
async def get_user(user_id: int) -> dict[str, object]:
    """Look a user up by id.

    Args:
        user_id: The user's id.
    """
    SEEN.append(("get_user", user_id))
    return {"id": user_id, "name": f"user{user_id}", "active": user_id % 2 == 0}


@tool
async def greet(name: str, punctuation: str = "!") -> str:
    """Greet someone by name."""
    return f"hello {name}{punctuation}"


TOOLS = [get_user, greet]


async def test_a_program_loops_and_branches_over_real_tool_calls(tmp_path: Path) -> None:
    registry = registry_with(TOOLS, tmp_path / "kv.db")
    code = """
names = []
for i in range(1, 5):
    user = await get_user(user_id=i)
    if user["active"]:
        names.append(await greet(user["name"]))
print(len(names), "active")
names
"""
    outcome = await run(registry, code)
    assert value_of(outcome) == ["hello user2!", "hello user4!"]
    assert isinstance(outcome.result, Ok)
    assert outcome.result.value.startswith("2 active\n")
    assert outcome.result.structured is not None
    assert outcome.result.structured["inner_calls"] == 6
    await registry.aclose()


async def test_calls_started_together_run_as_one_batch(tmp_path: Path) -> None:
    arrived: list[int] = []
    everyone = anyio.Event()

    @tool
    async def meet(n: int) -> int:
        """Wait until five calls are in flight at once, then answer n."""
        arrived.append(n)
        if len(arrived) == 5:
            everyone.set()
        with anyio.fail_after(10):  # calls run one by one would wait here forever
            await everyone.wait()
        return n

    registry = registry_with([meet], tmp_path / "kv.db")
    code = """
import asyncio
await asyncio.gather(*[meet(n=i) for i in range(5)])
"""
    assert value_of(await run(registry, code)) == ["0", "1", "2", "3", "4"]  # text
    await registry.aclose()


async def test_a_validation_error_is_an_exception_the_program_can_catch(tmp_path: Path) -> None:
    registry = registry_with(TOOLS, tmp_path / "kv.db")
    code = """
try:
    await get_user(user_id="not a number")
    caught = None
except ValueError as exc:
    caught = str(exc)
caught
"""
    caught = value_of(await run(registry, code))
    assert "get_user failed (input_invalid)" in caught
    assert "user_id" in caught
    await registry.aclose()


async def test_positional_arguments_bind_in_stub_order(tmp_path: Path) -> None:
    registry = registry_with(TOOLS, tmp_path / "kv.db")
    assert value_of(await run(registry, 'await greet("ann", "?")')) == "hello ann?"
    await registry.aclose()


async def test_a_name_that_is_no_tool_raises_name_error(tmp_path: Path) -> None:
    registry = registry_with(TOOLS, tmp_path / "kv.db")
    err = error_of(await run(registry, "await delete_everything()"))
    assert err.code is ErrorCode.EXECUTION_FAILED
    assert "NameError" in err.error
    assert "delete_everything" in err.error
    await registry.aclose()


async def test_a_syntax_error_is_input_invalid_with_its_line(tmp_path: Path) -> None:
    registry = registry_with(TOOLS, tmp_path / "kv.db")
    err = error_of(await run(registry, "x = 1\nif x\n    y = 2\n"))
    assert err.code is ErrorCode.INPUT_INVALID
    assert err.field == "code"
    assert "line 2" in err.error
    await registry.aclose()


async def test_the_sandbox_has_no_filesystem(tmp_path: Path) -> None:
    registry = registry_with(TOOLS, tmp_path / "kv.db")
    err = error_of(await run(registry, "open('/etc/passwd').read()"))
    assert err.code is ErrorCode.EXECUTION_FAILED
    assert "root:" not in err.error
    await registry.aclose()
