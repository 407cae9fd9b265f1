"""An SDK `MCPServer` for the client-gap and pinning tests (``python gaps_server.py stdio|http``).

Tools: ``busy`` (blocks the server's event loop for ``seconds``: it answers nothing meanwhile,
not even a keep-alive), ``die`` (exits the process mid-call), ``needs_task`` (listed with
``execution.taskSupport = "required"``), ``measure`` (a structured result with an
``outputSchema``, a title and an icon), ``misshapen`` (declares an ``outputSchema`` its
``structuredContent`` does not match) and ``note`` (its description is ``$GAPS_NOTE_TEXT``, so
a test can change a definition between runs).
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, Icon, TextContent, Tool, ToolExecution
from pydantic import BaseModel

MISSHAPEN_SCHEMA = {
    "type": "object",
    "properties": {"count": {"type": "integer"}},
    "required": ["count"],
}


class Measurement(BaseModel):
    """A measurement."""

    value: float
    unit: str


class GapsServer(MCPServer):
    """Lists ``needs_task`` as task-required and ``misshapen`` with its (violated) schema."""

    async def list_tools(self) -> list[Tool]:
        tools = await super().list_tools()
        for index, tool in enumerate(tools):
            if tool.name == "needs_task":
                tools[index] = tool.model_copy(
                    update={"execution": ToolExecution(task_support="required")}
                )
            elif tool.name == "misshapen":
                tools[index] = tool.model_copy(update={"output_schema": MISSHAPEN_SCHEMA})
        return tools


server = GapsServer("gaps-test")


@server.tool()
async def busy(seconds: float) -> str:
    """Block the whole server (its event loop) for ``seconds``."""
    time.sleep(seconds)  # noqa: ASYNC251 - on purpose: a busy, silent, yet alive server
    return f"done after {seconds:g} s"


@server.tool()
def die() -> str:
    """Exit the process in the middle of the call."""
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def needs_task() -> str:
    """Only callable with task augmentation."""
    return "ran without a task"


@server.tool(title="Measure it", icons=[Icon(src="https://example.com/ruler.png")])
def measure(value: float) -> Measurement:
    """Measure a value in metres."""
    return Measurement(value=value, unit="m")


@server.tool(structured_output=False)
def misshapen() -> CallToolResult:
    """Answers a structured result that breaks its declared outputSchema."""
    return CallToolResult(
        content=[TextContent(type="text", text="count: many")],
        structured_content={"count": "many"},
    )


server.add_tool(
    lambda text: f"noted: {text}",
    name="note",
    description=os.environ.get("GAPS_NOTE_TEXT", "Write a note."),
)


def main() -> None:
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        server.run("stdio")
        return
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    print(f"READY http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
