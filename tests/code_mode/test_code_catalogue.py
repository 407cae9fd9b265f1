"""A large catalogue in code mode: ``run_code``'s description stays small, ``tool_search`` returns
the typed stubs of what it finds, a found tool is callable from the session's next program, and a
deferred tool the session never found is refused inside the program."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from code_helpers import error_of, registry_with, value_of

from toolwire.calls import CallOutcome, ToolCall
from toolwire.code_mode import CodeModeSettings
from toolwire.context import ToolContext
from toolwire.providers._base import ProviderContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode, Ok, ToolResult, ok
from toolwire.tool_search import DeferralRules, ToolSearch
from toolwire.tools import Tool

pytestmark = pytest.mark.anyio

SESSION = "s-big"


async def _stock(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("12", structured={"sku": args["sku"], "units": 12})


async def _convert(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    rate = {"EUR": 0.5, "GBP": 0.25}[args["to"]]
    return ok("converted", structured={"amount": args["amount"] * rate, "currency": args["to"]})


def _generated(count: int) -> list[Tool]:
    return [
        Tool(
            name=f"warehouse_{i}_stock",
            description=f"Units in stock at warehouse number {i} for one product sku.",
            schema={
                "type": "object",
                "properties": {"sku": {"type": "string", "description": "The product sku."}},
                "required": ["sku"],
            },
            execute=_stock,
        )
        for i in range(count)
    ]


CONVERT = Tool(
    name="convert_currency",
    description="Convert an amount of US dollars into another currency.",
    schema={
        "type": "object",
        "properties": {
            "amount": {"type": "number", "description": "Dollars."},
            "to": {"type": "string", "enum": ["EUR", "GBP"]},
        },
        "required": ["amount", "to"],
    },
    output_schema={
        "type": "object",
        "properties": {"amount": {"type": "number"}, "currency": {"type": "string"}},
    },
    execute=_convert,
)


async def _step(
    registry: ToolRegistry, name: str, args: dict[str, Any], session: str = SESSION
) -> CallOutcome:
    """One model step the way an adapter runs it: under the session's snapshot."""
    snapshot = await registry.tool_search.snapshot(ProviderContext(session_id=session))
    outcomes = await registry.execute_parallel(
        [ToolCall(id=f"{name}-call", name=name, args=args)],
        ToolContext(session_id=session),
        snapshot=snapshot,
    )
    return outcomes[0]


@pytest.fixture
async def big(tmp_path: Path) -> Any:
    registry = registry_with([*_generated(300), CONVERT], tmp_path / "kv.db")
    async with registry:
        yield registry


async def test_the_description_stays_small_and_the_model_is_shown_two_tools(
    big: ToolRegistry,
) -> None:
    run_code = big.get("run_code")
    assert run_code is not None
    assert len(run_code.description) < 2_000
    assert "tool_search" in run_code.description
    assert "warehouse_" not in run_code.description
    assert {d["name"] for d in big.definitions()} == {"run_code", "tool_search"}


async def test_search_returns_stubs_and_the_found_tool_runs_in_the_next_program(
    big: ToolRegistry,
) -> None:
    found = await _step(big, "tool_search", {"query": "convert dollars currency", "limit": 1})
    assert isinstance(found.result, Ok)
    stubs = found.result.structured["stubs"]  # type: ignore[index]
    assert (
        "async def convert_currency(*, amount: float, to: Literal['EUR', 'GBP']) -> "
        "ConvertCurrencyResult:" in stubs
    )
    assert "class ConvertCurrencyResult(TypedDict, total=False):" in stubs
    assert "async def convert_currency" in found.result.value
    program = 'r = await convert_currency(amount=10, to="EUR")\nr["amount"]'
    assert value_of(await _step(big, "run_code", {"code": program})) == 5.0


async def test_a_deferred_tool_the_session_never_found_is_refused_in_the_program(
    big: ToolRegistry,
) -> None:
    await _step(big, "tool_search", {"query": "convert dollars currency", "limit": 1})
    caught = """
try:
    await warehouse_7_stock(sku="A1")
except PermissionError as exc:
    message = str(exc)
message
"""
    message = value_of(await _step(big, "run_code", {"code": caught}))
    assert "warehouse_7_stock failed (not_available)" in message
    assert "find it with tool_search first" in message
    uncaught = await _step(big, "run_code", {"code": 'await warehouse_7_stock(sku="A1")'})
    assert error_of(uncaught).code is ErrorCode.EXECUTION_FAILED
    assert "tool_search" in error_of(uncaught).error
    program = 'await convert_currency(amount=1, to="GBP")'
    other = await _step(big, "run_code", {"code": program}, "s2")
    assert "find it with tool_search first" in error_of(other).error  # found in another session


async def test_a_small_catalogue_lists_every_stub_and_defers_nothing(tmp_path: Path) -> None:
    registry = registry_with(_generated(5), tmp_path / "kv.db")
    async with registry:
        run_code = registry.get("run_code")
        assert run_code is not None
        assert "async def warehouse_4_stock(*, sku: str)" in run_code.description
        assert "tool_search" not in run_code.description
        assert registry.deferred_names == frozenset()


async def test_max_stub_chars_sets_the_threshold(tmp_path: Path) -> None:
    settings = CodeModeSettings(max_stub_chars=200)
    registry = registry_with(_generated(5), tmp_path / "kv.db", settings)
    async with registry:
        assert {d["name"] for d in registry.definitions()} == {"run_code", "tool_search"}


async def test_run_code_is_never_deferred_by_the_registrys_own_threshold(tmp_path: Path) -> None:
    registry = ToolRegistry()
    registry.register_all(_generated(30))
    ToolSearch(registry, rules=DeferralRules(max_tools=10))
    from toolwire.code_mode import run_code_tool

    registry.register(run_code_tool(registry))
    async with registry:
        assert "run_code" not in registry.deferred_names
        assert {d["name"] for d in registry.definitions()} == {"run_code", "tool_search"}
        found = await _step(registry, "tool_search", {"query": "warehouse 3", "limit": 2})
        assert "stubs" in found.result.structured  # type: ignore[union-attr,operator]
