"""`LeanFront`: ``POST /mcp`` straight to the endpoint, past Starlette's routing and middleware.

Starlette's app wraps every request in its error and exception middleware, a router that matches
each route and builds new scopes; for the one endpoint under load none of it does anything (uvicorn
answers 500 to an app that fails before answering, as Starlette's error middleware does).
`LeanFront` sends ``POST`` requests whose path is the endpoint's directly to the endpoint's ASGI
chain (the bearer guard, the hang-up watcher, `toolwire.mcp.server.fast_http.LeanPath`, the SDK's
transport) and everything else (other methods and paths, the lifespan) to the Starlette app, which
routes them as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LeanFront"]


class LeanFront:
    """``POST path`` to ``endpoint``, the rest to ``app`` (see the module doc).

    Args:
        app: The Starlette app (every other request, the lifespan).
        path: The endpoint's path (``/mcp``).
        endpoint: The ASGI app Starlette routes ``path`` to.
    """

    def __init__(self, app: ASGIApp, path: str, endpoint: ASGIApp) -> None:
        self._app = app
        self._path = path
        self._endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Route one ASGI event."""
        if scope["type"] == "http" and scope["method"] == "POST" and self._route(scope):
            await self._endpoint(scope, receive, send)
        else:
            await self._app(scope, receive, send)

    def _route(self, scope: Scope) -> bool:
        """Whether the request's path, under the app's root path, is the endpoint's."""
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        return path == self._path
