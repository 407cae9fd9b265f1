"""Registries with real tools, a real SQLite store and the real Monty interpreter."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from toolwire.calls import CallOutcome
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.code_mode import CodeModeSettings, run_code_tool
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok
from toolwire.stores._sqlite import SqliteKeyValueBackend
from toolwire.tools import Tool

pytest.importorskip("pydantic_monty")


def registry_with(
    tools: Iterable[Tool], db: Path, settings: CodeModeSettings | None = None
) -> ToolRegistry:
    """A registry on the SQLite file ``db`` holding ``tools`` and ``run_code``."""
    kv = SqliteKeyValueBackend(db)
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    registry = ToolRegistry(backends=backends, reducers=None)
    registry.register_all(list(tools))
    registry.register(run_code_tool(registry, settings))
    return registry


def ctx() -> ToolContext:
    return ToolContext(session_id="s-code")


async def run(registry: ToolRegistry, code: str, approvals: list[str] | None = None) -> CallOutcome:
    return await registry.execute("run_code", {"code": code}, ctx(), approvals=approvals)


def value_of(outcome: CallOutcome) -> Any:
    assert isinstance(outcome.result, Ok), outcome.result
    assert outcome.result.structured is not None
    return outcome.result.structured["result"]


def error_of(outcome: CallOutcome) -> Err:
    assert isinstance(outcome.result, Err), outcome.result
    return outcome.result
