"""`JwtVerifier`: OAuth 2.1 resource-server mode, access tokens as JWTs from one issuer.

A token is accepted when all of these hold:

- its header names an algorithm from `OAuthSettings.algorithms` (public-key only: ``none``
  and ``HS256`` are refused before any key is looked at, so a token "signed" with the
  issuer's public key as an HMAC secret gets nowhere) that fits the key's type (and the key's
  own ``alg`` when the issuer pinned one);
- its ``kid`` is a signing key of the issuer's JWKS (`toolwire.mcp.server.auth._jwks`); keys
  embedded in or pointed at by the token's own header (``jwk``, ``jku``, ``x5u``, ``x5c``) are never
  used, and a ``crit`` header naming an extension PyJWT does not implement is refused;
- the signature verifies; ``iss`` is the issuer exactly; ``aud`` contains an accepted audience
  (a string or a list, on either side);
  ``exp`` is present and not past, ``nbf`` and ``iat`` not in the future (each with
  `OAuthSettings.leeway_s` of clock skew);
- its scopes (``scope``, space-separated, or ``scp``, a list) map to at least one toolset
  through `OAuthSettings.scopes`; otherwise it is refused as ``insufficient_scope`` (403).
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from typing import Any

import jwt
from jwt import exceptions as jwt_errors

from toolwire.mcp.server.auth._credentials import GrantedAccessToken, TokenRejected, fingerprint
from toolwire.mcp.server.auth._jwks import JwksCache, SigningKey
from toolwire.mcp.server.auth.grants import Grant
from toolwire.mcp.server.auth.settings import OAuthSettings

__all__ = ["JwtVerifier"]

_CACHE_SIZE = 1024
_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
_REASONS: tuple[tuple[type[Exception], str], ...] = (
    (jwt_errors.ExpiredSignatureError, "token expired"),
    (jwt_errors.ImmatureSignatureError, "token not yet valid (nbf or iat in the future)"),
    (jwt_errors.InvalidAudienceError, "token is for another audience"),
    (jwt_errors.InvalidIssuerError, "token is from another issuer"),
    (jwt_errors.MissingRequiredClaimError, "token lacks a required claim"),
    (jwt_errors.InvalidSignatureError, "bad signature"),
)


class JwtVerifier:
    """Verifies JWT access tokens against `OAuthSettings`.

    Args:
        settings: Issuer, JWKS, audience, scopes, algorithms, leeway.
        keys: The key cache (one for ``settings.jwks_url``, or discovering it from the
            issuer, by default).
        cache_s: How long an accepted token is trusted without checking its signature again
            (never past its ``exp``); a signature check costs a few hundred microseconds.
    """

    def __init__(
        self, settings: OAuthSettings, keys: JwksCache | None = None, *, cache_s: float = 0.0
    ) -> None:
        self.settings = settings
        self.keys = keys or JwksCache(
            settings.jwks_url,
            issuer=settings.issuer,
            max_age_s=settings.jwks_cache_s,
            refetch_s=settings.jwks_refetch_s,
        )
        self._cache_s = cache_s
        self._accepted: OrderedDict[str, tuple[float, GrantedAccessToken]] = OrderedDict()

    async def verify(self, token: str) -> GrantedAccessToken:
        """The token's principal and grant.

        Raises:
            TokenRejected: anything in the module doc does not hold.
        """
        digest = hashlib.sha256(token.encode()).hexdigest()
        cached = self._accepted.get(digest)
        if cached is not None and time.time() < cached[0]:
            return cached[1]
        access = await self._verify(token)
        if self._cache_s > 0:
            until = time.time() + self._cache_s
            if access.expires_at is not None:
                until = min(until, access.expires_at)
            self._accepted[digest] = (until, access)
            while len(self._accepted) > _CACHE_SIZE:
                self._accepted.popitem(last=False)
        return access

    async def _verify(self, token: str) -> GrantedAccessToken:
        try:
            header = jwt.get_unverified_header(token)
        except jwt_errors.PyJWTError:
            raise TokenRejected("not a JWT") from None
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.settings.algorithms:
            raise TokenRejected(f"signing algorithm {alg!r} is not accepted")
        kid = header.get("kid")
        key = await self.keys.key(kid if isinstance(kid, str) else None)
        _check_key_fits(key, alg)
        claims = self._decode(token, key, alg)
        return self._access_token(token, claims)

    def _decode(self, token: str, key: SigningKey, alg: str) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key.jwk.key,
                algorithms=[alg],
                audience=list(self.settings.audiences),
                issuer=self.settings.issuer,
                leeway=self.settings.leeway_s,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt_errors.PyJWTError as exc:
            for kind, reason in _REASONS:
                if isinstance(exc, kind):
                    raise TokenRejected(reason) from None
            raise TokenRejected(f"invalid token ({type(exc).__name__})") from None
        return claims

    def _access_token(self, token: str, claims: dict[str, Any]) -> GrantedAccessToken:
        scopes = _scopes(claims)
        grant = Grant()
        for scope in scopes:
            toolsets = self.settings.scopes.get(scope)
            if toolsets is not None:
                grant = grant.union(Grant.of(toolsets=toolsets))
        if grant.empty:
            raise TokenRejected("token has no scope this server knows", error="insufficient_scope")
        subject = claims.get("sub")
        client = claims.get("client_id") or claims.get("azp") or subject
        if client is None:  # nobody named: the token is its own principal, so no other
            subject = claims.get("jti") or fingerprint(token)  # token shares its sessions
            client = "oauth-client"
        exp = claims.get("exp")
        return GrantedAccessToken(
            token=fingerprint(token),
            client_id=str(client),
            scopes=scopes,
            expires_at=int(exp) if isinstance(exp, int | float) else None,
            resource=self.settings.resource,
            subject=str(subject) if subject is not None else None,
            claims={"iss": claims.get("iss")},
            grant=grant,
        )

    async def aclose(self) -> None:
        """Close the key cache's HTTP client."""
        await self.keys.aclose()


def _check_key_fits(key: SigningKey, alg: str) -> None:
    """Refuse a token whose algorithm does not belong with the key it names."""
    if _KEY_TYPES.get(alg[:2]) != key.kty or (key.alg is not None and key.alg != alg):
        raise TokenRejected(f"signing algorithm {alg} does not match the key")


def _scopes(claims: dict[str, Any]) -> list[str]:
    """``scope`` (RFC 9068: space-separated) or ``scp`` (a list, or a string)."""
    raw = claims.get("scope") or claims.get("scp")
    if isinstance(raw, str):
        return raw.split()
    if isinstance(raw, list):
        return [item for item in raw if isinstance(item, str)]
    return []
