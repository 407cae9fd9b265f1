"""`CredentialVerifier`: a bearer token from the store, or an OAuth JWT, → its principal.

It is also an SDK `TokenVerifier` (``verify_token`` answers ``None`` for anything refused), so
it can stand behind the SDK's own ``BearerAuthBackend`` too.
"""

from __future__ import annotations

from collections import OrderedDict

from toolwire.mcp.server.auth._credentials import GrantedAccessToken, TokenRejected, fingerprint
from toolwire.mcp.server.auth._oauth import JwtVerifier
from toolwire.mcp.server.auth.tokens import TOKEN_ISSUER, TOKEN_PREFIX, TokenRecord, TokenStore

__all__ = ["CredentialVerifier"]

_PRINCIPALS = 1024


class CredentialVerifier:
    """Checks the credentials a server accepts.

    Args:
        tokens: The bearer-token store (``None``: bearer tokens are off).
        oauth: The JWT verifier (``None``: OAuth is off).
    """

    def __init__(self, *, tokens: TokenStore | None, oauth: JwtVerifier | None) -> None:
        self.tokens = tokens
        self.oauth = oauth
        # token id -> (the record the store verified, its principal): while the store's cache
        # hands back the same record, the principal is reused rather than built again
        self._principals: OrderedDict[str, tuple[TokenRecord, GrantedAccessToken]] = OrderedDict()

    async def check(self, token: str) -> GrantedAccessToken:
        """The principal behind ``token``.

        Raises:
            TokenRejected: it is not a credential this server accepts (the reason says why).
        """
        if token.startswith(TOKEN_PREFIX) and self.tokens is not None:
            record = await self.tokens.verify(token)
            if record is None:
                raise TokenRejected("unknown, revoked or expired token")
            known = self._principals.get(record.id)
            if known is not None and known[0] is record:
                return known[1]
            access = GrantedAccessToken(
                token=fingerprint(token),
                client_id=record.name,
                scopes=[],
                expires_at=int(record.expires_at) if record.expires_at is not None else None,
                subject=record.id,
                claims={"iss": TOKEN_ISSUER},
                grant=record.grant,
            )
            self._principals[record.id] = (record, access)
            while len(self._principals) > _PRINCIPALS:
                self._principals.popitem(last=False)
            return access
        if self.oauth is not None:
            return await self.oauth.verify(token)
        raise TokenRejected("unknown, revoked or expired token")

    async def verify_token(self, token: str) -> GrantedAccessToken | None:
        """The SDK's `TokenVerifier` method: the principal, or ``None`` when refused."""
        try:
            return await self.check(token)
        except TokenRejected:
            return None

    async def aclose(self) -> None:
        """Release the JWKS client."""
        if self.oauth is not None:
            await self.oauth.aclose()
