"""``toolwire mcp pins|approve|forget``: the pinned tool definitions of bridged MCP servers.

A bridged tool whose definition changed since it was first seen is not served (``pin = "refuse"``,
the default) until ``toolwire mcp approve <server> [<tool>]`` accepts the change
(`toolwire.mcp.client.pinning`). The pins live in the configured store (``[store] url``), so the
approval counts for every server process reading that store; a running ``toolwire serve`` serves the
approved tool at its next listing of that server (its keep-alive re-lists the tools every
``ping_interval_s``, 30 s by default).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from toolwire.cli.common import fail_usage, list_records, load_persistent, run_configured, stderr
from toolwire.config import ToolwireConfig

if TYPE_CHECKING:  # the MCP SDK loads only when a command runs
    from toolwire.mcp.client.pinning import PinnedTool

__all__ = ["mcp_app"]

_LOST = "where pins live only inside one process"
"""What a ``memory://`` store would lose (see `load_persistent`)."""

mcp_app = typer.Typer(
    help="Bridged MCP servers: pinned tool definitions and their approval.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@mcp_app.command("pins")
def pins(
    ctx: typer.Context,
    server: Annotated[str | None, typer.Argument(help="Only this server's pins.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List the pinned definitions; a changed one awaiting approval is marked CHANGED."""
    config = load_persistent(ctx, _LOST)
    list_records(
        run_configured(_entries, config, server),
        as_json=as_json,
        as_dict=_as_dict,
        line=_line,
        none="no pinned definitions yet (they are pinned when first seen)",
    )


def _line(record: PinnedTool) -> str:
    state = f"CHANGED to {record.pending}" if record.pending else "pinned"
    return f"{record.server}  {record.tool}  {record.pinned}  {state}"


@mcp_app.command("approve")
def approve(
    ctx: typer.Context,
    server: Annotated[str, typer.Argument(help="The server's name ([mcp.servers.<name>]).")],
    tool: Annotated[
        str | None, typer.Argument(help="The tool's name on the server (default: every one).")
    ] = None,
) -> None:
    """Trust the changed definition of a tool (of every changed tool of the server)."""
    config = load_persistent(ctx, _LOST)
    approved = run_configured(_approve, config, server, tool)
    if not approved:
        what = f"tool {tool!r} of server {server!r}" if tool else f"server {server!r}"
        fail_usage(f"no changed definition awaits approval for {what}; `toolwire mcp pins`")
    for name in approved:
        stderr.print(f"approved the new definition of {server}/{name}", markup=False)


@mcp_app.command("forget")
def forget(
    ctx: typer.Context,
    server: Annotated[str, typer.Argument(help="The server's name.")],
    tool: Annotated[str | None, typer.Argument(help="One tool (default: every one).")] = None,
) -> None:
    """Drop pins, so the next definition seen is pinned afresh (e.g. a server was replaced)."""
    config = load_persistent(ctx, _LOST)
    dropped = run_configured(_forget, config, server, tool)
    stderr.print(f"dropped {dropped} pin(s)", markup=False)


async def _entries(config: ToolwireConfig, server: str | None) -> list[PinnedTool]:
    from toolwire.mcp.client.pinning import DefinitionPins
    from toolwire.stores import create_kv_backend

    async with create_kv_backend(config.store_url) as backend:
        return await DefinitionPins.in_backend(backend).entries(server)


async def _approve(config: ToolwireConfig, server: str, tool: str | None) -> list[str]:
    from toolwire.mcp.client.pinning import DefinitionPins
    from toolwire.stores import create_kv_backend

    async with create_kv_backend(config.store_url) as backend:
        return await DefinitionPins.in_backend(backend).approve(server, tool)


async def _forget(config: ToolwireConfig, server: str, tool: str | None) -> int:
    from toolwire.mcp.client.pinning import DefinitionPins
    from toolwire.stores import create_kv_backend

    async with create_kv_backend(config.store_url) as backend:
        return await DefinitionPins.in_backend(backend).forget(server, tool)


def _as_dict(record: PinnedTool) -> dict[str, str | None]:
    return {
        "server": record.server,
        "tool": record.tool,
        "pinned": record.pinned,
        "pending": record.pending,
    }
