"""``toolwire serve``: the configured registry over MCP, with a start-up banner on stderr.

SIGTERM and SIGINT stop it cleanly: serving is cancelled (calls in flight aborted, HTTP
sessions closed), then the registry closes (background process groups killed, stores closed),
one line ``toolwire stopped on SIGTERM`` is printed and the exit code is 0. Only the first
signal is caught: a second one while stopping gets the default behaviour (for SIGTERM, the
process ends at once).

``--reload`` (HTTP only, for development) serves from a child process that is restarted when
the config file or a tool module changes (`toolwire.cli.reloading`).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import anyio
import typer
from rich.markup import escape

from toolwire.cli.common import ToolsOption, fail_usage, load, stderr
from toolwire.cli.serving import banner_lines, serve_until_stopped
from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth._exposure import check_exposure
from toolwire.mcp.server.serving import event_loop_options

if TYPE_CHECKING:
    from toolwire.config import ToolwireConfig
    from toolwire.wiring import Wired

__all__ = ["parse_address", "serve"]


def serve(
    ctx: typer.Context,
    http: Annotated[
        str | None,
        typer.Option("--http", metavar="HOST:PORT", help="Streamable HTTP (the default)."),
    ] = None,
    stdio: Annotated[bool, typer.Option("--stdio", help="Serve on stdin/stdout.")] = False,
    insecure_no_auth: Annotated[
        bool,
        typer.Option(
            "--insecure-no-auth",
            help="Serve HTTP beyond 127.0.0.1 with no authentication (only behind a proxy "
            "that authenticates).",
        ),
    ] = False,
    tools: ToolsOption = None,
    reload: Annotated[
        bool,
        typer.Option(
            "--reload",
            help="Restart when the config file or a tool module changes (HTTP; development).",
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="Print only the first line of the banner and its warnings (for clients that "
            "log a stdio server's stderr).",
        ),
    ] = False,
) -> None:
    """Serve the tools over MCP: streamable HTTP at HOST:PORT (default from the config,
    127.0.0.1:8765) or stdio. Prints the address, sandbox roots, whether commands run
    sandboxed (and why not), store and tools on stderr."""
    if http is not None and stdio:
        fail_usage("choose one of --http and --stdio")
    if reload and stdio:
        fail_usage(
            "--reload restarts an HTTP server; a stdio server belongs to the client that "
            "started it (restart it from the client)"
        )
    config = load(ctx, tools)
    host, port = config.http_host, config.http_port
    if http is not None:
        host, port = parse_address(http)
    if not stdio:
        _check_exposure(config, host, insecure_no_auth)
    if reload:
        flags = ["--insecure-no-auth"] if insecure_no_auth else []
        flags += ["--quiet"] if quiet else []
        _serve_reloading(ctx, config, (host, port), list(tools or ()), flags)
        return
    try:
        stopped_by = anyio.run(
            partial(serve_until_stopped, banner=partial(_banner, quiet=quiet)),
            config,
            "stdio" if stdio else "http",
            host,
            port,
            insecure_no_auth,
            backend_options=event_loop_options("stdio" if stdio else "http"),
        )
    except ConfigurationError as exc:
        fail_usage(str(exc))
    except KeyboardInterrupt:  # Ctrl+C before the signal handlers were in place
        stopped_by = "SIGINT"
    if stopped_by is not None:
        stderr.print(f"toolwire stopped on {stopped_by}", markup=False)


def _serve_reloading(
    ctx: typer.Context,
    config: ToolwireConfig,
    address: tuple[str, int],
    tools: list[str],
    flags: list[str],
) -> None:
    """``serve --reload``: this command without ``--reload`` in a child, restarted on change."""
    from toolwire.cli.reloading import run_reloading

    host, port = address
    if port == 0:  # one port for every restart
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.bind((host, 0))
            port = probe.getsockname()[1]
    named: Path | None = ctx.obj if isinstance(ctx.obj, Path) else None
    options = ["--config", str(named.resolve())] if named is not None else []
    if logging.getLogger().isEnabledFor(logging.INFO):
        options.append("--verbose")
    http = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    argv = [sys.executable, "-m", "toolwire", *options, "serve", "--http", http, *flags]
    argv += [f"--tools={spec}" for spec in tools]
    stopped_by = run_reloading(
        argv, partial(_watched, config, named, tools), lambda line: stderr.print(line, markup=False)
    )
    if stopped_by is not None:
        stderr.print(f"toolwire stopped on {stopped_by}", markup=False)


def _watched(config: ToolwireConfig, named: Path | None, tools: list[str]) -> list[Path]:
    """The config file and the tool modules' files, as the config file says now (or, while it
    cannot be read, as it said at start: the child says what is wrong)."""
    from toolwire.config import load_config
    from toolwire.tool_modules import command_line_modules, watched_files

    modules = config.tool_modules
    with contextlib.suppress(ConfigurationError):
        modules = (*load_config(named).tool_modules, *command_line_modules(tools))
    files = [Path(config.source)] if config.source else []
    return files + watched_files(modules)


def parse_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8765`` for IPv6; ``:8765`` means 127.0.0.1)."""
    host, sep, port_text = value.rpartition(":")
    if not sep or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        fail_usage(f"--http takes HOST:PORT, e.g. 127.0.0.1:8765 (got {value!r})")
    return host.strip("[]") or "127.0.0.1", int(port_text)


def _check_exposure(config: ToolwireConfig, host: str, insecure_no_auth: bool) -> None:
    """Exit 2 before starting anything when ``host`` would be served to others unasked."""
    try:
        warning = check_exposure(
            host, authenticated=config.auth.enabled, insecure_no_auth=insecure_no_auth
        )
    except ConfigurationError as exc:
        fail_usage(str(exc))
    if warning is not None:
        stderr.print(f"warning: {warning}", markup=False, style="bold red")


def _banner(wired: Wired, address: str, *, quiet: bool = False) -> None:
    for number, (line, loud) in enumerate(banner_lines(wired, address)):
        if quiet and number > 0 and not loud:
            continue  # --quiet: what is served where, and every warning
        if number == 0:  # "toolwire serving N tools over ...", the name in bold
            stderr.print(f"[bold]toolwire[/]{escape(line.removeprefix('toolwire'))}", markup=True)
        else:
            stderr.print(line, markup=False, style="bold red" if loud else None, soft_wrap=True)
