"""``toolwire tools [NAME]``: the tools a ``toolwire serve`` would serve, as a table or JSON;
with NAME, one tool's description and schema.

The table holds what ``tools/list`` sends, with the hints it sends; the tools withheld from it
(a ``web_search`` without its key, a code tool without a checker) follow, each with why
(`toolwire.cli.tool_words.offered_and_withheld`). The JSON lists every tool, each with
``listed`` and, when withheld, ``withheld: {reason, message}``.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from toolwire.availability import Unavailable
from toolwire.cli.common import (
    ToolsOption,
    did_you_mean,
    fail_usage,
    load,
    run_configured,
    tool_annotations,
    tool_capabilities,
)
from toolwire.cli.tool_words import offered_and_withheld
from toolwire.config import ToolwireConfig
from toolwire.mcp.server.listing import hint_entry
from toolwire.tools import Tool
from toolwire.wiring import open_registry

__all__ = ["tools"]


def tools(
    ctx: typer.Context,
    name: Annotated[
        str | None, typer.Argument(help="Show this tool's description and parameters.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    tools: ToolsOption = None,
) -> None:
    """List the tools: name, toolset, annotations, capabilities. With NAME, show that tool's
    description and the JSON Schema of its parameters."""
    config = load(ctx, tools)
    listed, withheld = run_configured(_list, config)
    why = {tool.name: reason for tool, reason in withheld}
    every = [*listed, *(tool for tool, _ in withheld)]
    if name is not None:
        _show(name, every, why, as_json)
        return
    if as_json:
        typer.echo(json.dumps([_as_dict(t, why.get(t.name)) for t in every], indent=2))
        return
    table = Table(title=f"{len(listed)} tools", title_justify="left")
    for column in ("name", "toolset", "annotations", "capabilities"):
        table.add_column(column)
    for tool in listed:
        table.add_row(
            tool.name, tool.toolset or "", tool_annotations(tool), tool_capabilities(tool)
        )
    console = Console()
    console.print(table)
    if withheld:
        console.print(f"{len(withheld)} withheld (not in tools/list):", markup=False)
    for tool, reason in withheld:
        console.print(f"  {tool.name}: {reason.message} ({reason.reason})", markup=False)


def _show(name: str, every: list[Tool], why: dict[str, Unavailable], as_json: bool) -> None:
    """One tool: its description and schema; an unknown name exits 2 with the nearest names."""
    found = next((tool for tool in every if tool.name == name), None)
    if found is None:
        fail_usage(did_you_mean(name, [tool.name for tool in every]))
    withheld = why.get(found.name)
    if as_json:
        typer.echo(json.dumps(_as_dict(found, withheld), indent=2, ensure_ascii=False))
        return
    facts = [f"toolset {found.toolset}" if found.toolset else "", tool_annotations(found)]
    if withheld is not None:
        facts.insert(0, f"withheld from tools/list: {withheld.message} ({withheld.reason})")
    capabilities = tool_capabilities(found)
    if capabilities:
        facts.append(f"capabilities: {capabilities}")
    if found.output_is_untrusted:
        facts.append("output is untrusted")
    details = "; ".join(fact for fact in facts if fact)
    typer.echo(found.name + (f"  ({details})" if details else ""))
    typer.echo("")
    typer.echo(found.description.strip())
    typer.echo("")
    typer.echo("Parameters (JSON Schema):")
    typer.echo(json.dumps(dict(found.schema), indent=2, ensure_ascii=False))


async def _list(config: ToolwireConfig) -> tuple[list[Tool], list[tuple[Tool, Unavailable]]]:
    async with open_registry(config) as wired:
        return offered_and_withheld(wired.registry)


def _as_dict(tool: Tool, withheld: Unavailable | None = None) -> dict[str, Any]:
    """A tool as ``--json`` prints it; its annotations are the hints ``tools/list`` sends."""
    hints = hint_entry(tool.annotations)
    data: dict[str, Any] = {
        "name": tool.name,
        "toolset": tool.toolset,
        "description": tool.description,
        "listed": withheld is None,
        "annotations": {
            "title": hints.get("title"),
            "read_only": hints["readOnlyHint"],
            "destructive": hints["destructiveHint"],
            "idempotent": hints["idempotentHint"],
            "open_world": hints["openWorldHint"],
        },
        "capabilities": [c for c in tool_capabilities(tool).split(", ") if c],
        "output_is_untrusted": tool.output_is_untrusted,
        "parameters": dict(tool.schema),
    }
    if withheld is not None:
        data["withheld"] = {"reason": withheld.reason, "message": withheld.message}
    return data
