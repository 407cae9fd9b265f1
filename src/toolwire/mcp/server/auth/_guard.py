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

Only the ``Authorization`` header carries a credential: nothing in ``Mcp-Param-*``,
``Mcp-Name``, cookies or other headers is read. A request with two ``Authorization`` headers,
or with ``access_token`` in its URL (where access logs and proxies keep it), is answered
``400`` with ``error="invalid_request"``; a credential longer than 16 KiB is refused unread.
When the token store cannot be reached the answer is ``503`` with ``Retry-After`` (the token
may well be good), never a ``500``.
No answer repeats the credential, and the reason a challenge gives is printable ASCII of
bounded length whatever the token held. WebSocket connections are checked the same way
(refused with close code 1008) so that no other scope type slips past the guard.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.authentication import AuthCredentials

from toolwire.errors import StoreError
from toolwire.mcp.server.auth._credentials import GrantedAccessToken, TokenRejected

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from toolwire.mcp.server.auth._verifier import CredentialVerifier

__all__ = ["MAX_CREDENTIAL_CHARS", "BearerGuard"]

REALM = "toolwire"
logger = logging.getLogger("toolwire.mcp.server.auth")
_RETRY_AFTER_S = 5


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
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)  # lifespan
            return
        try:
            access = await self._authenticate(scope)
        except _Refusal as refusal:
            if scope["type"] == "websocket":
                await receive()  # websocket.connect, then the refusal (403 before the handshake)
                await send({"type": "websocket.close", "code": 1008})
                return
            await self._refuse(send, refusal)
            return
        user = AuthenticatedUser(access)
        scope["user"] = user
        scope["auth"] = AuthCredentials(access.scopes)
        reset = auth_context_var.set(user)
        try:
            await self._app(scope, receive, send)
        finally:
            auth_context_var.reset(reset)

    async def _authenticate(self, scope: Scope) -> GrantedAccessToken:
        """The principal behind the request's one ``Authorization: Bearer`` credential.

        Raises:
            _Refusal: no usable credential (the answer to give).
        """
        query = parse_qsl(_query(scope), keep_blank_values=True)
        if any(key == "access_token" for key, _ in query):
            raise _Refusal(
                400,
                "invalid_request",
                "send the token in the Authorization header, never in the URL "
                "(URLs are kept in access logs)",
            )
        values = [v for name, v in scope.get("headers") or () if name.lower() == b"authorization"]
        if len(values) > 1:
            raise _Refusal(400, "invalid_request", "send exactly one Authorization header")
        credential = _bearer(values[0]) if values else None
        if credential is None:
            raise _Refusal(401, None, "send Authorization: Bearer <token>")
        if len(credential) > MAX_CREDENTIAL_CHARS:
            raise _Refusal(401, "invalid_token", "token is implausibly long")
        try:  # expiry is the verifier's (a JWT's with its leeway)
            return await self._verifier.check(credential)
        except TokenRejected as refused:
            raise _Refusal(refused.status, refused.error, refused.reason) from None
        except StoreError as exc:  # the token may be good: not a 401, and not a crash either
            logger.warning("cannot check a bearer token, the store is unavailable: %s", exc)
            raise _Refusal(
                503, "temporarily_unavailable", "the credential store is unavailable; try again"
            ) from None

    async def _refuse(self, send: Send, refusal: _Refusal) -> None:
        reason = _printable(refusal.reason)
        parts = [f'realm="{REALM}"']
        if refusal.error is not None:
            parts += [f'error="{refusal.error}"', f'error_description="{_quoted(reason)}"']
        if refusal.error == "insufficient_scope" and self._scopes:
            parts.append(f'scope="{_quoted(_printable(" ".join(self._scopes)))}"')
        if self._metadata_url is not None:
            parts.append(f'resource_metadata="{self._metadata_url}"')
        body = json.dumps(
            {"error": refusal.error or "invalid_request", "error_description": reason}
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        if refusal.status >= 500:  # nothing wrong with the credential: come back later
            headers.append((b"retry-after", str(_RETRY_AFTER_S).encode()))
        else:
            headers.append((b"www-authenticate", ("Bearer " + ", ".join(parts)).encode("latin-1")))
        await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


MAX_CREDENTIAL_CHARS = 16384
"""Longer credentials are refused without being parsed (a JWT is a few KiB at most)."""
_MAX_REASON_CHARS = 160


class _Refusal(Exception):
    def __init__(self, status: int, error: str | None, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.error = error
        self.reason = reason


def _query(scope: Scope) -> str:
    raw = scope.get("query_string") or b""
    return raw.decode("latin-1") if isinstance(raw, bytes) else str(raw)


def _bearer(value: bytes) -> str | None:
    """The credential of an ``Authorization: Bearer`` value (scheme case-insensitive)."""
    scheme, _, credential = value.decode("latin-1").partition(" ")
    credential = credential.strip()
    return credential if scheme.lower() == "bearer" and credential else None


def _printable(text: str) -> str:
    """``text`` as bounded, printable ASCII (what a token's header put in a reason)."""
    cleaned = "".join(c if " " <= c <= "~" else "?" for c in text)
    if len(cleaned) > _MAX_REASON_CHARS:
        cleaned = cleaned[: _MAX_REASON_CHARS - 3] + "..."
    return cleaned


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
