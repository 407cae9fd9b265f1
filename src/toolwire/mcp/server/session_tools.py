"""`SessionTools`: a served registry's tools as one MCP session sees them (tool search).

A registry with deferred tools (`toolwire.tool_search`) lists ``tool_search`` and the undeferred
tools; what ``tool_search`` finds in a session is listed, and callable, in that session only,
for the principal that found it (`toolwire.tool_search.ToolSearch.snapshot`). The server's
``tools/list`` asks `SessionTools.tools`, its ``tools/call`` runs a deferred tool against
`SessionTools.gate` (the session's snapshot, the registry's one gate: a tool the session did
not find answers ``not_offered``), and a ``tool_search`` call that found something tells a
handshake-era client ``notifications/tools/list_changed`` (`announce_found`).

Such a listing differs per session, so its 2026-07-28 cache hint says so (`PER_SESSION_CACHE`: a
client re-asks instead of keeping it, and no shared cache serves it to another client). A
client that never lists again can still call what it found: the call is checked against the
session's found tools, not against a listing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from toolwire.mcp.revision import is_stateless
from toolwire.mcp.server.listing import PER_SESSION_CACHE
from toolwire.providers._base import ProviderContext
from toolwire.results import Ok
from toolwire.tool_search._deferral import TOOL_SEARCH_NAME

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from toolwire.calls import CallOutcome
    from toolwire.principals import Principal
    from toolwire.providers._snapshot import ToolSnapshot
    from toolwire.registry import ToolRegistry
    from toolwire.tools import Tool

__all__ = ["PER_SESSION_CACHE", "SessionTools", "announce_found", "found_something"]

logger = logging.getLogger("toolwire.mcp.server.session_tools")


class SessionTools:
    """The per-session view of a served registry (see the module doc).

    Args:
        registry: The served registry.
    """

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry

    @property
    def deferring(self) -> bool:
        """Whether anything is deferred (the listing then differs per session)."""
        return bool(self._registry.deferred_names)

    def cache_hint(self) -> dict[str, Any]:
        """The ``ListToolsResult`` fields of a listing that differs per session (re-ask it,
        never share it), or none when nothing is deferred (the server's own hint then)."""
        return {"ttl_ms": 0, "cache_scope": "private"} if self.deferring else {}

    def is_deferred(self, name: str) -> bool:
        """Whether a call to ``name`` needs the session's found tools."""
        return name in self._registry.deferred_names

    async def snapshot(self, session_id: str, principal: Principal) -> ToolSnapshot | None:
        """What the session may call: the undeferred tools and the ones it found (``None``
        when nothing is deferred: the registry's own gate is the whole answer)."""
        search = self._registry.tool_search
        if search is None or not self.deferring:
            return None
        snapshot: ToolSnapshot = await search.snapshot(
            ProviderContext(session_id=session_id), principal=principal
        )
        return snapshot

    async def gate(self, name: str, session_id: str, principal: Principal) -> ToolSnapshot | None:
        """The snapshot a call to ``name`` runs against: the session's, for a deferred tool
        (``None`` otherwise: the registry refuses a deferred tool without one)."""
        return await self.snapshot(session_id, principal) if self.is_deferred(name) else None

    async def tools(self, session_id: str, principal: Principal) -> list[Tool]:
        """The tools ``tools/list`` answers in the session, in definition order."""
        registry = self._registry
        snapshot = await self.snapshot(session_id, principal)
        listed = [registry.get(d["name"]) for d in registry.definitions(snapshot=snapshot)]
        return [tool for tool in listed if tool is not None]


def found_something(outcome: CallOutcome | dict[str, Any]) -> bool:
    """Whether ``outcome`` is a ``tool_search`` call that found tools (the session's listing
    has changed)."""
    if isinstance(outcome, dict) or outcome.name != TOOL_SEARCH_NAME:
        return False
    result = outcome.result
    return isinstance(result, Ok) and bool((result.structured or {}).get("tools"))


async def announce_found(
    ctx: ServerRequestContext[Any, Any], outcome: CallOutcome | dict[str, Any]
) -> None:
    """Tell a handshake-era client its tools changed when ``outcome`` found some: a
    ``notifications/tools/list_changed`` on the call's own stream, ahead of its answer (a
    2026-07-28 client re-lists, its listing being never cached)."""
    if is_stateless(ctx.protocol_version) or not found_something(outcome):
        return
    import mcp_types as mt

    try:
        await ctx.session.send_notification(
            mt.ToolListChangedNotification(), related_request_id=ctx.request_id
        )
    except Exception:  # the client went away: its answer is lost anyway
        logger.debug("tools/list_changed after tool_search not delivered", exc_info=True)
