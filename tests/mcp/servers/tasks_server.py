"""A toolwire registry with task-worthy tools served over MCP, for the Tasks tests
(``python tasks_server.py stdio|http``).

Tools: ``build`` (long-running: sleeps ``seconds``, then answers ``built <label>``), ``fail``
(long-running: sleeps, then fails), ``echo`` and ``limited`` (a quota allows it 2 calls per
session and hour). Task records and quota counters live in the SQLite store at
``$TOOLWIRE_TEST_KV`` (a file in the test's temporary directory).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio

from toolwire import ToolContext, ToolRegistry, define_tool, err, ok
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.execution.quotas import Quota, Quotas
from toolwire.execution.tasks import Tasks
from toolwire.mcp import ServeOptions, serve_registry
from toolwire.results import ToolResult
from toolwire.stores import SqliteKeyValueBackend

SLEEP = {
    "type": "object",
    "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}},
    "required": ["seconds"],
}


async def build(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    await anyio.sleep(float(args["seconds"]))
    return ok(f"built {args.get('label', '')}".strip())


async def fail(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    await anyio.sleep(float(args["seconds"]))
    return err("the build broke")


async def echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(str(args.get("text", "")))


def build_registry(kv: SqliteKeyValueBackend) -> ToolRegistry:
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    quotas = Quotas([Quota(name="limited", tools=["limited"], calls=2, window_s=3600)])
    registry = ToolRegistry(
        backends=backends, tasks=Tasks(hand_off_s=0.05, poll_s=0.05), quotas=quotas
    )
    registry.register_all(
        [
            define_tool(
                name="build", description="Build.", schema=SLEEP, execute=build, long_running=True
            ),
            define_tool(
                name="fail", description="Fail.", schema=SLEEP, execute=fail, long_running=True
            ),
            define_tool(name="limited", description="Limited.", schema=SLEEP, execute=build),
            define_tool(
                name="echo",
                description="Echo.",
                schema={"type": "object", "properties": {"text": {"type": "string"}}},
                execute=echo,
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
                port=int(os.environ.get("TEST_PORT", "0")),
                options=ServeOptions(),
                on_ready=ready,
            )

    anyio.run(serve)


if __name__ == "__main__":
    main()
