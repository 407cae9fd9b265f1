"""A toolwire registry with result handles and an approval-gated tool, served over MCP for the
tests (``python handles_server.py stdio|http``).

Tools: ``big`` (a result over the budget, with a GitHub-token-shaped secret in its tail),
``web_page`` (the same, from an untrusted tool), ``deploy`` (``requires_approval``; each run
appends a line to ``$TOOLWIRE_TEST_MARKERS/deploys``) and ``read_result``. The key-value store
is the SQLite file ``$TOOLWIRE_TEST_KV``, so two server processes can share it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio

from toolwire import ToolContext, ToolRegistry, define_tool, ok
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.execution.handles import ResultHandles
from toolwire.mcp import ServeOptions, serve_registry
from toolwire.results import ToolResult
from toolwire.stores import SqliteKeyValueBackend
from toolwire.toolbox._kept_results import read_result

MARKERS = Path(os.environ.get("TOOLWIRE_TEST_MARKERS", "."))
BUDGET = 2000
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
TEXT = "".join(f"entry {i:05d}\n" for i in range(1000)) + f"token={SECRET}\n"
OBJECT: dict[str, Any] = {"type": "object"}


async def big(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(TEXT)


async def deploy(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    with (MARKERS / "deploys").open("a") as marks:
        marks.write(f"{args.get('env')}\n")
    return ok(f"deployed to {args.get('env')}")


def build_registry() -> ToolRegistry:
    kv = SqliteKeyValueBackend(os.environ["TOOLWIRE_TEST_KV"])
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    registry = ToolRegistry(backends=backends, result_handles=ResultHandles(), reducers=None)
    registry.register_all(
        [
            define_tool(name="big", description="A big result.", schema=OBJECT, execute=big),
            define_tool(
                name="web_page",
                description="An untrusted big result.",
                schema=OBJECT,
                execute=big,
                output_is_untrusted=True,
            ),
            define_tool(
                name="deploy",
                description="Deploy the service.",
                schema={"type": "object", "properties": {"env": {"type": "string"}}},
                execute=deploy,
                requires_approval=True,
            ),
            read_result,
        ]
    )
    registry.add_cleanup(kv.aclose)
    return registry


def main() -> None:
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"

    def ready(address: str) -> None:
        print(f"READY {address}", file=sys.stderr, flush=True)

    anyio.run(
        lambda: serve_registry(
            build_registry(),
            transport=transport,  # type: ignore[arg-type]
            port=int(os.environ.get("TEST_PORT", "0")),
            options=ServeOptions(result_budget_chars=BUDGET),
            on_ready=ready,
        )
    )


if __name__ == "__main__":
    main()
