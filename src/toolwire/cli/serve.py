"""``toolwire serve``: the configured registry over MCP, with a start-up banner on stderr.

SIGTERM and SIGINT stop it cleanly: serving is cancelled (calls in flight aborted, HTTP
sessions closed), then the registry closes (background process groups killed, stores closed),
one line ``toolwire stopped on SIGTERM`` is printed and the exit code is 0. Only the first
signal is caught: a second one while stopping gets the default behaviour (for SIGTERM, the
process ends at once).
"""

from __future__ import annotations

import signal
import sys
from dataclasses import replace
from typing import Annotated
from urllib.parse import urlsplit, urlunsplit

import anyio
import typer

from toolwire.cli.common import fail_usage, load, stderr, tool_annotations
from toolwire.config import ToolwireConfig
from toolwire.errors import ConfigurationError
from toolwire.mcp.auth.exposure import check_exposure
from toolwire.mcp.auth.server_auth import server_auth_for
from toolwire.mcp.auth.settings import AuthSettings
from toolwire.mcp.server import ServeOptions
from toolwire.mcp.serving import serve_registry
from toolwire.sandbox.modes import sandbox_status
from toolwire.wiring import Wired, open_registry

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
            _serve,
            config,
            "stdio" if stdio else "http",
            host,
            port,
            insecure_no_auth,
            conformance_fixture,
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


async def _serve(
    config: ToolwireConfig,
    transport: str,
    host: str,
    port: int,
    insecure_no_auth: bool = False,
    conformance_fixture: bool = False,
) -> str | None:
    """Serve until the client leaves (stdio) or a signal arrives; the signal's name, if one."""
    stop = _StopOnSignal()
    problem: ConfigurationError | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(stop.watch)
        try:
            async with (
                open_registry(config) as wired,
                server_auth_for(  # stdio needs none: its client started this process
                    config.auth if transport == "http" else AuthSettings(),
                    wired.backends.kv_backend,
                ) as auth,
            ):
                with stop.serving:  # cancelled by the signal; the registry closes after it
                    options = replace(
                        _serve_options(config), auth=auth, insecure_no_auth=insecure_no_auth
                    )
                    if conformance_fixture:
                        options = _with_conformance_fixture(wired, options)
                    await serve_registry(
                        wired.registry,
                        transport="stdio" if transport == "stdio" else "http",
                        host=host,
                        port=port,
                        options=options,
                        on_ready=lambda address: _banner(wired, address),
                    )
        except ConfigurationError as exc:  # raised as itself, not in an exception group
            problem = exc
        finally:
            group.cancel_scope.cancel()
    if problem is not None:
        raise problem
    return stop.received


class _StopOnSignal:
    """Turns the first SIGTERM or SIGINT into cancelling `serving`."""

    def __init__(self) -> None:
        self.serving = anyio.CancelScope()
        self.received: str | None = None

    async def watch(self) -> None:
        if sys.platform == "win32":  # no signal receivers there: Ctrl+C stays KeyboardInterrupt
            return
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for signum in signals:
                self.received = signal.Signals(signum).name
                self.serving.cancel()
                return


def _with_conformance_fixture(wired: Wired, options: ServeOptions) -> ServeOptions:
    from toolwire.mcp.conformance import fixture_tools, with_fixture_features

    wired.registry.register_all(fixture_tools())
    return with_fixture_features(options)


def _serve_options(config: ToolwireConfig) -> ServeOptions:
    options = ServeOptions(
        working_dir=config.base_dir,
        result_budget_chars=config.result_budget_chars,
        identity=config.serve_identity,  # [serve] title, description, website_url, icons
    )
    if config.tools_list_ttl_s is not None:
        options = replace(options, tools_list_ttl_s=config.tools_list_ttl_s)
    if config.session_idle_timeout_s is not None:
        options = replace(options, session_idle_timeout_s=config.session_idle_timeout_s)
    if config.max_sessions is not None:
        options = replace(options, max_sessions=config.max_sessions)
    return options


def _banner(wired: Wired, address: str) -> None:
    config = wired.config
    where = "stdio" if address == "stdio" else f"streamable HTTP at {address}"
    tools = list(wired.registry)
    stderr.print(f"[bold]toolwire[/] serving {len(tools)} tools over {where}", markup=True)
    lines = [f"  sandbox  {path} ({mode})" for path, mode in config.sandbox_roots]
    status = sandbox_status(wired.backends.processes, wired.backends.sandbox_settings.mode)
    lines.append(f"  commands {status.line}")
    lines.append(f"  store    {_without_password(config.store_url)}")
    if address != "stdio":
        lines.append(f"  auth     {_auth_line(config)}")
    if config.source:
        lines.append(f"  config   {config.source}")
    for provider in wired.mcp_providers:
        state = "connected" if provider.connected else "connecting"
        lines.append(f"  mcp      {provider.config.name} ({state})")
    for tool in tools:
        hints = tool_annotations(tool)
        lines.append(f"  tool     {tool.name}" + (f"  [{hints}]" if hints else ""))
    for line in lines:
        loud = line.startswith("  commands ") and not status.sandboxed
        stderr.print(line, markup=False, style="bold red" if loud else None, soft_wrap=True)


def _auth_line(config: ToolwireConfig) -> str:
    ways = ["bearer tokens"] if config.auth.tokens else []
    if config.auth.tokens and config.store_url.lower().startswith("memory:"):
        ways = ["bearer tokens (but the store is memory://, which no `toolwire token` reaches)"]
    if config.auth.oauth is not None:
        ways.append(f"OAuth (issuer {config.auth.oauth.issuer})")
    return ", ".join(ways) or "none: every client that reaches the port is let in"


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))
