"""A toolwire registry served over stdio, for the lean stdio loop's tests
(``python lean_server.py``; ``TOOLWIRE_MCP_LEAN=0`` serves it through the SDK from the start).

Tools: ``echo`` (titled, read-only), ``structured`` (an output schema, a structured result),
``pictured`` (icons), ``sdk_loaded`` (whether this process has imported the MCP SDK),
``slow`` (sleeps; writes ``$TOOLWIRE_TEST_MARKERS/<tag>`` when aborted), ``fail`` (an
``Err``), ``talker`` (reads its client's peer), ``grow`` (registers one more tool: the tools
change) and ``guarded`` (needs approval); with ``TEST_ODD_SCHEMA=date`` (or ``object``) also
``odd``, whose schema holds a date (or an object that cannot be written as JSON).
``TEST_IDENTITY=1`` gives the server a name, title, description, website, icons and
instructions. ``TEST_HANDLES=1`` keeps trimmed results in the SQLite store
``$TOOLWIRE_TEST_KV``.
"""

from __future__ import annotations

import datetime
import os
import sys
from typing import Any

import anyio
from shared_tools import fail, slow

from toolwire import ToolAnnotations, ToolContext, ToolRegistry, define_tool, ok
from toolwire.mcp import ServeOptions, serve_registry
from toolwire.mcp.server._identity import ServerIcon, ServerIdentity
from toolwire.results import ToolResult

OBJECT: dict[str, Any] = {"type": "object"}
REGISTRY: list[ToolRegistry] = []


async def echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(str(args.get("text", "")))


async def structured(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("2 items", structured={"count": 2, "items": ["a", "b"]})


async def sdk_loaded(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(str("mcp" in sys.modules or "mcp_types" in sys.modules))


async def talker(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    from toolwire.mcp import current_peer

    peer = current_peer()
    return ok("no peer" if peer is None else "peer")


async def grow(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    registry = REGISTRY[0]
    name = f"grown_{len(list(registry))}"
    registry.register(define_tool(name=name, description="Grown.", schema=OBJECT, execute=echo))
    return ok(name)


def build_registry() -> ToolRegistry:
    registry = ToolRegistry(**_handles())
    registry.register_all(
        [
            define_tool(
                name="echo",
                description="Echo the text back.",
                schema={"type": "object", "properties": {"text": {"type": "string"}}},
                execute=echo,
                annotations=ToolAnnotations(title="Echo", read_only=True),
            ),
            define_tool(
                name="structured",
                description="Structured.",
                schema=OBJECT,
                output_schema={
                    "type": "object",
                    "properties": {"count": {"type": "integer"}, "items": {"type": "array"}},
                },
                execute=structured,
                annotations=ToolAnnotations(destructive=False, open_world=False),
            ),
            define_tool(
                name="pictured",
                description="Has icons.",
                schema=OBJECT,
                execute=echo,
                icons=({"src": "https://example.com/i.png", "mimeType": "image/png"},),
            ),
            define_tool(
                name="sdk_loaded", description="SDK imported?", schema=OBJECT, execute=sdk_loaded
            ),
            define_tool(name="slow", description="Sleep.", schema=OBJECT, execute=slow),
            define_tool(name="fail", description="Always fails.", schema=OBJECT, execute=fail),
            define_tool(name="talker", description="Uses its peer.", schema=OBJECT, execute=talker),
            define_tool(name="grow", description="Add a tool.", schema=OBJECT, execute=grow),
            define_tool(
                name="guarded",
                description="Needs approval.",
                schema=OBJECT,
                execute=echo,
                requires_approval=True,
            ),
        ]
    )
    odd = os.environ.get("TEST_ODD_SCHEMA")
    if odd:  # a date (json.dumps alone cannot write it), or an object nothing can write
        value = datetime.date(2020, 1, 2) if odd == "date" else object()
        schema = {"type": "object", "properties": {"when": {"type": "string", "default": value}}}
        registry.register(define_tool(name="odd", description="O.", schema=schema, execute=echo))
    REGISTRY.append(registry)
    return registry


def _handles() -> dict[str, Any]:
    if os.environ.get("TEST_HANDLES") != "1":
        return {}
    from toolwire.capabilities.resolver import CapabilityBackends
    from toolwire.execution.handles import ResultHandles
    from toolwire.stores import SqliteKeyValueBackend

    kv = SqliteKeyValueBackend(os.environ["TOOLWIRE_TEST_KV"])
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    return {"backends": backends, "result_handles": ResultHandles(), "reducers": None}


def options() -> ServeOptions:
    if os.environ.get("TEST_IDENTITY") != "1":
        return ServeOptions()
    identity = ServerIdentity(
        title="Lean tools",
        description="Tools for the lean loop's tests.",
        website_url="https://example.com/lean",
        icons=(
            ServerIcon(src="https://example.com/s.png", mime_type="image/png", sizes=("48x48",)),
        ),
    )
    return ServeOptions(
        name="lean-test", instructions="Use echo.", identity=identity, tools_list_ttl_s=7.5
    )


def main() -> None:
    registry = build_registry()
    anyio.run(lambda: serve_registry(registry, transport="stdio", options=options()))


if __name__ == "__main__":
    main()
