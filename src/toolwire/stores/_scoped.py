"""`ScopedKeyValueStore`: the `KeyValueStore` a tool gets, bound to one namespace.

Every argument is validated here, once, for all backends, so the four stores fail the same way; TTLs
are rounded to whole milliseconds here too (`toolwire.stores._ttls`). And every operation is a
checkpoint here: it lets other tasks run and delivers a pending cancellation before it reaches the
backend, even on a store that would answer without yielding (memory, an inline SQLite read), so a
tool polling the store can neither starve the loop nor outlive its timeout.
"""

from __future__ import annotations

import builtins

import anyio.lowlevel

from toolwire.errors import StoreError
from toolwire.stores._namespace import INT64_MAX, INT64_MIN, Namespace, ValueStore
from toolwire.stores._ttls import MAX_TTL_SECONDS, MIN_TTL_SECONDS, check_ttl

__all__ = ["MAX_TTL_SECONDS", "MIN_TTL_SECONDS", "ScopedKeyValueStore"]


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


class ScopedKeyValueStore:
    """A `KeyValueStore` that reaches exactly one `Namespace` of a backend.

    Create it with `KeyValueBackend.scoped`: the namespace is `Namespace.of` the tool and scope
    id under the backend's ``isolate_tools`` option, so two tools asking for one
    ``session:<id>`` share it. Keys and values are strings (empty and any Unicode allowed, NUL
    and lone surrogates refused); invalid arguments raise `StoreError`. TTLs run from 1 ms to
    100 years and are rounded up to whole milliseconds. Every operation is a checkpoint: it
    yields to the event loop (and raises a pending cancellation) before reaching the backend.
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
        self._ttl_default = check_ttl("ttl_seconds_default", ttl_seconds_default)

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
        key = _check_text("key", key)
        await anyio.lowlevel.checkpoint()
        return await self._backend.get_value(self._namespace, key)

    async def set(self, key: str, value: str, ttl_seconds: float | None = None) -> None:
        """Upsert ``key``; ``ttl_seconds`` (>= 1 ms) makes it expire, ``None`` uses the default.

        The TTL is rounded up to whole milliseconds.
        """
        key = _check_text("key", key)
        value = _check_text("value", value)
        ttl = check_ttl("ttl_seconds", ttl_seconds)
        await anyio.lowlevel.checkpoint()
        await self._backend.set_value(
            self._namespace, key, value, self._ttl_default if ttl is None else ttl
        )

    async def delete(self, key: str) -> None:
        """Remove ``key``; a no-op when absent."""
        key = _check_text("key", key)
        await anyio.lowlevel.checkpoint()
        await self._backend.delete_value(self._namespace, key)

    async def list(self, prefix: str = "") -> builtins.list[str]:
        """Every live key starting with ``prefix`` (taken literally: no wildcards), sorted."""
        prefix = _check_text("prefix", prefix)
        await anyio.lowlevel.checkpoint()
        return await self._backend.list_keys(self._namespace, prefix)

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
        await anyio.lowlevel.checkpoint()
        return await self._backend.increment_value(self._namespace, key, by, self._ttl_default)

    async def compare_and_set(
        self, key: str, expected: str | None, value: str, ttl_seconds: float | None = None
    ) -> bool:
        """Write ``value`` only if ``key`` holds exactly ``expected`` (``None``: absent or
        expired); whether it was written. Atomic across processes sharing the store.

        ``ttl_seconds`` works as in `set`: ``None`` uses the default TTL.
        """
        key = _check_text("key", key)
        if expected is not None:
            expected = _check_text("expected", expected)
        value = _check_text("value", value)
        ttl = check_ttl("ttl_seconds", ttl_seconds)
        await anyio.lowlevel.checkpoint()
        return await self._backend.compare_and_set_value(
            self._namespace, key, expected, value, self._ttl_default if ttl is None else ttl
        )

    def __repr__(self) -> str:
        """Names the partition: ``tool=`` only when it belongs to one tool."""
        ns = self._namespace
        owner = "" if ns.shared else f"tool={ns.tool!r}, "
        return f"ScopedKeyValueStore({owner}scope_id={ns.scope_id!r})"
