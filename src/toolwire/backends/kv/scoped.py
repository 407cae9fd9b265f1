"""`ScopedKeyValueStore`: the `KeyValueStore` a tool gets, bound to one namespace.

Every argument is validated here, once, for all backends, so the four stores fail the same way.
"""

from __future__ import annotations

import builtins
import math

from toolwire.backends.kv.namespace import INT64_MAX, INT64_MIN, Namespace, ValueStore
from toolwire.errors import StoreError

__all__ = ["MAX_TTL_SECONDS", "ScopedKeyValueStore"]

MAX_TTL_SECONDS = 100 * 365 * 24 * 3600.0
"""The longest TTL accepted (100 years); omit the TTL for keys that never expire."""


def _check_text(what: str, text: object, *, allow_empty: bool = True) -> str:
    if not isinstance(text, str):
        raise StoreError(
            f"{what} must be a str, got {type(text).__name__}; serialise other data "
            "with json.dumps first"
        )
    if not allow_empty and not text:
        raise StoreError(f"{what} must be a non-empty string")
    if "\x00" in text:
        raise StoreError(f"{what} contains a NUL character; encode binary data (e.g. base64)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise StoreError(
            f"{what} is not valid Unicode text (lone surrogate at index {error.start})"
        ) from None
    return text


def _check_ttl(what: str, ttl: object) -> float | None:
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float):
        raise StoreError(f"{what} must be a number of seconds or None, got {type(ttl).__name__}")
    seconds = float(ttl)
    if math.isnan(seconds) or not 0 < seconds <= MAX_TTL_SECONDS:
        raise StoreError(
            f"{what}={ttl!r} must be a positive number of seconds up to {MAX_TTL_SECONDS:.0f}; "
            "pass None for a key that never expires"
        )
    return seconds


class ScopedKeyValueStore:
    """A `KeyValueStore` that reaches exactly one `Namespace` of a backend.

    Create it with `KeyValueBackend.scoped`: the namespace is `Namespace.of` the tool and scope
    id under the backend's ``isolate_tools`` option, so two tools asking for one
    ``session:<id>`` share it. Keys and values are strings (empty and any Unicode allowed, NUL
    and lone surrogates refused); invalid arguments raise `StoreError`.
    """

    __slots__ = ("_backend", "_namespace", "_ttl_default")

    def __init__(
        self,
        backend: ValueStore,
        *,
        tool: str,
        scope_id: str,
        ttl_seconds_default: float | None = None,
    ) -> None:
        self._backend = backend
        self._namespace = Namespace.of(
            _check_text("tool", tool, allow_empty=False),
            _check_text("scope_id", scope_id, allow_empty=False),
            isolate_tools=backend.isolate_tools,
        )
        self._ttl_default = _check_ttl("ttl_seconds_default", ttl_seconds_default)

    @property
    def namespace(self) -> Namespace:
        """The partition this store reaches; ``namespace.tool`` is ``""`` when it is shared."""
        return self._namespace

    @property
    def ttl_seconds_default(self) -> float | None:
        """The expiry applied when `set` gets no ``ttl_seconds``."""
        return self._ttl_default

    async def get(self, key: str) -> str | None:
        """The value, or ``None`` when the key is absent or expired."""
        return await self._backend.get_value(self._namespace, _check_text("key", key))

    async def set(self, key: str, value: str, ttl_seconds: float | None = None) -> None:
        """Upsert ``key``; ``ttl_seconds`` (> 0) makes it expire, ``None`` uses the default."""
        key = _check_text("key", key)
        value = _check_text("value", value)
        ttl = _check_ttl("ttl_seconds", ttl_seconds)
        await self._backend.set_value(
            self._namespace, key, value, self._ttl_default if ttl is None else ttl
        )

    async def delete(self, key: str) -> None:
        """Remove ``key``; a no-op when absent."""
        await self._backend.delete_value(self._namespace, _check_text("key", key))

    async def list(self, prefix: str = "") -> builtins.list[str]:
        """Every live key starting with ``prefix`` (taken literally: no wildcards), sorted."""
        return await self._backend.list_keys(self._namespace, _check_text("prefix", prefix))

    async def increment(self, key: str, by: int = 1) -> int:
        """Atomically add ``by`` to the integer stored at ``key`` (0 when absent); the new value.

        A key created by `increment` gets the default TTL; an existing key keeps its expiry.

        Raises:
            StoreError: the stored value is not a decimal integer, ``by`` is not an int, or the
                result leaves the signed 64-bit range.
        """
        key = _check_text("key", key)
        if isinstance(by, bool) or not isinstance(by, int):
            raise StoreError(f"increment(by=...) must be an int, got {type(by).__name__}")
        if not INT64_MIN <= by <= INT64_MAX:
            raise StoreError("increment(by=...) must fit in a signed 64-bit integer")
        return await self._backend.increment_value(self._namespace, key, by, self._ttl_default)

    def __repr__(self) -> str:
        """Names the partition: ``tool=`` only when it belongs to one tool."""
        ns = self._namespace
        owner = "" if ns.shared else f"tool={ns.tool!r}, "
        return f"ScopedKeyValueStore({owner}scope_id={ns.scope_id!r})"
