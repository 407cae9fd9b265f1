"""Helpers for the built-in tool tests: run one call, unwrap its result."""

from __future__ import annotations

from typing import Any

from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult


async def run(registry: ToolRegistry, ctx: ToolContext, name: str, **args: Any) -> ToolResult:
    """Run one call through the whole pipeline and return its result."""
    outcome = await registry.execute(name, args, ctx)
    return outcome.result


def ok_value(result: ToolResult) -> str:
    """The value of an ``Ok``; fails the test with the error otherwise."""
    assert isinstance(result, Ok), result
    return result.value


def error_of(result: ToolResult) -> Err:
    """The ``Err``; fails the test when the call succeeded."""
    assert isinstance(result, Err), result
    return result
