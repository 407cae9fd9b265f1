"""`discover_jwks_uri`: where an issuer publishes its signing keys, read from its metadata.

When ``[auth.oauth]`` names only the issuer, its metadata document says where the JWKS is:
first the OAuth 2.0 Authorization Server Metadata (RFC 8414), then OpenID Connect Discovery.
For an issuer ``https://auth.example.com/tenant`` the documents tried are, in order:

1. ``https://auth.example.com/.well-known/oauth-authorization-server/tenant`` (RFC 8414 §3.1)
2. ``https://auth.example.com/tenant/.well-known/openid-configuration`` (OpenID Discovery §4)
3. ``https://auth.example.com/.well-known/openid-configuration/tenant`` (RFC 8414 §5, for an
   issuer with a path)

A document counts only when its ``issuer`` is the configured issuer exactly (RFC 8414 §3.3: a
document about another issuer, from a misconfigured or hostile server, must not decide which
keys are trusted) and its ``jwks_uri`` is ``https://`` (``http://`` only on loopback, as for a
configured ``jwks_url``). Redirects are not followed.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx

from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth._fetch import Fetched, FetchFailed, fetch_json
from toolwire.mcp.server.auth.settings import check_url

__all__ = ["DiscoveryFailed", "discover_jwks_uri", "metadata_urls"]

_MAX_METADATA_BYTES = 1_000_000
_TIMEOUT_S = 10.0


class DiscoveryFailed(Exception):
    """No metadata document of the issuer named a usable ``jwks_uri``; the message lists what
    each URL answered and how to fix it."""

    def __init__(self, issuer: str, attempts: list[str]) -> None:
        super().__init__(
            f"cannot find the signing keys of issuer {issuer}: "
            + "; ".join(attempts)
            + ". Check [auth.oauth] issuer (the exact `iss` of the tokens, whose server "
            "publishes /.well-known/oauth-authorization-server or "
            "/.well-known/openid-configuration), or set [auth.oauth] jwks_url"
        )
        self.issuer = issuer
        self.attempts = tuple(attempts)


def metadata_urls(issuer: str) -> tuple[str, ...]:
    """The metadata documents of ``issuer``, in the order they are tried (see the module
    doc)."""
    parts = urlsplit(issuer)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    urls = [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]
    if path:
        urls.append(f"{origin}/.well-known/openid-configuration{path}")
    return tuple(urls)


async def discover_jwks_uri(issuer: str, client: httpx.AsyncClient) -> str:
    """The ``jwks_uri`` of ``issuer``'s first usable metadata document.

    Raises:
        DiscoveryFailed: none was usable (unreachable, not 200, not JSON, another issuer, no
            or a plain-http ``jwks_uri``).
    """
    attempts: list[str] = []
    for url in metadata_urls(issuer):
        try:
            answer = await fetch_json(
                client, url, max_bytes=_MAX_METADATA_BYTES, timeout_s=_TIMEOUT_S
            )
        except FetchFailed as exc:
            attempts.append(f"{url}: {exc}")
            continue
        problem, jwks_uri = _read(answer, issuer)
        if jwks_uri is not None:
            return jwks_uri
        attempts.append(f"{url}: {problem}")
    raise DiscoveryFailed(issuer, attempts)


def _read(answer: Fetched, issuer: str) -> tuple[str, str | None]:
    """``("", jwks_uri)`` from a usable document, else ``(problem, None)``."""
    if answer.status != 200:
        return f"HTTP {answer.status}", None
    data: Any = answer.data
    if not isinstance(data, dict):
        return "not a JSON object", None
    if data.get("issuer") != issuer:
        return f"its issuer is {str(data.get('issuer'))[:200]!r}, not {issuer!r}", None
    jwks_uri = data.get("jwks_uri")
    if not isinstance(jwks_uri, str) or not jwks_uri:
        return "no jwks_uri", None
    try:
        return "", check_url(jwks_uri, "its jwks_uri")
    except ConfigurationError as exc:
        return str(exc), None
