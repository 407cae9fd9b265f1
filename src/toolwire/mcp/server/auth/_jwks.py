"""`JwksCache`: an issuer's signing keys, fetched over HTTPS, cached, refreshed on rotation.

The keys come from a configured JWKS URL, or from the ``jwks_uri`` the issuer's metadata names
(`toolwire.mcp.server.auth._discovery`; the discovered URL is cached as long as the keys and looked
up again whenever they are fetched again, keeping the old one if the metadata is unavailable). Keys
are fetched on first use and again once older than ``max_age_s``. A token signed with a key id the
cache does not know (the issuer rotated its keys) triggers one fetch at once, but at most every
``refetch_s``, so a stream of tokens with made-up key ids cannot turn the server into a load
generator against the issuer. When a scheduled refresh fails, the keys already known keep working
and the failure is logged; with no keys at all, tokens are refused, and the next attempt waits
``refetch_s`` (at least a second) instead of one fetch per request.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
from jwt import PyJWK
from jwt.exceptions import PyJWKError

from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth._credentials import TokenRejected
from toolwire.mcp.server.auth._discovery import DiscoveryFailed, discover_jwks_uri
from toolwire.mcp.server.auth._fetch import FetchFailed, fetch_json

__all__ = ["JwksCache", "SigningKey"]

logger = logging.getLogger("toolwire.mcp.server.auth")
_FETCH_TIMEOUT_S = 5.0
_MAX_JWKS_BYTES = 1_000_000
_RETRY_MIN_S = 1.0


@dataclass(frozen=True, slots=True)
class SigningKey:
    """One key of the set: its type (``RSA``, ``EC``, ``OKP``), its ``alg`` if the issuer
    pinned one, and the public key."""

    kty: str
    alg: str | None
    jwk: PyJWK


class JwksCache:
    """The signing keys at ``url`` (or at the ``jwks_uri`` of ``issuer``'s metadata), by key id.

    Args:
        url: The JWKS URL (``https://``; ``http://`` only for loopback, checked by the
            settings); empty: discovered from ``issuer``.
        issuer: The issuer whose metadata names the JWKS URL when ``url`` is empty.
        max_age_s: Fetch again (and, when discovered, look the URL up again) after this long.
        refetch_s: The least time between two fetches caused by unknown key ids.
        client: The HTTP client to fetch with (one of its own by default, closed by `aclose`).
    """

    def __init__(
        self,
        url: str = "",
        *,
        issuer: str | None = None,
        max_age_s: float = 600.0,
        refetch_s: float = 10.0,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        if not url and not issuer:
            raise ConfigurationError("JwksCache needs the JWKS url or the issuer to discover it")
        self._url = url
        self._issuer = issuer if not url else None
        self._discovered: str | None = None
        self._max_age_s = max_age_s
        self._refetch_s = refetch_s
        self._client = client
        self._own_client = client is None
        self._keys: dict[str | None, SigningKey] = {}
        self._fetched_at: float | None = None
        self._refetched_at = -float("inf")
        self._retry_at = -float("inf")
        self._lock = anyio.Lock()

    async def key(self, kid: str | None) -> SigningKey:
        """The signing key for ``kid`` (for a token without ``kid``: the only key there is).

        Raises:
            TokenRejected: no such key, even after fetching the set again.
        """
        now = time.monotonic()
        if not self._keys and now < self._retry_at:  # the issuer just failed us: don't pile on
            raise TokenRejected("the issuer's signing keys are unavailable")
        if self._fetched_at is None or now - self._fetched_at >= self._max_age_s:
            await self._refresh(scheduled=True)
        found = self._lookup(kid)
        if found is None and time.monotonic() - self._refetched_at >= self._refetch_s:
            await self._refresh(scheduled=False)
            found = self._lookup(kid)
        if found is None:
            raise TokenRejected(
                "unknown signing key" if kid is not None else "token has no key id (kid)"
            )
        return found

    def _lookup(self, kid: str | None) -> SigningKey | None:
        if kid is not None:
            return self._keys.get(kid)
        only = list(self._keys.values())
        return only[0] if len(only) == 1 else None

    async def _refresh(self, *, scheduled: bool) -> None:
        fetched_before = self._fetched_at
        async with self._lock:
            if self._fetched_at != fetched_before:  # another request fetched meanwhile
                return
            if not scheduled:
                self._refetched_at = time.monotonic()
            try:
                url = await self._locate(rediscover=self._fetched_at is not None)
                self._keys = await self._fetch(url)
            except (FetchFailed, ValueError, DiscoveryFailed) as exc:
                logger.warning("cannot fetch the JWKS of %s: %s", self._url or self._issuer, exc)
                if not self._keys:
                    self._retry_at = time.monotonic() + max(self._refetch_s, _RETRY_MIN_S)
                    raise TokenRejected("the issuer's signing keys are unavailable") from exc
            self._fetched_at = time.monotonic()

    async def start(self) -> None:
        """Look the JWKS URL up now, when it is discovered (a server calls this on start).

        Raises:
            ConfigurationError: the issuer's metadata names no usable JWKS URL (the message
                lists what each metadata URL answered and how to fix it).
        """
        if self._issuer is None:
            return
        try:
            await self._locate(rediscover=True)
        except DiscoveryFailed as exc:
            raise ConfigurationError(str(exc)) from None

    async def _locate(self, *, rediscover: bool) -> str:
        """The JWKS URL: the configured one, or the discovered one (looked up again when
        ``rediscover``, or kept when that fails)."""
        if self._issuer is None:
            return self._url
        if self._discovered is None or rediscover:
            try:
                self._discovered = await discover_jwks_uri(self._issuer, self._http())
            except DiscoveryFailed:
                if self._discovered is None:
                    raise
                logger.warning("keeping the JWKS URL %s: its issuer's metadata is unavailable",
                               self._discovered)  # fmt: skip
        return self._discovered

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=_FETCH_TIMEOUT_S, follow_redirects=False)
        return self._client

    async def _fetch(self, url: str) -> dict[str | None, SigningKey]:
        answer = await fetch_json(
            self._http(), url, max_bytes=_MAX_JWKS_BYTES, timeout_s=_FETCH_TIMEOUT_S * 2
        )
        if answer.status != 200:
            raise FetchFailed(f"HTTP {answer.status}")
        data: Any = answer.data
        if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
            raise ValueError("not a JWK set (no keys list)")
        keys: dict[str | None, SigningKey] = {}
        for item in data["keys"]:
            if not isinstance(item, dict) or item.get("use", "sig") != "sig":
                continue
            if item.get("kty") not in ("RSA", "EC", "OKP"):  # never a shared secret ("oct")
                continue
            try:
                key = PyJWK(item)
            except PyJWKError as exc:  # an unsupported or broken key: skip it, keep the rest
                logger.info("skipping a JWKS key (%s): %s", item.get("kid"), exc)
                continue
            alg = item.get("alg")
            keys[item.get("kid")] = SigningKey(
                kty=item["kty"], alg=alg if isinstance(alg, str) else None, jwk=key
            )
        if not keys:
            raise ValueError("the JWK set holds no usable signing key")
        return keys

    async def aclose(self) -> None:
        """Close the HTTP client when it is ours."""
        if self._own_client and self._client is not None:
            await self._client.aclose()
            self._client = None
