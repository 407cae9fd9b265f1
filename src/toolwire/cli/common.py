"""Shared CLI plumbing: loading the config, reporting errors, describing tools."""

from __future__ import annotations

import difflib
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, NoReturn, TypeVar, TypeVarTuple, Unpack

import anyio
import typer
from rich.console import Console
from rich.markup import escape

from toolwire.cli.tool_words import tool_annotations, tool_capabilities
from toolwire.config import ToolwireConfig, load_config
from toolwire.errors import ConfigurationError, StoreError
from toolwire.tool_modules import command_line_modules

__all__ = [
    "EXIT_ERR",
    "EXIT_USAGE",
    "ToolsOption",
    "did_you_mean",
    "fail_usage",
    "list_records",
    "load",
    "load_persistent",
    "nearest_names",
    "run_configured",
    "stderr",
    "tool_annotations",
    "tool_capabilities",
]  # fmt: skip

EXIT_ERR = 1
"""A call answered ``Err``."""
EXIT_USAGE = 2
"""Bad command line or configuration (typer's own usage errors exit 2 too)."""

stderr = Console(stderr=True, highlight=False)

ToolsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tools",
        metavar="FILE_OR_MODULE",
        help="Your own tools: a .py file or a module name (repeatable; beside [tools] modules).",
    ),
]
"""``--tools FILE_OR_MODULE`` (repeatable), on ``serve``, ``call`` and ``tools``."""

T = TypeVar("T")
R = TypeVar("R")
Args = TypeVarTuple("Args")


def fail_usage(message: str) -> NoReturn:
    """Print ``error: <message>`` to stderr and exit 2."""
    stderr.print(f"[bold red]error:[/] {escape(message)}", markup=True)
    raise typer.Exit(EXIT_USAGE)


def load(ctx: typer.Context, tools: Sequence[str] | None = None) -> ToolwireConfig:
    """The configuration named by ``--config`` (or found), with the ``--tools`` modules, or exit
    2 with the reason; its warnings (a sandbox on the home directory, ...) go to stderr."""
    path: Path | None = ctx.obj if isinstance(ctx.obj, Path) else None
    try:
        config = load_config(path)
        added = command_line_modules(tools or ())  # after [tools] modules
    except ConfigurationError as exc:
        fail_usage(str(exc))
    config = replace(config, tool_modules=(*config.tool_modules, *added))
    for warning in config.warnings:
        stderr.print(f"[bold yellow]warning:[/] {escape(warning)}", markup=True)
    return config


def load_persistent(ctx: typer.Context, lost: str) -> ToolwireConfig:
    """`load`, or exit 2 when the store is ``memory://`` (``lost``: what such a store loses, for
    the message): a command whose records the servers must read needs their store."""
    config = load(ctx)
    if config.store_url.lower().startswith("memory:"):
        fail_usage(
            f"the store is memory://, {lost}: set [store] url to the store the servers use "
            "(sqlite, redis or postgresql)"
        )
    return config


def list_records(
    records: Sequence[R],
    *,
    as_json: bool,
    as_dict: Callable[[R], Mapping[str, object]],
    line: Callable[[R], str],
    none: str,
) -> None:
    """Print a listing: with ``--json`` the records as a JSON list, else one ``line`` each, or
    ``none`` on stderr when there are none."""
    if as_json:
        typer.echo(json.dumps([dict(as_dict(record)) for record in records], indent=2))
        return
    if not records:
        stderr.print(none, markup=False)
        return
    for record in records:
        typer.echo(line(record))


def run_configured(main: Callable[[Unpack[Args]], Awaitable[T]], *args: *Args) -> T:
    """``anyio.run(main, *args)``; a configuration the registry cannot be built from (an unknown
    toolset, a bad store URL, a store that cannot be opened) exits 2 with the reason instead of
    a traceback."""
    try:
        return anyio.run(main, *args)
    except (ConfigurationError, StoreError) as exc:
        fail_usage(str(exc))


def nearest_names(name: str, names: Iterable[str], limit: int = 3) -> list[str]:
    """Up to ``limit`` of ``names`` closest to ``name`` (difflib), best first; a name that
    contains ``name`` or is contained in it counts as close too (``read`` → ``read_file``)."""
    candidates = list(dict.fromkeys(names))
    close = difflib.get_close_matches(name, candidates, n=limit, cutoff=0.6)
    lowered = name.lower()
    for candidate in candidates:
        if len(close) >= limit:
            break
        if lowered and candidate not in close and (lowered in candidate.lower()):
            close.append(candidate)
    return close


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """``no tool named 'x'; did you mean: a, b?`` (or the hint to list them)."""
    close = nearest_names(name, names)
    if close:
        return f"no tool named {name!r}; did you mean: {', '.join(close)}?"
    return f"no tool named {name!r}; `toolwire tools` lists them"
