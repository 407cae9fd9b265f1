"""``toolwire tools [NAME]``: the tools a ``toolwire serve`` would serve, as a table or JSON;
with NAME, one tool's description and schema."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from toolwire.cli.common import (
    ToolsOption,
    did_you_mean,
    fail_usage,
    load,
    run_configured,
    tool_annotations,
    tool_capabilities,
)
from toolwire.config import ToolwireConfig
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
    listed = run_configured(_list, config)
    if name is not None:
        _show(name, listed, as_json)
        return
    if as_json:
        typer.echo(json.dumps([_as_dict(t) for t in listed], indent=2))
        return
    table = Table(title=f"{len(listed)} tools", title_justify="left")
    for column in ("name", "toolset", "annotations", "capabilities"):
        table.add_column(column)
    for tool in listed:
        table.add_row(
            tool.name, tool.toolset or "", tool_annotations(tool), tool_capabilities(tool)
        )
    Console().print(table)


def _show(name: str, listed: list[Tool], as_json: bool) -> None:
    """One tool: its description and schema; an unknown name exits 2 with the nearest names."""
    found = next((tool for tool in listed if tool.name == name), None)
    if found is None:
        fail_usage(did_you_mean(name, [tool.name for tool in listed]))
    if as_json:
        typer.echo(json.dumps(_as_dict(found), indent=2, ensure_ascii=False))
        return
    facts = [f"toolset {found.toolset}" if found.toolset else "", tool_annotations(found)]
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


async def _list(config: ToolwireConfig) -> list[Tool]:
    async with open_registry(config) as wired:
        return list(wired.registry)


def _as_dict(tool: Tool) -> dict[str, Any]:
    hints = tool.annotations
    return {
        "name": tool.name,
        "toolset": tool.toolset,
        "description": tool.description,
        "annotations": {
            "title": hints.title,
            "read_only": hints.read_only,
            "destructive": hints.destructive,
            "idempotent": hints.idempotent,
            "open_world": hints.open_world,
        }
        if hints is not None
        else None,
        "capabilities": [c for c in tool_capabilities(tool).split(", ") if c],
        "output_is_untrusted": tool.output_is_untrusted,
        "parameters": dict(tool.schema),
    }
