"""`ToolAccess`: each credential sees and calls only the tools its grant opens.

A server middleware (the SDK's ``Server.middleware``) around every request of an
authenticated HTTP server: ``tools/list`` answers only the granted tools, and a ``tools/call``
of any other tool is answered with a JSON-RPC error (``-32602``, the code MCP gives an unknown
tool) that names what the credential may call, before the tool is looked at. A tool the
registry does not have is answered the same way, so the answer never tells a restricted
credential which other tools exist. Requests without a grant (stdio, a server without
authentication) pass untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from toolwire.mcp.server.auth.grants import Grant, request_grant

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

    from toolwire.registry import ToolRegistry
    from toolwire.tools import Tool

__all__ = ["ToolAccess", "caller_allows", "check_call", "visible"]


def visible(registry: ToolRegistry, grant: Grant, name: str) -> bool:
    """Whether the tool named ``name`` exists and ``grant`` opens it."""
    tool = registry.get(name)
    return tool is not None and grant.allows(tool)


def caller_allows(tool: Tool) -> bool:
    """Whether the credential of the request being served opens ``tool`` (read from the SDK's auth
    context, which `toolwire.mcp.server.auth._guard.BearerGuard` sets); ``True`` when there is none
    (stdio, a server without authentication).

    For code that runs before `ToolAccess` sees the request, such as the SDK's check of
    ``Mcp-Param-*`` headers against a tool's schema: a tool the credential may not call must
    look as absent there as it does to ``tools/call``.
    """
    grant = getattr(get_access_token(), "grant", None)
    return not isinstance(grant, Grant) or grant.allows(tool)


def check_call(registry: ToolRegistry, grant: Grant | None, name: Any) -> None:
    """Refuse a ``tools/call`` of ``name`` that ``grant`` does not open (``None``: no grant,
    nothing refused).

    Raises:
        MCPError: ``-32602`` naming what the credential may call.
    """
    if grant is None or grant.everything:
        return
    if isinstance(name, str) and visible(registry, grant, name):
        return
    raise MCPError(
        code=INVALID_PARAMS,
        message=(
            f"tool {name!r} is not available to this credential (it may call: {grant.describe()})"
        ),
    )


class ToolAccess:
    """The server middleware (see the module doc).

    Args:
        registry: The served registry (a tool's toolset is looked up there).
    """

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Filter ``tools/list``, guard ``tools/call``; pass everything else on."""
        if ctx.method not in ("tools/list", "tools/call"):
            return await call_next(ctx)
        grant = request_grant(ctx.request)
        if grant is None or grant.everything:
            return await call_next(ctx)
        if ctx.method == "tools/call":
            check_call(self._registry, grant, (ctx.params or {}).get("name"))
            return await call_next(ctx)
        answer = await call_next(ctx)
        if isinstance(answer, dict) and isinstance(answer.get("tools"), list):
            tools = [
                t
                for t in answer["tools"]
                if isinstance(t, dict) and visible(self._registry, grant, str(t.get("name")))
            ]
            answer = {**answer, "tools": tools}
        return answer
