"""``toolwire serve``: the configured registry over MCP, with a start-up banner on stderr.

SIGTERM and SIGINT stop it cleanly: serving is cancelled (calls in flight aborted, HTTP
sessions closed), then the registry closes (background process groups killed, stores closed),
one line ``toolwire stopped on SIGTERM`` is printed and the exit code is 0. Only the first
signal is caught: a second one while stopping gets the default behaviour (for SIGTERM, the
process ends at once).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Annotated

import anyio
import typer
from rich.markup import escape

from toolwire.cli.common import fail_usage, load, stderr
from toolwire.cli.serving import banner_lines, serve_until_stopped
from toolwire.errors import ConfigurationError
from toolwire.mcp.auth.exposure import check_exposure
from toolwire.mcp.serving import event_loop_options

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
    conformance_fixture: Annotated[
        bool,
        typer.Option(
            "--conformance-fixture",
            help="Also serve the MCP conformance suite's fixture (tools, resources, "
            "completion; see docs/mcp.md): for testing, never in production.",
        ),
    ] = False,
) -> None:
    """Serve the tools over MCP: streamable HTTP at HOST:PORT (default from the config,
    127.0.0.1:8765) or stdio. Prints the address, sandbox roots, whether commands run
    sandboxed (and why not), store and tools on stderr."""
    if http is not None and stdio:
        fail_usage("choose one of --http and --stdio")
    config = load(ctx)
    host, port = config.http_host, config.http_port
    if http is not None:
        host, port = parse_address(http)
    if not stdio:
        _check_exposure(config, host, insecure_no_auth)
    try:
        stopped_by = anyio.run(
            partial(serve_until_stopped, banner=_banner),
            config,
            "stdio" if stdio else "http",
            host,
            port,
            insecure_no_auth,
            conformance_fixture,
            backend_options=event_loop_options("stdio" if stdio else "http"),
        )
    except ConfigurationError as exc:
        fail_usage(str(exc))
    except KeyboardInterrupt:  # Ctrl+C before the signal handlers were in place
        stopped_by = "SIGINT"
    if stopped_by is not None:
        stderr.print(f"toolwire stopped on {stopped_by}", markup=False)


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


def _banner(wired: Wired, address: str) -> None:
    for number, (line, loud) in enumerate(banner_lines(wired, address)):
        if number == 0:  # "toolwire serving N tools over ...", the name in bold
            stderr.print(f"[bold]toolwire[/]{escape(line.removeprefix('toolwire'))}", markup=True)
        else:
            stderr.print(line, markup=False, style="bold red" if loud else None, soft_wrap=True)
