"""The principal of an HTTP request: the credential `toolwire.mcp.auth.guard.BearerGuard`
accepted, or `toolwire.principals.LOCAL` when nobody authenticated it.

The guard puts the verified credential in ``scope["user"]`` (the SDK's `AuthenticatedUser`);
its issuer (the ``iss`` claim), client id and subject are the principal — the same triple the
SDK binds a handshake-era session to. Read duck-typed, so neither stdio nor the fast paths load
the SDK for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.principals import LOCAL, Principal

__all__ = ["request_principal", "scope_principal"]


def scope_principal(scope: object) -> Principal:
    """The principal of an ASGI ``scope`` (`LOCAL` without an authenticated user)."""
    user = scope.get("user") if isinstance(scope, Mapping) else None
    token = getattr(user, "access_token", None)
    if token is None:
        return LOCAL
    claims = getattr(token, "claims", None) or {}
    issuer = claims.get("iss") if isinstance(claims, Mapping) else None
    subject = getattr(token, "subject", None)
    return Principal.of_credential(
        issuer=None if issuer is None else str(issuer),
        client=str(getattr(token, "client_id", "")),
        subject=None if subject is None else str(subject),
    )


def request_principal(request: Any) -> Principal:
    """The principal of a request object with a ``scope`` (Starlette's ``Request``, the SDK's
    ``ctx.request``); `LOCAL` for stdio and servers without authentication."""
    return scope_principal(getattr(request, "scope", None))
