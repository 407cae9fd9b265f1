"""`definitions()` hands out copies, whatever shape the schema was written in."""

from __future__ import annotations

import gc
from collections import OrderedDict
from typing import Any

from toolwire import ToolRegistry
from toolwire.results import Ok
from toolwire.tools import define_tool


async def _noop(args: dict[str, Any], ctx: Any) -> Ok:
    return Ok("ok")


def _registry(schema: Any) -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(define_tool(name="t", description="A tool.", schema=schema, execute=_noop))
    return registry


def test_a_schema_marshal_refuses_is_still_copied_deeply() -> None:
    """A dict subclass takes the walking copy (marshal refuses it)."""
    inner = OrderedDict({"type": "string", "enum": ["a", "b"]})
    registry = _registry({"type": "object", "properties": {"x": inner}})
    first = registry.definitions()[0]["parameters"]
    first["properties"]["x"]["enum"].append("c")
    first["properties"]["y"] = {"type": "integer"}
    again = registry.definitions()[0]["parameters"]
    assert again["properties"]["x"]["enum"] == ["a", "b"]
    assert "y" not in again["properties"]


def test_copies_keep_every_value_of_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "number", "minimum": 0.5, "default": None}},
        "required": ["n"],
        "additionalProperties": False,
    }
    registry = _registry(schema)
    copy = registry.definitions()[0]["parameters"]
    assert copy == schema
    assert copy is not registry.definitions()[0]["parameters"]


def test_definitions_pause_the_collector_only_while_copying_and_restore_it() -> None:
    seen: list[bool] = []

    def available() -> bool:
        seen.append(gc.isenabled())
        return True

    registry = ToolRegistry()
    registry.register(
        define_tool(
            name="probe",
            description="Probe.",
            schema={"type": "object", "properties": {"a": {"type": "string"}}},
            execute=_noop,
            is_available=available,
        )
    )
    assert gc.isenabled()
    registry.definitions()
    assert seen == [False]  # paused while the schemas were copied
    assert gc.isenabled()  # and enabled again
    gc.disable()
    try:
        registry.definitions()
        assert not gc.isenabled()  # a collector someone else disabled stays disabled
    finally:
        gc.enable()
