"""Serving the configured registry until the client leaves or a signal arrives, and the
start-up banner's lines: the part of ``toolwire serve`` that needs neither typer nor rich, so
``toolwire serve --stdio`` (`toolwire.cli.stdio_fast`) can start without them.

SIGTERM and SIGINT stop serving cleanly: serving is cancelled (calls in flight aborted, HTTP
sessions closed), then the registry closes (background process groups killed, stores closed).
Only the first signal is caught: a second one while stopping gets the default behaviour.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import anyio

from toolwire.capabilities.kinds.process.sandbox._modes import sandbox_status
from toolwire.cli.tool_words import offered_and_withheld, tool_annotations
from toolwire.errors import ConfigurationError
from toolwire.mcp.server._server import ServeOptions
from toolwire.mcp.server.serving import serve_registry
from toolwire.replicas._membership import replicas_for
from toolwire.safety.protected_paths import default_protected_paths
from toolwire.wiring import Wired, open_registry

if TYPE_CHECKING:
    from toolwire.config import ToolwireConfig
    from toolwire.mcp.server.auth.server_auth import ServerAuth

__all__ = ["BannerLine", "banner_lines", "serve_until_stopped"]

BannerLine = tuple[str, bool]
"""One line of the start-up banner, and whether it is a warning (printed loud)."""


async def serve_until_stopped(
    config: ToolwireConfig,
    transport: str,
    host: str,
    port: int,
    insecure_no_auth: bool = False,
    banner: Callable[[Wired, str], None] | None = None,
) -> str | None:
    """Serve until the client leaves (stdio) or a signal arrives; the signal's name, if one.

    ``banner`` is called with the wired registry and the address once serving.
    """
    stop = _StopOnSignal()
    problem: ConfigurationError | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(stop.watch)
        try:
            async with (
                open_registry(config) as wired,
                _server_auth(config, transport, wired) as auth,
                replicas_for(config.replicas, wired.backends) as replicas,  # docs/scaling.md
            ):
                with stop.serving:  # cancelled by the signal; the registry closes after it
                    options = replace(
                        _serve_options(config),
                        auth=auth,
                        insecure_no_auth=insecure_no_auth,
                        replicas=replicas,
                    )
                    await serve_registry(
                        wired.registry,
                        transport="stdio" if transport == "stdio" else "http",
                        host=host,
                        port=port,
                        options=options,
                        on_ready=(lambda address: banner(wired, address)) if banner else None,
                    )
        except ConfigurationError as exc:  # raised as itself, not in an exception group
            problem = exc
        finally:
            group.cancel_scope.cancel()
    if problem is not None:
        raise problem
    return stop.received


def _server_auth(
    config: ToolwireConfig, transport: str, wired: Wired
) -> contextlib.AbstractAsyncContextManager[ServerAuth | None]:
    """Who may connect over HTTP; nobody is asked over stdio (its client started this process),
    so the authentication modules (and the SDK's, under them) are not even imported."""
    if transport != "http":
        return contextlib.nullcontext(None)
    from toolwire.mcp.server.auth.server_auth import server_auth_for

    return server_auth_for(config.auth, wired.backends.kv_backend)


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


def _serve_options(config: ToolwireConfig) -> ServeOptions:
    options = ServeOptions(
        working_dir=config.base_dir,
        result_budget_chars=config.result_budget_chars,
        identity=config.serve_identity,  # [serve] title, description, website_url, icons
        cors_origins=config.cors_origins,  # [serve] cors_origins: browser pages
    )
    if config.tools_list_ttl_s is not None:
        options = replace(options, tools_list_ttl_s=config.tools_list_ttl_s)
    if config.session_idle_timeout_s is not None:
        options = replace(options, session_idle_timeout_s=config.session_idle_timeout_s)
    if config.max_sessions is not None:
        options = replace(options, max_sessions=config.max_sessions)
    if config.max_sessions_per_principal is not None:
        options = replace(options, max_sessions_per_principal=config.max_sessions_per_principal)
    return replace(options, stateless_sessions=config.stateless_sessions)


def banner_lines(wired: Wired, address: str) -> list[BannerLine]:
    """The start-up banner: what is served where, the sandbox roots, whether commands run
    sandboxed (loud when not), the store, authentication (HTTP), the config file, the MCP
    servers, the tools ``tools/list`` sends (with the hints it sends) and the tools withheld
    from it, each with why."""
    config = wired.config
    where = "stdio" if address == "stdio" else f"streamable HTTP at {address}"
    tools, withheld = offered_and_withheld(wired.registry)  # as tools/list sends them
    lines = [f"  sandbox  {path} ({mode})" for path, mode in config.sandbox_roots]
    status = sandbox_status(wired.backends.processes, wired.backends.sandbox_settings.mode)
    lines.append(f"  commands {status.line}")
    lines.append(_protected_line(wired))
    lines.append(f"  store    {_without_password(config.store_url)}")
    if address != "stdio":
        lines.append(f"  auth     {_auth_line(config)}")
        lines.append(f"  sessions {_sessions_line(config)}")
    if config.source:
        lines.append(f"  config   {config.source}")
    for provider in wired.mcp_providers:
        state = "connected" if provider.connected else "connecting"
        lines.append(f"  mcp      {provider.config.name} ({state})")
    for tool in tools:
        hints = tool_annotations(tool)
        lines.append(f"  tool     {tool.name}" + (f"  [{hints}]" if hints else ""))
    for tool, why in withheld:
        lines.append(f"  withheld {tool.name}: {why.message} ({why.reason})")
    head = (f"toolwire serving {len(tools)} tools over {where}", False)
    loud = not status.sandboxed
    shared = config.stateless_sessions == "shared"  # clients see each other's state: say so
    return [
        head,
        *(
            (
                line,
                (loud and line.startswith("  commands "))
                or (shared and line.startswith("  sessions "))
                or "UNPROTECTED" in line,
            )
            for line in lines
        ),
    ]


def _protected_line(wired: Wired) -> str:
    """The protected paths (`toolwire.safety.protected_paths`); loud when some were removed."""
    protected = wired.backends.protected_paths or default_protected_paths()
    count = len(protected.names) + len(protected.home_names) + len(protected.paths)
    line = f"  protect  {count} paths read-only in every write root (toolwire doctor lists them)"
    if protected.removed:
        removed = ", ".join(protected.removed)
        line += f"; UNPROTECTED by [sandbox] unprotect: {removed} (commands may change them)"
    return line


def _auth_line(config: ToolwireConfig) -> str:
    ways = ["bearer tokens"] if config.auth.tokens else []
    if config.auth.tokens and config.store_url.lower().startswith("memory:"):
        ways = ["bearer tokens (but the store is memory://, which no `toolwire token` reaches)"]
    if config.auth.oauth is not None:
        ways.append(f"OAuth (issuer {config.auth.oauth.issuer})")
    return ", ".join(ways) or "none: every client that reaches the port is let in"


def _sessions_line(config: ToolwireConfig) -> str:
    """Who shares a 2026-07-28 session ([serve] stateless_sessions)."""
    if config.stateless_sessions == "shared":
        return (
            'stateless requests share ONE session ([serve] stateless_sessions = "shared"): '
            "every client sees the others' todo list and read records"
        )
    return "stateless requests: one session per credential"


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))
