"""What a verified credential becomes (`GrantedAccessToken`), and why one is refused
(`TokenRejected`)."""

from __future__ import annotations

import hashlib
from typing import Literal

from mcp.server.auth.provider import AccessToken
from pydantic import ConfigDict

from toolwire.mcp.server.auth.grants import Grant

__all__ = ["GrantedAccessToken", "TokenRejected", "fingerprint"]


def fingerprint(credential: str) -> str:
    """``sha256:<hex>`` of ``credential``: what a principal keeps instead of the secret."""
    return "sha256:" + hashlib.sha256(credential.encode()).hexdigest()


class GrantedAccessToken(AccessToken):
    """The SDK's `AccessToken` plus the tools it opens.

    ``token`` is not the credential but its `fingerprint`: the principal rides in the ASGI
    scope and the SDK's ``auth_context_var``, where a handler, a tool (``get_access_token()``)
    or a log line could show it, so it never holds the secret.
    ``client_id`` is the token's name (bearer tokens) or the OAuth client; ``subject`` the
    token id or the JWT's ``sub``; ``claims["iss"]`` the issuer (``toolwire`` for bearer
    tokens). The SDK binds each HTTP session to that triple, so another credential cannot use
    it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    grant: Grant


class TokenRejected(Exception):
    """A credential that does not let the request in; ``reason`` is safe to show the client.

    Attributes:
        reason: Why (``token expired``, ``unknown signing key``, ...).
        error: The RFC 6750 error code: ``invalid_token`` (401) or ``insufficient_scope``
            (403).
    """

    def __init__(
        self,
        reason: str,
        *,
        error: Literal["invalid_token", "insufficient_scope"] = "invalid_token",
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.error = error

    @property
    def status(self) -> int:
        """The HTTP status: 401, or 403 for a token whose scopes open nothing here."""
        return 403 if self.error == "insufficient_scope" else 401
