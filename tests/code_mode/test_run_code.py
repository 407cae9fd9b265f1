"""``run_code``: programs with loops, branches and gather calling real registered tools."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from code_helpers import ctx, error_of, registry_with, run, value_of

from toolwire.calls import ToolCall
from toolwire.code_mode import callable_tools, render_stubs
from toolwire.decorator import tool
from toolwire.results import ErrorCode, Ok, ToolResult, ok
from toolwire.tools import define_tool

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


async def test_an_mcp_tool_is_called_through_its_server_namespace(tmp_path: Path) -> None:
    async def create(args: dict[str, object], ctx: object) -> ToolResult:
        return ok(f"created {args['title']}", structured={"number": 7})

    create_issue = define_tool(
        name="mcp__github__create_issue",
        description="Create an issue.",
        schema={
            "type": "object",
            "properties": {"title": {"type": "string"}},
            "required": ["title"],
        },
        output_schema={"type": "object", "properties": {"number": {"type": "integer"}}},
        execute=create,  # type: ignore[arg-type]
    )
    registry = registry_with([create_issue], tmp_path / "kv.db")
    issue = value_of(await run(registry, 'await github.create_issue(title="bug")'))
    assert issue == {"number": 7}
    err = error_of(await run(registry, "x = 1\nif x\n    y = 2\n"))
    assert "line 2" in err.error  # the namespace import added in front does not shift lines
    await registry.aclose()


def test_the_stubs_show_types_defaults_namespaces_and_result_types() -> None:
    create_issue = define_tool(
        name="mcp__github__create_issue",
        description="Create an issue.",
        schema={
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "labels": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["title"],
        },
        output_schema={"type": "object", "properties": {"number": {"type": "integer"}}},
        execute=lambda args, ctx: None,  # type: ignore[arg-type,return-value]
    )
    stubs = render_stubs(callable_tools([greet, create_issue]))
    assert "async def greet(*, name: str, punctuation: str = '!') -> Any:" in stubs
    assert "class github:" in stubs
    assert "async def create_issue(*, title: str, labels: list[str] = ...)" in stubs
    assert "class GithubCreateIssueResult(TypedDict, total=False):\n    number: int" in stubs
    compile(stubs, "<stubs>", "exec")  # the stubs are valid Python


async def test_inner_calls_are_admitted_as_the_batch_run_code_came_in(tmp_path: Path) -> None:
    registry = registry_with(TOOLS, tmp_path / "kv.db")
    code = """
try:
    await get_user(user_id=1)
    answer = "ran"
except PermissionError as exc:
    answer = str(exc)
answer
"""
    call = ToolCall(id="c1", name="run_code", args={"code": code})
    (outcome,) = await registry.execute_parallel(
        [call], ctx(), filter_opts={"exclude_tools": ["get_user"]}
    )
    assert "get_user failed (not_available)" in value_of(outcome)
    await registry.aclose()


async def test_a_top_level_return_is_the_result_and_the_environment_is_unreadable(
    tmp_path: Path,
) -> None:
    registry = registry_with(TOOLS, tmp_path / "kv.db")
    assert value_of(await run(registry, "x = 40\nreturn x + 2")) == 42
    err = error_of(await run(registry, "import os\nos.environ.get('HOME')"))
    assert err.cause == "exception"
    assert "line 2" in err.error
    await registry.aclose()


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_on_trio_run_code_answers_not_available(tmp_path: Path) -> None:
    registry = registry_with(TOOLS, tmp_path / "kv.db")
    err = error_of(await run(registry, "1"))
    assert err.code is ErrorCode.NOT_AVAILABLE
    assert err.reason == "asyncio_only"
    await registry.aclose()
