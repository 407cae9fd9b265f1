"""One registry whose ``tools/call`` answers every kind of result, for the test that sends the
same calls over the three server paths (``python call_paths_server.py stdio|http``;
``TOOLWIRE_MCP_LEAN=0`` serves through the SDK from the start).

Tools: ``echo``; ``add`` (integers: a string is a validation error); ``fail`` (an ``Err``);
``structured`` (an output schema, a structured result); ``media`` (an image and audio);
``wide`` (structured JSON over the budget, under the presenter's cap); ``big`` (over the
2,000-character budget: kept, answered with its handle); ``guarded`` (needs
approval); ``build`` (long-running: a task when the call asks for one); ``hidden`` (deferred:
found only through ``tool_search``); ``sdk_loaded`` (whether this process imported the SDK).
The key-value store is the SQLite file ``$TOOLWIRE_TEST_KV``. The server's presenter is its
own, with a cap far above the per-request budget.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio

from toolwire import ToolContext, ToolRegistry, define_tool, err, ok
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.execution.handles import ResultHandles
from toolwire.execution.tasks import Tasks
from toolwire.mcp import ServeOptions, serve_registry
from toolwire.presenting import Presenter, PresenterOptions
from toolwire.results import ToolResult
from toolwire.stores import SqliteKeyValueBackend

OBJECT: dict[str, Any] = {"type": "object"}
BUDGET = 2000
PRESENTER_CAP = 50_000
PNG = (  # one transparent pixel
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


async def echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(str(args.get("text", "")))


async def add(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(str(args["a"] + args["b"]))


async def fail(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return err("the build broke")


async def structured(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("2 items", structured={"count": 2, "items": ["a", "b"]})


async def media(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    image = {"mime_type": "image/png", "data": PNG}
    audio = {"mime_type": "audio/wav", "data": "UklGRg=="}
    return ok("a picture and a sound", structured={"image": image, "audio": audio})


async def wide(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("60 rows", structured={"rows": ["x" * 50] * 60})


async def big(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("".join(f"entry {i:05d}\n" for i in range(1000)))


async def sdk_loaded(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(str("mcp" in sys.modules or "mcp_types" in sys.modules))


def build_registry(kv: SqliteKeyValueBackend) -> ToolRegistry:
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    registry = ToolRegistry(
        backends=backends,
        result_handles=ResultHandles(),
        reducers=None,
        tasks=Tasks(hand_off_s=5.0, poll_s=0.05),
    )
    integers = {"type": "integer"}
    registry.register_all(
        [
            define_tool(
                name="echo",
                description="Echo.",
                schema={"type": "object", "properties": {"text": {"type": "string"}}},
                execute=echo,
            ),
            define_tool(
                name="add",
                description="Add.",
                schema={
                    "type": "object",
                    "properties": {"a": integers, "b": integers},
                    "required": ["a", "b"],
                },
                execute=add,
            ),
            define_tool(name="fail", description="Fail.", schema=OBJECT, execute=fail),
            define_tool(
                name="structured",
                description="Structured.",
                schema=OBJECT,
                output_schema={
                    "type": "object",
                    "properties": {"count": {"type": "integer"}, "items": {"type": "array"}},
                },
                execute=structured,
            ),
            define_tool(name="media", description="Media.", schema=OBJECT, execute=media),
            define_tool(name="wide", description="Wide.", schema=OBJECT, execute=wide),
            define_tool(name="big", description="Big.", schema=OBJECT, execute=big),
            define_tool(
                name="guarded",
                description="Needs approval.",
                schema=OBJECT,
                execute=echo,
                requires_approval=True,
            ),
            define_tool(
                name="build", description="Build.", schema=OBJECT, execute=echo, long_running=True
            ),
            define_tool(
                name="hidden",
                description="Create an issue in the tracker.",
                schema=OBJECT,
                execute=echo,
                defer_loading=True,
            ),
            define_tool(
                name="sdk_loaded", description="SDK imported?", schema=OBJECT, execute=sdk_loaded
            ),
        ]
    )
    return registry


def main() -> None:
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"

    def ready(address: str) -> None:
        print(f"READY {address}", file=sys.stderr, flush=True)

    async def serve() -> None:
        async with SqliteKeyValueBackend(os.environ["TOOLWIRE_TEST_KV"]) as kv:
            await serve_registry(
                build_registry(kv),
                transport=transport,  # type: ignore[arg-type]
                port=0,
                options=ServeOptions(
                    result_budget_chars=BUDGET,
                    presenter=Presenter(PresenterOptions(ingestion_cap_chars=PRESENTER_CAP)),
                ),
                on_ready=ready,
            )

    anyio.run(serve)


if __name__ == "__main__":
    main()
