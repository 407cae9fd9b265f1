"""The typer app: global options and the three commands."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from toolwire.cli.call_cmd import call
from toolwire.cli.serve import serve
from toolwire.cli.tools_cmd import tools

__all__ = ["app"]

app = typer.Typer(
    name="toolwire",
    help="Sandboxed, budget-aware tools for LLM agents: serve them over MCP, list them, call one.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def options(
    ctx: typer.Context,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config", "-c", help="Config file (default: $TOOLWIRE_CONFIG or ./toolwire.toml)."
        ),
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log to stderr.")] = False,
) -> None:
    """Read the global options."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING)
    ctx.obj = config


app.command(help="Serve the tools over MCP (streamable HTTP by default, or --stdio).")(serve)
app.command(help="List the tools in a table (name, toolset, annotations, capabilities).")(tools)
app.command(help="Run one call through the full pipeline and print the presented result.")(call)
