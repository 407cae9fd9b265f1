"""The 2026-07-28 revision's listing features on a served registry, beside the legacy handshake.

- **cache hints**: ``tools/list`` and ``server/discover`` answers carry ``ttlMs`` and
  ``cacheScope`` (`listing_cache_hints`). The scope is ``"private"`` whenever authentication is
  on, since each credential sees only the tools it was granted; ``"public"`` otherwise.
- **discovery**: ``server/discover`` is the SDK's handler; what this module adds is that its
  capabilities say ``tools.listChanged: true`` (``subscriptions/listen`` is served) and that it is
  cached like the listing. The server's title and icons (`toolwire.mcp.server._identity`) ride every
  2026-07-28 answer's ``serverInfo`` stamp and the legacy ``initialize`` result.
- **list changes**: `ToolListNotifier` watches the registry (a bridged MCP server connecting,
  its tools changing, anything registered or removed) and tells every client: a
  ``notifications/tools/list_changed`` on each handshake-era connection that has listed the
  tools, a ``tools`` event on each 2026-07-28 ``subscriptions/listen`` stream. A burst of
  changes is one notification.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as mt
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import CacheHint
from mcp.server.caching import CacheableMethod
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged

from toolwire.errors import ConfigurationError
from toolwire.mcp.revision import is_stateless
from toolwire.mcp.server._identity import ServerIdentity
from toolwire.mcp.server.listing import DEFAULT_TOOLS_LIST_TTL_S

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.session import ServerSession

    from toolwire.registry import ToolRegistry

__all__ = [
    "DEFAULT_TOOLS_LIST_TTL_S",
    "RevisionServer",
    "ToolListNotifier",
    "listing_cache_hints",
    "listing_fields",
    "server_identity_kwargs",
]

logger = logging.getLogger("toolwire.mcp.server.listing_features")

SESSIONS_TOLD = 1000
"""Handshake-era sessions remembered for ``notifications/tools/list_changed``."""
_NOTICE_TIMEOUT_S = 5.0


def server_identity_kwargs(identity: ServerIdentity) -> dict[str, Any]:
    """The identity arguments of the SDK's `Server` (title, description, website, icons)."""
    icons = [mt.Icon.model_validate(icon.as_wire()) for icon in identity.icons]
    return {
        "title": identity.title,
        "description": identity.description,
        "website_url": identity.website_url,
        "icons": icons or None,
    }


def listing_cache_hints(ttl_s: float, *, authenticated: bool) -> dict[CacheableMethod, CacheHint]:
    """The ``ttlMs``/``cacheScope`` of ``tools/list`` and ``server/discover``.

    Args:
        ttl_s: How long a client may keep them (``0``: re-ask every time).
        authenticated: Each credential sees its own listing, so no shared cache may serve one
            client's answer to another (``"private"``).

    Raises:
        ConfigurationError: ``ttl_s`` is negative or not finite.
    """
    if not 0 <= ttl_s < math.inf:
        raise ConfigurationError(f"the tools/list cache TTL must be >= 0 seconds, got {ttl_s!r}")
    hint = CacheHint(ttl_ms=round(ttl_s * 1000), scope="private" if authenticated else "public")
    return {"tools/list": hint, "server/discover": hint}


class ToolListNotifier:
    """Tells every client when the served registry's tools change (see the module doc).

    Install it with `install`; it runs while the server's lifespan does (once per stdio
    connection, once for all streamable HTTP sessions).
    """

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry
        self._bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self._bus)
        """The ``subscriptions/listen`` handler (2026-07-28 streams)."""
        self._legacy: OrderedDict[str, ServerSession] = OrderedDict()
        self._wake: MemoryObjectSendStream[None] | None = None

    def install(
        self, server: Server[Any], session_id: Callable[[ServerRequestContext[Any, Any]], str]
    ) -> None:
        """Serve ``subscriptions/listen`` on ``server``, and remember each handshake-era session
        as it finishes its handshake (``session_id`` names it)."""
        server.add_request_handler(
            "subscriptions/listen", mt.SubscriptionsListenRequestParams, self.listen
        )

        async def initialized(
            ctx: ServerRequestContext[Any, Any], params: mt.NotificationParams
        ) -> None:
            self.track(ctx, session_id(ctx))

        server.add_notification_handler(
            "notifications/initialized", mt.NotificationParams, initialized
        )

    def track(self, ctx: ServerRequestContext[Any, Any], session_id: str) -> None:
        """Remember a handshake-era session (it is told of changes); the newest
        `SESSIONS_TOLD` are kept, and one a notice cannot reach is forgotten."""
        if is_stateless(ctx.protocol_version):
            return  # 2026-07-28 clients hear of changes on their subscriptions/listen stream
        self._legacy[session_id] = ctx.session
        self._legacy.move_to_end(session_id)
        while len(self._legacy) > SESSIONS_TOLD:
            self._legacy.popitem(last=False)

    @property
    def legacy_sessions(self) -> int:
        """How many handshake-era sessions would be told of a change."""
        return len(self._legacy)

    def forget(self, session_id: str) -> None:
        """Stop telling a session (it ended)."""
        self._legacy.pop(session_id, None)

    def changed(self) -> None:
        """The registry changed: notify soon (many changes at once are one notification)."""
        if self._wake is not None:
            with contextlib.suppress(anyio.WouldBlock, anyio.ClosedResourceError):
                self._wake.send_nowait(None)

    @contextlib.asynccontextmanager
    async def lifespan(self, server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        """The server's lifespan: watch the registry and notify until the server stops."""
        send, receive = anyio.create_memory_object_stream[None](1)
        stop_watching = self._registry.on_change(self.changed)
        self._wake = send
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._notify, receive)
                try:
                    yield {}
                finally:
                    group.cancel_scope.cancel()
        finally:
            stop_watching()
            self._wake = None
            self.listen.close()
            send.close()

    async def _notify(self, receive: MemoryObjectReceiveStream[None]) -> None:
        async with receive:
            async for _ in receive:
                await self._bus.publish(ToolsListChanged())
                for session_id, session in list(self._legacy.items()):
                    if not await _tell(session):  # the client went away: forget it
                        self._legacy.pop(session_id, None)


async def _tell(session: ServerSession) -> bool:
    """Send ``notifications/tools/list_changed`` on the session's own channel (not a
    request's); whether it went out."""
    try:
        with anyio.fail_after(_NOTICE_TIMEOUT_S):  # a stuck client holds up nobody else
            await session.send_tool_list_changed()
    except Exception:
        logger.debug("tools/list_changed not delivered", exc_info=True)
        return False
    return True


def listing_fields(server: Server[Any], protocol_version: str | None) -> dict[str, Any]:
    """What a ``tools/list`` answer built outside the SDK's runner (`toolwire.mcp.server.fast_http`)
    adds to ``{"tools": [...]}`` so it reads as the SDK's would: on 2026-07-28, ``resultType``, the
    cache hint (``ttlMs``, ``cacheScope``) and the ``serverInfo`` stamp; nothing before."""
    if not is_stateless(protocol_version):
        return {}
    fields: dict[str, Any] = {"resultType": "complete"}
    hint = server.cache_hints.get("tools/list")
    if hint is not None:
        fields["ttlMs"], fields["cacheScope"] = hint.ttl_ms, hint.scope
    fields["_meta"] = {mt.SERVER_INFO_META_KEY: server.server_info_stamp}
    return fields


class RevisionServer(Server[Any]):
    """The SDK's low-level server, announcing ``tools.listChanged`` on the legacy handshake
    too (the 2026-07-28 one derives it from ``subscriptions/listen`` being served)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        """The ``initialize`` result's contents, with ``tools.listChanged: true``."""
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )
