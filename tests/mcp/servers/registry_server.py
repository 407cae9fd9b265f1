"""A toolwire registry served over MCP, for the tests (``python registry_server.py stdio|http``).

Tools: ``echo``, ``slow`` (sleeps, reports abort), ``progress`` (user progress events), ``big``
(a 20 MB result), ``fail`` (an ``Err``), ``structured`` (``Ok.structured``), ``crash`` (the
process exits) and ``sync_wait`` (a sync tool that polls its abort signal). Aborted calls
write ``$TOOLWIRE_TEST_MARKERS/<tag>``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import anyio
from shared_tools import MARKERS, fail, slow

from toolwire import Tool, ToolAnnotations, ToolContext, ToolRegistry, define_tool, err, ok
from toolwire.context import ProgressEvent
from toolwire.mcp import ServeOptions, serve_registry
from toolwire.results import ToolResult

OBJECT = {"type": "object"}
SLEEP_SCHEMA = {
    "type": "object",
    "properties": {"seconds": {"type": "number"}, "tag": {"type": "string"}},
    "required": ["seconds"],
}


def _schema(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props)}


async def echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(str(args["text"]))


async def progress(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    for step in range(1, 4):
        ctx.emit(
            ProgressEvent(
                tool_name="progress", message=f"step {step}", percent=step * 25.0, audience="user"
            )
        )
        ctx.emit(ProgressEvent(tool_name="progress", message="internal detail"))
        await anyio.sleep(0.01)
    return ok("done")


async def big(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("x" * 20_000_000)


async def structured(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok("3 items", structured={"count": 3, "items": ["a", "b", "c"]})


async def crash(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    os._exit(3)


def sync_wait(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    deadline = time.monotonic() + float(args["seconds"])
    while time.monotonic() < deadline:
        if ctx.abort_signal.aborted:
            (MARKERS / str(args.get("tag", "sync"))).write_text(
                f"sync aborted: {ctx.abort_signal.reason}"
            )
            return err("aborted")
        time.sleep(0.01)
    return ok("waited")


def build_registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register_all(
        [
            define_tool(
                name="echo",
                description="Echo the text back.",
                schema=_schema(text={"type": "string"}),
                execute=echo,
                annotations=ToolAnnotations(title="Echo", read_only=True, idempotent=True),
            ),
            define_tool(
                name="slow",
                description="Sleep.",
                schema=SLEEP_SCHEMA,
                execute=slow,
            ),
            define_tool(
                name="progress", description="Report progress.", schema=OBJECT, execute=progress
            ),
            define_tool(name="big", description="A 20 MB result.", schema=OBJECT, execute=big),
            define_tool(name="fail", description="Always fails.", schema=OBJECT, execute=fail),
            define_tool(
                name="structured",
                description="Structured.",
                schema=OBJECT,
                execute=structured,
                annotations=ToolAnnotations(destructive=False, open_world=False),
            ),
            define_tool(
                name="crash", description="Exit the process.", schema=OBJECT, execute=crash
            ),
            Tool(
                name="sync_wait",
                description="Sync wait.",
                schema=SLEEP_SCHEMA,
                execute=_threaded(sync_wait),
            ),
        ]
    )
    return registry


def _threaded(fn: Any) -> Any:
    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await anyio.to_thread.run_sync(fn, args, ctx, abandon_on_cancel=True)

    return run


def main() -> None:
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    options = ServeOptions(result_budget_chars=int(os.environ.get("TEST_BUDGET", "80000")))

    def ready(address: str) -> None:
        print(f"READY {address}", file=sys.stderr, flush=True)

    anyio.run(
        lambda: serve_registry(
            build_registry(),
            transport=transport,  # type: ignore[arg-type]
            port=int(os.environ.get("TEST_PORT", "0")),
            options=options,
            on_ready=ready,
        )
    )


if __name__ == "__main__":
    main()
