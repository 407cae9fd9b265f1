"""`ServerAuth`: everything an HTTP endpoint needs to authenticate, built from `AuthSettings`.

```python
auth = open_server_auth(settings, kv_backend)       # the store the tokens live in
await auth.start()                                  # discovers the issuer's JWKS, if asked
endpoint_app = auth.guard(endpoint_app)             # 401/403 before the MCP transport
routes += auth.metadata_routes()                    # RFC 9728 (OAuth mode)
server.middleware.append(auth.tool_access(registry))  # tools/list and tools/call per grant
...
await auth.aclose()
```
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.shared.auth import ProtectedResourceMetadata
from starlette.routing import Route

from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth._guard import BearerGuard
from toolwire.mcp.server.auth._oauth import JwtVerifier
from toolwire.mcp.server.auth._verifier import CredentialVerifier
from toolwire.mcp.server.auth.access import ToolAccess
from toolwire.mcp.server.auth.tokens import TokenStore

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from toolwire.mcp.server.auth.settings import AuthSettings, OAuthSettings
    from toolwire.registry import ToolRegistry
    from toolwire.stores import KeyValueBackend

__all__ = ["ServerAuth", "metadata_path", "open_server_auth", "server_auth_for"]

_WELL_KNOWN = "/.well-known/oauth-protected-resource"


def metadata_path(resource: str) -> str:
    """RFC 9728 §3.1: the well-known path with the resource's path appended."""
    path = urlsplit(resource).path.rstrip("/")
    return _WELL_KNOWN + path


@dataclass(frozen=True, slots=True)
class ServerAuth:
    """The verifier and, in OAuth mode, the protected-resource metadata."""

    verifier: CredentialVerifier
    oauth: OAuthSettings | None = None

    @property
    def metadata_url(self) -> str | None:
        """Where the RFC 9728 metadata is served (OAuth mode)."""
        if self.oauth is None:
            return None
        parts = urlsplit(self.oauth.resource)
        return f"{parts.scheme}://{parts.netloc}{metadata_path(self.oauth.resource)}"

    def guard(self, app: ASGIApp) -> ASGIApp:
        """``app`` behind `BearerGuard`."""
        scopes = tuple(self.oauth.scopes) if self.oauth is not None else ()
        return BearerGuard(app, self.verifier, metadata_url=self.metadata_url, scopes=scopes)

    def tool_access(self, registry: ToolRegistry) -> ToolAccess:
        """The server middleware that enforces each credential's grant."""
        return ToolAccess(registry)

    def metadata_routes(self) -> list[Route]:
        """``GET /.well-known/oauth-protected-resource[/<path>]`` in OAuth mode (both the
        RFC 9728 path and the root one clients fall back to); none otherwise."""
        if self.oauth is None:
            return []
        metadata = ProtectedResourceMetadata.model_validate(
            {
                "resource": self.oauth.resource,
                "authorization_servers": [self.oauth.issuer],
                "scopes_supported": sorted(self.oauth.scopes),
                "resource_name": "toolwire",
            }
        )
        # No response signing is advertised: toolwire signs no responses (the token
        # algorithms it accepts are the authorization server's business, not this document's).
        # No CORS of its own either: browser pages reach it exactly as they reach /mcp, through
        # `[serve] cors_origins` (`toolwire.mcp.server.cors`), never through a blanket ``*``.
        handler = ProtectedResourceMetadataHandler(metadata).handle
        paths = dict.fromkeys((metadata_path(self.oauth.resource), _WELL_KNOWN))
        return [Route(path, endpoint=handler, methods=["GET"]) for path in paths]

    async def start(self) -> None:
        """Find the issuer's JWKS now when it is discovered from the issuer's metadata, so a
        wrong issuer stops the server at start rather than refusing every token later.

        Raises:
            ConfigurationError: discovery failed (the message says what each metadata URL
                answered and how to fix it).
        """
        if self.verifier.oauth is not None:
            await self.verifier.oauth.keys.start()

    async def aclose(self) -> None:
        """Release the JWKS client."""
        await self.verifier.aclose()


def open_server_auth(settings: AuthSettings, backend: KeyValueBackend | None) -> ServerAuth:
    """`ServerAuth` for ``settings``; bearer tokens are read from ``backend``.

    Raises:
        ConfigurationError: nothing is enabled, or tokens are on without a store.
    """
    if not settings.enabled:
        raise ConfigurationError(
            "authentication is off: set [auth] tokens = true or configure [auth.oauth]"
        )
    tokens: TokenStore | None = None
    if settings.tokens:
        if backend is None:
            raise ConfigurationError("[auth] tokens = true needs a key-value store ([store] url)")
        tokens = TokenStore(backend, cache_s=settings.token_cache_s)
    oauth = None
    if settings.oauth is not None:
        oauth = JwtVerifier(settings.oauth, cache_s=settings.token_cache_s)
    return ServerAuth(CredentialVerifier(tokens=tokens, oauth=oauth), settings.oauth)


@asynccontextmanager
async def server_auth_for(
    settings: AuthSettings, backend: KeyValueBackend | None
) -> AsyncIterator[ServerAuth | None]:
    """`open_server_auth` when ``settings`` enable anything (``None`` otherwise), started
    (`ServerAuth.start`) and closed on exit.

    Raises:
        ConfigurationError: as `open_server_auth` and `ServerAuth.start`.
    """
    if not settings.enabled:
        yield None
        return
    auth = open_server_auth(settings, backend)
    try:
        await auth.start()
        yield auth
    finally:
        await auth.aclose()
