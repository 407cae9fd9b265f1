"""Serving a registry over MCP: the SDK path, the two fast paths, sessions, tasks and auth.

- ``_server.py``: `build_mcp_server` / `create_mcp_server`, the SDK's low-level server over a
  registry;
- ``tool_call.py``: one ``tools/call`` (`ToolCalls`) for the SDK handler and both fast paths;
- ``listing_features.py``: the 2026-07-28 listing features (cache hints, ``server/discover``,
  ``tools/list_changed``);
- ``serving.py``, ``_http_endpoint.py``, ``_options.py``: where it listens and how;
- ``fast_http/``: ``tools/call`` and ``tools/list`` on streamable HTTP without the SDK;
- ``fast_stdio/``: ``toolwire serve --stdio`` answering before the SDK loads;
- ``auth/``: bearer tokens and OAuth resource-server mode;
- sessions (``sessions.py``, ``session_tools.py``, ``resumable.py``, ``event_store.py``,
  ``hangups.py``), tasks (``_tasks.py``, ``task_records.py``), results (``listing.py``,
  ``rich_results.py``, ``media.py``, ``result_resources.py``), approvals
  (``_approval_requests.py``), the caller (``peer.py``), and ``health.py``, ``cors.py``,
  ``_identity.py``.

Also here: ``stdin_lines.py`` (stdin as lines a stopping server need not wait for), and what
the fast paths share: ``wire_json.py`` (orjson when installed) and ``json_depth.py`` (how deeply
a request is read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.mcp.server._server import (
        DEFAULT_HTTP_HOST,
        DEFAULT_HTTP_PORT,
        DEFAULT_MAX_SESSIONS,
        DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
        DEFAULT_SESSION_IDLE_TIMEOUT_S,
        McpServer,
        ServeOptions,
        build_mcp_server,
        create_mcp_server,
    )

__all__ = [
    "DEFAULT_HTTP_HOST",
    "DEFAULT_HTTP_PORT",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_MAX_SESSIONS_PER_PRINCIPAL",
    "DEFAULT_SESSION_IDLE_TIMEOUT_S",
    "McpServer",
    "ServeOptions",
    "build_mcp_server",
    "create_mcp_server",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_HTTP_HOST": "toolwire.mcp.server._server",
        "DEFAULT_HTTP_PORT": "toolwire.mcp.server._server",
        "DEFAULT_MAX_SESSIONS": "toolwire.mcp.server._server",
        "DEFAULT_MAX_SESSIONS_PER_PRINCIPAL": "toolwire.mcp.server._server",
        "DEFAULT_SESSION_IDLE_TIMEOUT_S": "toolwire.mcp.server._server",
        "McpServer": "toolwire.mcp.server._server",
        "ServeOptions": "toolwire.mcp.server._server",
        "build_mcp_server": "toolwire.mcp.server._server",
        "create_mcp_server": "toolwire.mcp.server._server",
    },
    globals(),
)
