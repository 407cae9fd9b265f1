"""`BearerGuard`: the ASGI middleware in front of ``/mcp`` that lets only credentials in.

Every HTTP request must carry ``Authorization: Bearer <credential>``. Without one the answer
is ``401`` with ``WWW-Authenticate: Bearer realm="toolwire"`` (plus
``resource_metadata="<url>"`` in OAuth mode, where a client finds the authorization server,
as the MCP authorization spec and RFC 9728 say); a refused credential gets the same with
``error="invalid_token"`` and the reason, and an OAuth token whose scopes open nothing here
gets ``403`` with ``error="insufficient_scope"`` and the scopes that would.

An accepted credential becomes the SDK's `AuthenticatedUser` in ``scope["user"]`` (the SDK
binds each HTTP session to that principal, so no other credential can use the session) and
in the SDK's ``auth_context_var`` (its ``get_access_token()`` works in handlers). Each request
is checked, so a revoked or expired credential stops working on an open session too.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.authentication import AuthCredentials

from toolwire.mcp.auth.credentials import TokenRejected

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from toolwire.mcp.auth.verifier import CredentialVerifier

__all__ = ["BearerGuard"]

REALM = "toolwire"


class BearerGuard:
    """Refuses HTTP requests without an accepted credential (see the module doc).

    Args:
        app: The endpoint to protect.
        verifier: Checks credentials.
        metadata_url: The RFC 9728 metadata URL named in challenges (OAuth mode).
        scopes: The scopes that open something, named in ``insufficient_scope`` challenges.
    """

    def __init__(
        self,
        app: ASGIApp,
        verifier: CredentialVerifier,
        *,
        metadata_url: str | None = None,
        scopes: tuple[str, ...] = (),
    ) -> None:
        self._app = app
        self._verifier = verifier
        self._metadata_url = metadata_url
        self._scopes = scopes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the credential, then serve the request as its principal."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        credential = _bearer(scope)
        if credential is None:
            await self._refuse(send, 401, None, "send Authorization: Bearer <token>")
            return
        try:  # expiry is the verifier's (a JWT's with its leeway)
            access = await self._verifier.check(credential)
        except TokenRejected as refused:
            await self._refuse(send, refused.status, refused.error, refused.reason)
            return
        user = AuthenticatedUser(access)
        scope["user"] = user
        scope["auth"] = AuthCredentials(access.scopes)
        reset = auth_context_var.set(user)
        try:
            await self._app(scope, receive, send)
        finally:
            auth_context_var.reset(reset)

    async def _refuse(self, send: Send, status: int, error: str | None, reason: str) -> None:
        parts = [f'realm="{REALM}"']
        if error is not None:
            parts += [f'error="{error}"', f'error_description="{_quoted(reason)}"']
        if error == "insufficient_scope" and self._scopes:
            parts.append(f'scope="{_quoted(" ".join(self._scopes))}"')
        if self._metadata_url is not None:
            parts.append(f'resource_metadata="{self._metadata_url}"')
        body = json.dumps(
            {"error": error or "invalid_request", "error_description": reason}
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", ("Bearer " + ", ".join(parts)).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _bearer(scope: Scope) -> str | None:
    """The credential of an ``Authorization: Bearer`` header (scheme case-insensitive)."""
    for name, value in scope.get("headers") or ():
        if name.lower() == b"authorization":
            text: str = value.decode("latin-1")
            scheme, _, credential = text.partition(" ")
            if scheme.lower() == "bearer" and credential.strip():
                return credential.strip()
            return None
    return None


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
