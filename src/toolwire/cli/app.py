"""The typer app: global options (``--config``, ``--verbose``, ``--version``) and the
commands."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from toolwire.cli.call_cmd import call
from toolwire.cli.doctor_cmd import doctor
from toolwire.cli.extras import require_extra
from toolwire.cli.mcp_cmd import mcp_app
from toolwire.cli.secret_cmd import secret_app
from toolwire.cli.serve import serve
from toolwire.cli.token_cmd import token_app
from toolwire.cli.tools_cmd import tools
from toolwire.version import __version__

__all__ = ["app"]

app = typer.Typer(
    name="toolwire",
    help="Sandboxed, budget-aware tools for LLM agents: serve them over MCP, list them, call one.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's help: flags shown as flags (rich mode shows "<bool>")
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"toolwire {__version__}")
        raise typer.Exit()


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
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Read the global options."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING)
    if ctx.invoked_subcommand == "serve":
        require_extra("mcp", "toolwire serve")
    ctx.obj = config


app.command(short_help="Serve the tools over MCP (HTTP or --stdio).")(serve)
app.command(short_help="List the tools, or describe one.")(tools)
app.command(short_help="Run one call; print what the model reads.")(call)
app.command(short_help="Check what is usable here; say how to fix.")(doctor)
app.add_typer(token_app, name="token", short_help="Bearer tokens for serve --http.")
app.add_typer(mcp_app, name="mcp", short_help="Pinned MCP tool definitions; approve changes.")
app.add_typer(secret_app, name="secret", short_help="Secrets for your tools: set, list, delete.")
