"""The tables of ``toolwire.toml`` read into values: ``[sandbox]``, ``[mcp.servers.<name>]``,
``[serve] cors_origins``, ``[result_handles]``, and the paths and SQLite URLs a file names
relative to itself. Every error names the file, the line and the key (`Located`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolwire.capabilities.kinds.process.sandbox._settings import (
    SANDBOX_MODES,
    TABLE_KEYS,
    SandboxSettings,
    sandbox_settings,
)
from toolwire.config.files import Located, check_keys, kind_of
from toolwire.errors import ConfigurationError
from toolwire.execution.handles import ResultHandles
from toolwire.mcp._settings import McpServerConfig
from toolwire.mcp.server._identity import IDENTITY_KEYS
from toolwire.mcp.server.cors import check_cors_origins
from toolwire.safety.protected_paths import protected_paths

__all__ = [
    "MCP_SERVER_KEYS",
    "SECTION_KEYS",
    "absolute_sqlite",
    "cors_origins_value",
    "mcp_server_table",
    "resolved_paths",
    "result_handles_table",
    "sandbox_table",
]

MCP_SERVER_KEYS = {
    "command", "args", "env", "cwd", "url", "headers", "result_limit_chars", "timeout_s",
    "connect_timeout_s", "ping_interval_s", "tools", "protocol", "pin", "defer_loading",
    "sink",
}  # fmt: skip

SECTION_KEYS: dict[str, set[str]] = {
    "sandbox": {"roots", "read_only", *TABLE_KEYS},
    "network": {"allow", "deny", "allow_private_urls"},
    "store": {"url"},
    "tools": {"toolsets", "result_budget_chars", "modules", "builtin", "defer"},
    "result_handles": {"ttl_s", "max_chars_per_session"},
    "serve": {
        "host",
        "port",
        "session_idle_timeout_s",
        "max_sessions",
        "max_sessions_per_principal",
        "stateless_sessions",
        "tools_list_ttl_s",
        "cors_origins",
        *IDENTITY_KEYS,
    },  # title, description, website_url, icons: toolwire.mcp.server._identity
    "auth": {"tokens", "token_cache_s", "oauth"},  # checked in toolwire.mcp.server.auth.settings
    "mcp": {"servers"},
}
"""The keys of the plain tables of ``toolwire.toml``; the tables with a reader of their own
(``[agents]``, ``[code]``, ``[[quotas]]``, ...) check their keys there."""


def sandbox_table(table: dict[str, Any], at: Located) -> SandboxSettings:
    options: dict[str, Any] = {}
    for key in sorted(TABLE_KEYS & set(table)):
        where = ("sandbox", key)
        if key == "mode":
            mode = at.string(table[key], where)
            if mode not in SANDBOX_MODES:
                raise at.error(where, f"expected one of {list(SANDBOX_MODES)}, got {mode!r}")
            options[key] = mode
        elif key in ("protected", "unprotect"):  # checked by toolwire.safety.protected_paths
            options[key] = at.strings(table[key], where)
            try:
                protected_paths(**{"add" if key == "protected" else "remove": options[key]})
            except ConfigurationError as exc:
                raise at.error(where, str(exc).split(": ", 1)[-1]) from None
        else:
            options[key] = at.integer(table[key], where, minimum=0)
    return sandbox_settings(options)


def mcp_server_table(name: str, spec: Any, at: Located, base: Path) -> McpServerConfig:
    key = ("mcp", "servers", name)
    if not isinstance(spec, dict):
        raise at.error(key, "expected a table")
    check_keys(spec, MCP_SERVER_KEYS, key, at)
    options: dict[str, Any] = {}
    for item, value in spec.items():
        where = (*key, item)
        if item in ("args", "tools"):
            options[item] = at.strings(value, where)
        elif item in ("env", "headers"):
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise at.error(where, "expected a table of strings")
            options[item] = dict(value)
        elif item in ("timeout_s", "connect_timeout_s", "ping_interval_s"):
            options[item] = at.number(value, where)
        elif item == "result_limit_chars":
            options[item] = at.integer(value, where, minimum=1)
        elif item == "cwd":
            options[item] = str(base / at.string(value, where))
        elif item == "defer_loading":  # its tools are found by tool_search first
            options[item] = at.boolean(value, where)
        elif item == "sink":  # true, or the remote names of its tools that send data out
            if isinstance(value, bool):
                options[item] = value
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                options[item] = tuple(value)
            else:
                raise at.error(
                    where, f"expected true, false or a list of tool names, got {kind_of(value)}"
                )
        else:
            options[item] = at.string(value, where)
    try:
        return McpServerConfig(name=name, **options)
    except ConfigurationError as exc:
        raise at.error(key, str(exc)) from None


def resolved_paths(items: tuple[str, ...] | list[str], base: Path) -> tuple[str, ...]:
    return tuple(str((base / Path(item).expanduser()).resolve()) for item in items)


def absolute_sqlite(url: str, base_dir: str) -> str:
    """``sqlite:///rel.db`` → ``sqlite:////<base_dir>/rel.db``; other URLs unchanged."""
    if not url.lower().startswith("sqlite:///") or url.startswith("sqlite:////"):
        return url
    relative = url[len("sqlite:///") :]
    return "sqlite:///" + str((Path(base_dir) / relative).resolve())


def cors_origins_value(value: Any, at: Located) -> tuple[str, ...]:
    """``[serve] cors_origins``: browser origins, checked as `ServeOptions` checks them."""
    key = ("serve", "cors_origins")
    origins = at.strings(value, key)
    try:
        check_cors_origins(origins)
    except ConfigurationError as error:
        raise at.error(key, str(error).removeprefix("cors_origins: ")) from None
    return origins


def result_handles_table(table: dict[str, Any], at: Located) -> ResultHandles:
    """``[result_handles]``: the table's presence turns handles on; its keys tune them."""
    settings: dict[str, Any] = {}
    if "ttl_s" in table:
        settings["ttl_s"] = at.number(table["ttl_s"], ("result_handles", "ttl_s"))
    if "max_chars_per_session" in table:
        key = ("result_handles", "max_chars_per_session")
        settings["max_chars_per_session"] = at.integer(
            table["max_chars_per_session"], key, minimum=1
        )
    return ResultHandles(**settings)
