"""`definitions()` hands out copies, whatever shape the schema was written in."""

from __future__ import annotations

import gc
from collections import OrderedDict
from typing import Any

from toolwire import ToolRegistry
from toolwire.providers._snapshot import ToolSnapshot
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


def test_each_definition_keeps_its_own_schema_when_some_are_left_out() -> None:
    """The copies come from one blob: a tool left out (not in the snapshot, unavailable) or one
    marshal refuses must not shift the schemas onto the wrong names."""
    registry = ToolRegistry()
    schemas = {
        "plain": {"type": "object", "title": "plain"},
        "odd": OrderedDict({"type": "object", "title": "odd"}),
        "hidden": {"type": "object", "title": "hidden"},
        "last": {"type": "object", "title": "last"},
    }
    tools = {
        name: define_tool(
            name=name,
            description="A tool.",
            schema=schema,
            execute=_noop,
            is_available=(lambda: False) if name == "hidden" else None,
        )
        for name, schema in schemas.items()
    }
    registry.register_all(list(tools.values()))
    shown = {d["name"]: d["parameters"]["title"] for d in registry.definitions()}
    assert shown == {"plain": "plain", "odd": "odd", "last": "last"}
    snapshot = ToolSnapshot.of([tools["odd"], tools["last"]])
    picked = {d["name"]: d["parameters"]["title"] for d in registry.definitions(snapshot=snapshot)}
    assert picked == {"odd": "odd", "last": "last"}


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
