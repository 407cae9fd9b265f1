"""``GET /healthz``: whether this server can answer calls — its store answers included.

A load balancer's check of ``/mcp`` runs the MCP endpoint but never touches the store, so a
replica whose store is down would pass it and fail every call. This route makes one cheap
round trip to the key-value store the server runs on (a read of one key in the
``tool:toolwire.health`` namespace) and answers:

| status | body | when |
| --- | --- | --- |
| ``200`` | ``{"status": "ok", "store": "ok"}`` | the store answered within the timeout |
| ``200`` | ``{"status": "ok", "store": "none"}`` | the server has no store |
| ``503`` | ``{"status": "unavailable", "store": "unreachable"}`` | the store refused or failed |
| ``503`` | ``{"status": "unavailable", "store": "timeout"}`` | no answer within the timeout |

It needs no authentication and says nothing more (no URL, no error text): it is reachable
by anyone who reaches the port. ``HEAD`` answers the same status without a body.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import anyio
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from toolwire.errors import StoreError

if TYPE_CHECKING:
    from starlette.requests import Request

    from toolwire.capabilities.seams import KeyValueStore
    from toolwire.stores._base import KeyValueBackend

__all__ = ["DEFAULT_HEALTH_TIMEOUT_S", "HEALTH_PATH", "HEALTH_TOOL", "StoreHealth", "health_route"]

logger = logging.getLogger("toolwire.mcp.server.health")

HEALTH_PATH = "/healthz"
"""Where the route answers."""
HEALTH_TOOL = "toolwire.health"
"""The store namespace the probe reads (``tool:toolwire.health``; not a valid tool name)."""
DEFAULT_HEALTH_TIMEOUT_S = 2.0
"""How long the store has to answer the probe."""
_PROBE_KEY = "probe"


class StoreHealth:
    """One probe of a store: `check` says ``ok``, ``none``, ``unreachable`` or ``timeout``.

    Args:
        backend: The store the server runs on; ``None``: it has none.
        timeout_s: How long the store has to answer.
    """

    def __init__(
        self, backend: KeyValueBackend | None, *, timeout_s: float = DEFAULT_HEALTH_TIMEOUT_S
    ) -> None:
        self._store: KeyValueStore | None = (
            None if backend is None else backend.scoped(HEALTH_TOOL, f"tool:{HEALTH_TOOL}")
        )
        self.timeout_s = timeout_s

    async def check(self) -> str:
        """The store's state now (see the module docstring)."""
        if self._store is None:
            return "none"
        with anyio.move_on_after(self.timeout_s):
            try:
                await self._store.get(_PROBE_KEY)
            except (StoreError, OSError) as exc:
                logger.warning("health check: the store failed: %s", exc)
                return "unreachable"
            return "ok"
        logger.warning("health check: the store did not answer within %g s", self.timeout_s)
        return "timeout"

    async def respond(self, request: Request) -> Response:
        """The route's answer: ``200`` or ``503`` with the state (no body for ``HEAD``)."""
        state = await self.check()
        healthy = state in ("ok", "none")
        status = 200 if healthy else 503
        body = {"status": "ok" if healthy else "unavailable", "store": state}
        headers = {"cache-control": "no-store"}
        if request.method == "HEAD":
            return Response(status_code=status, headers=headers)
        return JSONResponse(body, status_code=status, headers=headers)


def health_route(
    backend: KeyValueBackend | None, *, timeout_s: float = DEFAULT_HEALTH_TIMEOUT_S
) -> Route:
    """The ``GET``/``HEAD`` `HEALTH_PATH` route probing ``backend``."""
    return Route(
        HEALTH_PATH,
        endpoint=StoreHealth(backend, timeout_s=timeout_s).respond,
        methods=["GET", "HEAD"],
    )
