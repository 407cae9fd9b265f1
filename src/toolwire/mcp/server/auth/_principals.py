"""The principal of an HTTP request: the credential `toolwire.mcp.server.auth._guard.BearerGuard`
accepted, or `toolwire.principals.LOCAL` when nobody authenticated it.

The guard puts the verified credential in ``scope["user"]`` (the SDK's `AuthenticatedUser`);
its issuer (the ``iss`` claim), client id and subject are the principal — the same triple the
SDK binds a handshake-era session to. Read duck-typed, so neither stdio nor the fast paths load
the SDK for it.
"""

from __future__ import annotations

import functools
from typing import Any

from toolwire.principals import LOCAL, Principal

__all__ = ["request_principal", "scope_principal"]


def scope_principal(scope: object) -> Principal:
    """The principal of an ASGI ``scope`` (`LOCAL` without an authenticated user)."""
    user = scope.get("user") if isinstance(scope, dict) else None  # an ASGI scope is a dict
    token = getattr(user, "access_token", None)
    if token is None:
        return LOCAL
    claims = getattr(token, "claims", None)
    issuer = claims.get("iss") if isinstance(claims, dict) else None
    subject = getattr(token, "subject", None)
    return _principal(
        None if issuer is None else str(issuer),
        str(getattr(token, "client_id", "")),
        None if subject is None else str(subject),
    )


@functools.lru_cache(maxsize=4096)
def _principal(issuer: str | None, client: str, subject: str | None) -> Principal:
    """One `Principal` per credential triple (its id is a hash: made once, not per request)."""
    return Principal.of_credential(issuer=issuer, client=client, subject=subject)


def request_principal(request: Any) -> Principal:
    """The principal of a request object with a ``scope`` (Starlette's ``Request``, the SDK's
    ``ctx.request``); `LOCAL` for stdio and servers without authentication."""
    return scope_principal(getattr(request, "scope", None))
