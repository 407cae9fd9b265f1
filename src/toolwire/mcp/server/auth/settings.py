"""The ``[auth]`` table of ``toolwire.toml``, importable without the MCP SDK.

```toml
[auth]
tokens = true          # accept bearer tokens made by `toolwire token create`
token_cache_s = 5      # a revoked token is refused within this long

[auth.oauth]           # OAuth 2.1 resource server: JWTs from one issuer
issuer = "https://auth.example.com"
jwks_url = "https://auth.example.com/.well-known/jwks.json"  # default: from the issuer's metadata
audience = "https://mcp.example.com/mcp"   # or a list: a token needs one of them
resource = "https://mcp.example.com/mcp"   # this server's public URL (default: audience)
algorithms = ["RS256", "ES256"]
leeway_s = 30
jwks_cache_s = 600

[auth.oauth.scopes]    # scope -> the toolsets it opens ("*": every tool)
"tools:files" = ["file"]
"tools:admin" = ["*"]
```

Every key can also come from the environment, which wins over the file: ``TOOLWIRE_AUTH_<KEY>`` and
``TOOLWIRE_AUTH_OAUTH_<KEY>`` (`toolwire.mcp.server.auth._env`).
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from toolwire.errors import ConfigurationError

__all__ = [
    "ALL_TOOLS",
    "ASYMMETRIC_ALGORITHMS",
    "AuthSettings",
    "OAuthSettings",
    "auth_settings_from_table",
    "check_url",
    "is_loopback_host",
]

ASYMMETRIC_ALGORITHMS = (
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
)  # fmt: skip
"""The JWS algorithms a resource server may accept: public-key ones only (``none`` and the
HMAC family would let anyone holding the public key, or nobody at all, sign a token)."""
ALL_TOOLS = "*"
"""A scope mapped to this opens every tool."""
_DEFAULT_ALGORITHMS = ("RS256", "ES256")

KeyError_ = Callable[[tuple[str, ...], str], ConfigurationError]
"""Builds the error for a bad key (``config.Located.error``: it points at the line)."""


def is_loopback_host(host: str) -> bool:
    """Whether binding ``host`` is reachable only from this machine (``localhost``, 127/8,
    ``::1``); an empty host, ``0.0.0.0``, ``::`` and every other name count as reachable."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_url(url: str, what: str) -> str:
    """``url`` when it is https, or http to a loopback host (a test's local JWKS).

    Raises:
        ConfigurationError: any other URL (``what`` names where it came from).
    """
    parts = urlsplit(url)
    if parts.scheme == "https" or (
        parts.scheme == "http" and is_loopback_host(parts.hostname or "")
    ):
        return url
    raise ConfigurationError(
        f"{what} must be an https:// URL (http:// only on 127.0.0.1 or localhost), got {url!r}"
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class OAuthSettings:
    """OAuth 2.1 resource-server mode: which JWTs are accepted.

    Attributes:
        issuer: The ``iss`` every token must carry, exactly.
        jwks_url: Where the issuer publishes its signing keys (JWKS); empty: discovered from
            the issuer's metadata (RFC 8414 ``/.well-known/oauth-authorization-server``, else
            OpenID ``/.well-known/openid-configuration``), so the issuer must then be an
            ``https://`` URL.
        audience: The ``aud`` a token must carry (one of its values); several accepted
            audiences as a tuple (a token needs one of them).
        resource: This server's public ``/mcp`` URL (RFC 9728 metadata, ``WWW-Authenticate``);
            the (first URL) audience when not set.
        scopes: Scope → the toolsets it opens (``"*"``: every tool).
        algorithms: Accepted JWS algorithms (public-key ones only).
        leeway_s: Clock skew allowed on ``exp``, ``nbf`` and ``iat``.
        jwks_cache_s: Keys are fetched again after this long (and at once for an unknown
            ``kid``, at most every ``jwks_refetch_s``).
        jwks_refetch_s: The least time between two fetches caused by unknown key ids.
    """

    issuer: str
    jwks_url: str = ""
    audience: str | tuple[str, ...]
    resource: str = ""
    scopes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    algorithms: tuple[str, ...] = _DEFAULT_ALGORITHMS
    leeway_s: float = 30.0
    jwks_cache_s: float = 600.0
    jwks_refetch_s: float = 10.0

    def __post_init__(self) -> None:
        if not isinstance(self.issuer, str) or not self.issuer:
            raise ConfigurationError("[auth.oauth] issuer must be a non-empty string")
        audiences = (self.audience,) if isinstance(self.audience, str) else tuple(self.audience)
        if not audiences or not all(isinstance(a, str) and a for a in audiences):
            raise ConfigurationError(
                "[auth.oauth] audience must be a non-empty string (or a list of them)"
            )
        object.__setattr__(self, "audience", audiences[0] if len(audiences) == 1 else audiences)
        if self.jwks_url:
            check_url(self.jwks_url, "[auth.oauth] jwks_url")
        else:
            check_url(
                self.issuer,
                "[auth.oauth] issuer (without jwks_url the keys are found through the "
                "issuer's metadata, so it must be a URL; or set jwks_url)",
            )
        if not self.resource:
            urls = [a for a in audiences if a.startswith(("https://", "http://"))]
            if not urls:
                raise ConfigurationError(
                    "[auth.oauth] resource: set it to this server's public URL "
                    "(https://host/mcp); the audience is not a URL to use instead"
                )
            object.__setattr__(self, "resource", urls[0])
        bad = [a for a in self.algorithms if a not in ASYMMETRIC_ALGORITHMS]
        if bad or not self.algorithms:
            raise ConfigurationError(
                f"[auth.oauth] algorithms: {bad or 'none'} refused; use public-key algorithms "
                f"from {list(ASYMMETRIC_ALGORITHMS)}"
            )
        if not self.scopes:
            raise ConfigurationError(
                "[auth.oauth] scopes: map at least one scope to the toolsets it opens, e.g. "
                '"tools:files" = ["file"] (or ["*"] for every tool)'
            )
        if not 0 <= self.leeway_s <= 300:
            raise ConfigurationError("[auth.oauth] leeway_s must be between 0 and 300 seconds")
        for what in ("jwks_cache_s", "jwks_refetch_s"):
            value = getattr(self, what)
            if not 0 <= value < math.inf:
                raise ConfigurationError(f"[auth.oauth] {what} must be >= 0 seconds")
        object.__setattr__(self, "algorithms", tuple(self.algorithms))
        object.__setattr__(self, "scopes", {k: tuple(v) for k, v in self.scopes.items()})

    @property
    def audiences(self) -> tuple[str, ...]:
        """Every accepted audience."""
        return (self.audience,) if isinstance(self.audience, str) else self.audience


@dataclass(frozen=True, kw_only=True, slots=True)
class AuthSettings:
    """How HTTP clients prove who they are (stdio needs nothing: its client started us).

    Attributes:
        tokens: Accept bearer tokens from ``toolwire token create`` (stored hashed in the
            configured store).
        token_cache_s: How long a verified credential is trusted without asking the store
            again (so a revocation takes up to this long to bite) or, for a JWT, without
            checking its signature again (never past its ``exp``); ``0`` checks every time.
        oauth: OAuth 2.1 resource-server mode, when set.
    """

    tokens: bool = False
    token_cache_s: float = 5.0
    oauth: OAuthSettings | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.token_cache_s <= 3600:
            raise ConfigurationError("[auth] token_cache_s must be between 0 and 3600 seconds")

    @property
    def enabled(self) -> bool:
        """Whether any way of authenticating is on."""
        return self.tokens or self.oauth is not None


_AUTH_KEYS = {"tokens", "token_cache_s", "oauth"}
_OAUTH_KEYS = {
    "issuer", "jwks_url", "audience", "resource", "scopes", "algorithms", "leeway_s",
    "jwks_cache_s", "jwks_refetch_s",
}  # fmt: skip


def auth_settings_from_table(table: Any, error: KeyError_) -> AuthSettings:
    """`AuthSettings` from the ``[auth]`` table; ``error(key, problem)`` builds the error for a
    bad key (with its line, when the caller knows the file)."""
    if not isinstance(table, dict):
        raise error(("auth",), "expected a table")
    _check_keys(table, _AUTH_KEYS, ("auth",), error)
    options: dict[str, Any] = {}
    if "tokens" in table:
        if not isinstance(table["tokens"], bool):
            raise error(("auth", "tokens"), "expected true or false")
        options["tokens"] = table["tokens"]
    if "token_cache_s" in table:
        options["token_cache_s"] = _number(table["token_cache_s"], ("auth", "token_cache_s"), error)
    if "oauth" in table:
        options["oauth"] = _oauth(table["oauth"], error)
    try:
        return AuthSettings(**options)
    except ConfigurationError as exc:
        raise error(("auth",), str(exc)) from None


def _oauth(table: Any, error: KeyError_) -> OAuthSettings:
    key = ("auth", "oauth")
    if not isinstance(table, dict):
        raise error(key, "expected a table")
    _check_keys(table, _OAUTH_KEYS, key, error)
    options: dict[str, Any] = {}
    for item, value in table.items():
        where = (*key, item)
        if item in ("leeway_s", "jwks_cache_s", "jwks_refetch_s"):
            options[item] = _number(value, where, error)
        elif item == "algorithms" or (item == "audience" and isinstance(value, list)):
            options[item] = _strings(value, where, error)
        elif item == "scopes":
            if not isinstance(value, dict):
                raise error(where, 'expected a table: scope = ["toolset", ...]')
            options[item] = {s: _strings(v, (*where, s), error) for s, v in value.items()}
        elif not isinstance(value, str):
            raise error(where, "expected a string")
        else:
            options[item] = value
    missing = sorted({"issuer", "audience"} - set(options))
    if missing:
        raise error(key, f"missing {', '.join(missing)}")
    try:
        return OAuthSettings(**options)
    except ConfigurationError as exc:
        raise error(key, str(exc)) from None


def _check_keys(
    table: Mapping[str, Any], allowed: set[str], prefix: tuple[str, ...], error: KeyError_
) -> None:
    for item in table:
        if item not in allowed:
            raise error((*prefix, item), f"unknown key; expected one of {sorted(allowed)}")


def _number(value: Any, where: tuple[str, ...], error: KeyError_) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise error(where, f"expected a number >= 0, got {value!r}")
    return float(value)


def _strings(value: Any, where: tuple[str, ...], error: KeyError_) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise error(where, "expected a list of strings")
    return tuple(value)
