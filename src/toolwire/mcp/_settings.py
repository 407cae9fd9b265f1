"""MCP server settings, importable without the MCP SDK (config files are read with this)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from toolwire.errors import ConfigurationError

__all__ = [
    "DEFAULT_MCP_RESULT_LIMIT_CHARS",
    "MCP_TOOL_PREFIX",
    "McpServerConfig",
    "check_server_name",
]

MCP_TOOL_PREFIX = "mcp__"
DEFAULT_MCP_RESULT_LIMIT_CHARS = 50_000
"""The default cap on one MCP tool result, in characters."""
_SERVER_NAME = re.compile(r"^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$")


def check_server_name(name: str) -> str:
    """Return ``name`` when it can be the ``<server>`` part of ``mcp__<server>__<tool>``.

    Raises:
        ConfigurationError: the name is empty, uses characters outside ``[A-Za-z0-9_-]``,
            contains ``__`` or starts or ends with ``_`` (any of which would make the split of
            ``mcp__<server>__<tool>`` ambiguous).
    """
    if not isinstance(name, str) or not _SERVER_NAME.match(name):
        raise ConfigurationError(
            f"MCP server name {name!r} is invalid: use letters, digits, '-' and single '_' "
            "(no '__', no leading or trailing '_'), e.g. 'github' or 'my-files'"
        )
    if len(MCP_TOOL_PREFIX) + len(name) + 3 > 64:
        raise ConfigurationError(f"MCP server name {name!r} is too long to leave room for tools")
    return name


@dataclass(frozen=True, kw_only=True, slots=True)
class McpServerConfig:
    """One MCP server to bridge. Give ``command`` (stdio) or ``url`` (streamable HTTP).

    Attributes:
        name: The ``<server>`` in ``mcp__<server>__<tool>``; no ``__``.
        command: Executable of a stdio server.
        args: Its arguments.
        env: Extra environment variables for the stdio server.
        cwd: Its working directory.
        url: Endpoint of a streamable HTTP server (``http://host:port/mcp``).
        headers: HTTP headers sent with every request (``Authorization``, ...).
        result_limit_chars: Cap on each result of this server's tools.
        timeout_s: Per-call timeout.
        connect_timeout_s: How long connecting (and listing the tools) may take.
        ping_interval_s: Keepalive ping period; ``None`` disables it.
        tools: Only these remote tool names are bridged (``None``: all).
        protocol: ``"auto"`` (2026-07-28 when the server speaks it, else the handshake) or
            ``"legacy"`` (always the initialize handshake).
        pin: What a tool whose definition changed since it was first seen gets
            (`toolwire.mcp.client.pinning`): ``"refuse"`` (not served until approved),
            ``"warn"`` (served, with a warning) or ``"off"`` (definitions are not pinned).
        defer_loading: Its tools are deferred: left out of the definitions until
            ``tool_search`` finds them in a session (`toolwire.tool_search`).
        sink: Its tools that send data out or change something outside (``Tool.sink``):
            ``True`` for all of them, or the remote names of some. Once untrusted output
            reached a session, a call to one needs approval or is refused (``[flow]
            after_untrusted``, `toolwire.execution.flow`).
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] | None = None
    result_limit_chars: int = DEFAULT_MCP_RESULT_LIMIT_CHARS
    timeout_s: float = 60.0
    connect_timeout_s: float = 10.0
    ping_interval_s: float | None = 30.0
    tools: tuple[str, ...] | None = None
    protocol: Literal["auto", "legacy"] = "auto"
    pin: Literal["refuse", "warn", "off"] = "refuse"
    defer_loading: bool = False
    sink: bool | tuple[str, ...] = False

    def __post_init__(self) -> None:
        check_server_name(self.name)
        self._check_sink()
        if (self.command is None) == (self.url is None):
            raise ConfigurationError(
                f"MCP server {self.name!r}: give exactly one of command (stdio) or url "
                "(streamable HTTP)"
            )
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"MCP server {self.name!r}: url must start with http:// or https://"
            )
        if self.result_limit_chars < 1:
            raise ConfigurationError(f"MCP server {self.name!r}: result_limit_chars must be >= 1")
        for what in ("timeout_s", "connect_timeout_s"):
            if not getattr(self, what) > 0:
                raise ConfigurationError(f"MCP server {self.name!r}: {what} must be positive")
        if self.ping_interval_s is not None and not self.ping_interval_s > 0:
            raise ConfigurationError(
                f"MCP server {self.name!r}: ping_interval_s must be positive or None"
            )
        if self.protocol not in ("auto", "legacy"):
            raise ConfigurationError(f"MCP server {self.name!r}: protocol must be auto or legacy")
        if self.pin not in ("refuse", "warn", "off"):
            raise ConfigurationError(
                f"MCP server {self.name!r}: pin must be refuse, warn or off (got {self.pin!r})"
            )
        object.__setattr__(self, "args", tuple(self.args))
        if self.tools is not None:
            object.__setattr__(self, "tools", tuple(self.tools))

    def _check_sink(self) -> None:
        if isinstance(self.sink, bool):
            return
        if isinstance(self.sink, str) or not all(isinstance(n, str) for n in self.sink):
            raise ConfigurationError(
                f"MCP server {self.name!r}: sink takes true, false or a list of the server's "
                f"tool names, got {self.sink!r}"
            )
        object.__setattr__(self, "sink", tuple(self.sink))
        unbridged = sorted(set(self.sink) - set(self.tools)) if self.tools is not None else []
        if unbridged:
            raise ConfigurationError(
                f"MCP server {self.name!r}: sink names {unbridged}, which its tools list "
                "leaves out; add them to tools or remove them from sink"
            )

    def is_sink(self, remote_name: str) -> bool:
        """Whether the server's tool ``remote_name`` is declared a sink (``sink``)."""
        return self.sink if isinstance(self.sink, bool) else remote_name in self.sink

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """``"stdio"`` or ``"http"``."""
        return "stdio" if self.command is not None else "http"
