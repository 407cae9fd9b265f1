"""``toolwire tools``: the tools a ``toolwire serve`` would serve, as a table or JSON."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from toolwire.cli.common import load, run_configured, tool_annotations, tool_capabilities
from toolwire.config import ToolwireConfig
from toolwire.tools import Tool
from toolwire.wiring import open_registry

__all__ = ["tools"]


def tools(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List the tools: name, toolset, annotations, capabilities."""
    config = load(ctx)
    listed = run_configured(_list, config)
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
