"""The client the conformance suite's client scenarios run: `McpProvider` through a registry.

``python -m toolwire.mcp.conformance.client <server-url>``, with the scenario's name in
``MCP_CONFORMANCE_SCENARIO`` (the suite appends the URL of the server it started and sets the
variable). The client connects with `McpProvider` over streamable HTTP, bridges the server's
tools into a `ToolRegistry` and calls them through the full pipeline (validation, timeout,
presenter), with `ClientHandlers` answering elicitation (accepting, so that the defaults of
the fields it leaves out are filled in), sampling and roots as a host would. Exit status 0
when every call it made succeeded, 1 otherwise (the suite judges by what it observed).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

import anyio
import mcp_types as mt

from toolwire.context import ToolContext
from toolwire.mcp.client.bridge import bridge_into
from toolwire.mcp.client.handlers import ClientHandlers
from toolwire.mcp.client.provider import McpProvider
from toolwire.mcp.settings import McpServerConfig
from toolwire.registry import ToolRegistry

__all__ = ["SCENARIO_CALLS", "conformance_handlers", "main", "run_scenario"]

SERVER_NAME = "conformance"
"""The bridged server's name: its tools are ``mcp__conformance__<tool>``."""
SCENARIO_CALLS: Mapping[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "initialize": (),
    "tools_call": (("add_numbers", {"a": 5, "b": 3}),),
    "elicitation-sep1034-client-defaults": (("test_client_elicitation_defaults", {}),),
    "sse-retry": (("test_reconnection", {}),),
}
"""The remote tools each scenario has the client call (after listing them)."""


async def _accept_form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
    return mt.ElicitResult(action="accept", content={})


async def _sample(params: mt.CreateMessageRequestParams) -> mt.CreateMessageResult:
    content = mt.TextContent(type="text", text="A reply from the conformance client.")
    return mt.CreateMessageResult(
        role="assistant", content=content, model="toolwire-conformance", stop_reason="endTurn"
    )


async def _roots() -> list[mt.Root]:
    return [mt.Root.model_validate({"uri": "file:///tmp", "name": "tmp"})]


def conformance_handlers() -> ClientHandlers:
    """A host that accepts every form (with its defaults), answers sampling with a fixed
    reply and offers ``/tmp`` as its one root."""
    return ClientHandlers(sampling=_sample, elicitation=_accept_form, roots=_roots)


async def run_scenario(scenario: str, url: str) -> list[str]:
    """Run ``scenario`` against ``url``; the problems met (empty when all went well)."""
    config = McpServerConfig(name=SERVER_NAME, url=url, connect_timeout_s=20.0, timeout_s=25.0)
    registry = ToolRegistry()
    problems: list[str] = []
    async with McpProvider(config, handlers=conformance_handlers()) as provider:
        bridge_into(registry, provider)
        ctx = ToolContext(session_id="conformance-client", platform="mcp")
        for remote, args in SCENARIO_CALLS.get(scenario, ()):
            name = f"mcp__{SERVER_NAME}__{remote}"
            outcome = await registry.execute(name, args, ctx, call_id=remote)
            if not outcome.result.ok:
                problems.append(f"{name}: {outcome.result}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """The command line: ``<server-url>``; the scenario from ``MCP_CONFORMANCE_SCENARIO``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m toolwire.mcp.conformance.client <server-url>", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    problems = anyio.run(run_scenario, scenario, args[0])
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
