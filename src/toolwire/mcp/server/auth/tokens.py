"""`TokenStore`: bearer tokens made by ``toolwire token create``, kept hashed in the kv store.

A token is ``tw_<id>_<secret>``: a public id (12 hex characters, what ``list`` and ``revoke``
show) and a 256-bit random secret. The store keeps ``token:<id>`` → a JSON record with the
name, the grant, the expiry and SHA-256 of the whole token, never the token itself; verifying
looks the id up and compares hashes in constant time (`hmac.compare_digest`).

Why SHA-256 and not a slow hash: slow hashes (bcrypt, scrypt, Argon2) exist to make guessing
low-entropy *passwords* from a stolen hash expensive. These secrets are 256 random bits, so a
stolen record cannot be reversed by guessing whatever the hash costs, while a slow hash would
add milliseconds of CPU to every request and make each bad request an easy way to load the
server. The records live in the configured store (SQLite, Redis, PostgreSQL), so every
replica serving from the same store accepts the same tokens, and a revocation reaches all of
them (within `AuthSettings.token_cache_s`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolwire.errors import ConfigurationError
from toolwire.mcp.server.auth.grants import Grant

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.storage.seam import KeyValueStore
    from toolwire.stores import KeyValueBackend

__all__ = ["TOKEN_ISSUER", "TOKEN_PREFIX", "IssuedToken", "TokenRecord", "TokenStore", "token_hash"]

TOKEN_PREFIX = "tw_"
TOKEN_ISSUER = "toolwire"
"""The ``iss`` a bearer token's principal carries (OAuth principals carry their issuer's)."""
logger = logging.getLogger("toolwire.mcp.server.auth")
_STORE_TOOL = "toolwire.auth"  # not a valid tool name: no tool's private scope can reach it
_KEY = "token:"
_TOKEN = re.compile(r"tw_([0-9a-f]{12})_[A-Za-z0-9_-]{43}")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
_CACHE_SIZE = 1024


def token_hash(token: str) -> str:
    """SHA-256 of the whole token, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, kw_only=True, slots=True)
class TokenRecord:
    """One stored token, without its secret.

    Attributes:
        id: The public id (``tw_<id>_...``).
        name: A label unique among live tokens (``ci``, ``alice-laptop``).
        grant: The tools it may list and call.
        created_at: Unix time it was made.
        expires_at: Unix time it stops working (``None``: until revoked).
    """

    id: str
    name: str
    grant: Grant
    created_at: float
    expires_at: float | None = None

    def expired(self, now: float) -> bool:
        """Whether it has stopped working at ``now``."""
        return self.expires_at is not None and now >= self.expires_at


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A new token: the secret (shown once) and its record."""

    token: str
    record: TokenRecord


class TokenStore:
    """Create, list, revoke and verify bearer tokens in a key-value backend.

    Args:
        backend: The configured store's backend (shared with the registry's tools, in a
            namespace no tool can reach).
        cache_s: How long a verified token is trusted without reading the store again.
    """

    def __init__(self, backend: KeyValueBackend, *, cache_s: float = 0.0) -> None:
        self._store: KeyValueStore = backend.scoped(_STORE_TOOL, f"tool:{_STORE_TOOL}")
        self._cache_s = cache_s
        self._cache: OrderedDict[str, tuple[float, TokenRecord]] = OrderedDict()

    async def create(
        self, name: str, grant: Grant, *, expires_at: float | None = None
    ) -> IssuedToken:
        """A new token named ``name`` opening ``grant``.

        Raises:
            ConfigurationError: the name is not a short label, a live token has it already,
                the grant opens nothing, or ``expires_at`` is in the past.
        """
        if not _NAME.match(name):
            raise ConfigurationError(
                f"token name {name!r}: use 1-64 letters, digits, '_', '.', '@' or '-'"
            )
        if grant.empty:
            raise ConfigurationError(
                "a token must open something: give --toolsets, --tools, or --all"
            )
        now = time.time()
        if expires_at is not None and expires_at <= now:
            raise ConfigurationError("the token would already have expired")
        if any(record.name == name for record in await self.list()):
            raise ConfigurationError(
                f"a token named {name!r} exists; revoke it first or choose another name"
            )
        token_id = secrets.token_hex(6)
        token = f"{TOKEN_PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
        record = TokenRecord(
            id=token_id, name=name, grant=grant, created_at=now, expires_at=expires_at
        )
        ttl = None if expires_at is None else max(expires_at - now, 1.0)
        await self._store.set(_KEY + token_id, _dump(record, token_hash(token)), ttl)
        return IssuedToken(token=token, record=record)

    async def list(self) -> list[TokenRecord]:
        """Every live token, oldest first."""
        records = []
        now = time.time()
        for key in await self._store.list(_KEY):
            raw = await self._store.get(key)
            if raw is not None:
                record = _load(raw)[0]
                if not record.expired(now):
                    records.append(record)
        return sorted(records, key=lambda r: r.created_at)

    async def revoke(self, id_or_name: str) -> TokenRecord | None:
        """Delete the token with this id (or name); the record removed, or ``None``. This
        store's verification cache is emptied either way."""
        self._cache.clear()
        for record in await self.list():
            if id_or_name in (record.id, record.name):
                await self._store.delete(_KEY + record.id)
                return record
        return None

    async def verify(self, token: str) -> TokenRecord | None:
        """The record of a live token, or ``None`` (malformed, unknown, revoked, expired)."""
        match = _TOKEN.fullmatch(token)
        if match is None:
            return None
        digest = token_hash(token)
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now and not cached[1].expired(time.time()):
            return cached[1]
        raw = await self._store.get(_KEY + match.group(1))
        if raw is None:
            return None
        try:
            record, stored = _load(raw)
        except (KeyError, TypeError, ValueError):
            logger.warning("token record %s is unreadable; the token is refused", match.group(1))
            return None
        if not hmac.compare_digest(stored, digest) or record.expired(time.time()):
            return None
        if self._cache_s > 0:
            self._cache[digest] = (now + self._cache_s, record)
            while len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        return record


def _dump(record: TokenRecord, digest: str) -> str:
    return json.dumps(
        {
            "id": record.id,
            "name": record.name,
            "sha256": digest,
            "toolsets": sorted(record.grant.toolsets),
            "tools": sorted(record.grant.tools),
            "all": record.grant.everything,
            "created_at": record.created_at,
            "expires_at": record.expires_at,
        }
    )


def _load(raw: str) -> tuple[TokenRecord, str]:
    data: dict[str, Any] = json.loads(raw)
    grant = Grant(
        toolsets=frozenset(data["toolsets"]),
        tools=frozenset(data["tools"]),
        everything=bool(data["all"]),
    )
    record = TokenRecord(
        id=data["id"],
        name=data["name"],
        grant=grant,
        created_at=float(data["created_at"]),
        expires_at=data["expires_at"],
    )
    return record, str(data["sha256"])
