"""`RedisKeyValueBackend`: namespaces shared by every process that reaches one Redis server.

Expiry is native (``SET ... PX``). A Redis key is built as
``<key_prefix>:<len(tool)>:<tool>:<len(scope_id)>:<scope_id>:<key>``, with an empty ``tool``
(``<key_prefix>:0::...``) for a partition shared by every tool: the lengths make the encoding
unambiguous, so no tool name, scope id or key (whatever separators it holds) can land in
another namespace. `list` walks ``SCAN MATCH`` with the namespace and prefix escaped for Redis's
glob syntax, so ``*``, ``?``, ``[``, ``]`` and ``\\`` match literally.

``redis://host:6379/0?prefix=team-a`` puts every key under ``team-a:`` instead of the default
``toolwire:kv:``, so several clusters (or teams) can share one Redis database without ever
reading each other's keys.

Connections come from a pool that waits: an operation that finds all ``max_connections`` busy
waits for one to come back, up to ``pool_timeout_s``, so a burst of concurrent operations queues
instead of failing with redis-py's "Too many connections".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from toolwire.errors import ConfigurationError, StoreError
from toolwire.stores._base import KeyValueBackend, Namespace
from toolwire.stores._loops import on_asyncio, require_asyncio
from toolwire.stores._ttls import milliseconds
from toolwire.stores._url_settings import UrlSettings

if TYPE_CHECKING:
    import redis.asyncio

__all__ = [
    "DEFAULT_KEY_PREFIX",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_POOL_TIMEOUT_S",
    "RedisKeyValueBackend",
    "escape_glob",
]

DEFAULT_MAX_CONNECTIONS = 50
"""Connections one backend opens at most (``max_connections``)."""
DEFAULT_POOL_TIMEOUT_S = 10.0
"""How long an operation waits for a free connection (``pool_timeout_s``)."""

DEFAULT_KEY_PREFIX = "toolwire:kv"
"""What every Redis key starts with unless ``key_prefix`` or ``?prefix=`` says otherwise."""

_GLOB_SPECIALS = frozenset("\\*?[]")
# Creates an absent key with the default TTL; an existing key keeps its own expiry.
_INCREMENT_WITH_TTL = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
return redis.call('INCRBY', KEYS[1], ARGV[1])
"""

# ARGV: mode ("absent" or "equal"), expected, value, PX ("" for no expiry).
_COMPARE_AND_SET = """
local current = redis.call('GET', KEYS[1])
if ARGV[1] == 'absent' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
if ARGV[4] == '' then
  redis.call('SET', KEYS[1], ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
end
return 1
"""


def escape_glob(text: str) -> str:
    """``text`` with Redis glob specials (``\\ * ? [ ]``) backslash-escaped, to match literally."""
    return "".join("\\" + char if char in _GLOB_SPECIALS else char for char in text)


def _key_prefix(given: object, from_url: str | None) -> str:
    """The key prefix: the keyword, else ``?prefix=``, else `DEFAULT_KEY_PREFIX`.

    Raises:
        ConfigurationError: it is empty, or the keyword is not a string.
    """
    if given is None:
        if from_url is None:
            return DEFAULT_KEY_PREFIX
        if not from_url:
            raise ConfigurationError(
                "?prefix= in the Redis URL is empty; give a name (redis://host:6379/0?prefix=team-a)"
                " or leave the parameter out for the default 'toolwire:kv'"
            )
        return from_url
    if not isinstance(given, str) or not given:
        raise ConfigurationError(f"key_prefix={given!r} must be a non-empty string")
    return given


def _unreachable(error: Exception) -> StoreError:
    return StoreError(f"cannot reach Redis ({error}); check the URL and that the server is running")


class RedisKeyValueBackend(KeyValueBackend):
    """Every namespace in one Redis database, under ``key_prefix``.

    Connects lazily, on the first operation. An unreachable server raises `StoreError`, and so
    does an operation that waits longer than ``pool_timeout_s`` for a free connection. redis-py
    is an asyncio library: on trio every operation raises `StoreError` saying so.

    Args:
        url: A ``redis://`` or ``rediss://`` URL (database index as the path: ``/0``). The
            query parameters ``prefix``, ``max_connections`` and ``pool_timeout`` (seconds)
            set the options below; redis-py reads the others.
        key_prefix: Prepended to every Redis key (``<key_prefix>:...``); lets several stores
            or clusters share a database. Default ``toolwire:kv``; wins over ``?prefix=``.
        connect_timeout_s: How long to wait for a connection.
        max_connections: Connections the backend opens at most (default 50); more concurrent
            operations wait for one to come back. Wins over ``?max_connections=``.
        pool_timeout_s: How long an operation waits for a free connection before it fails
            (default 10 s). Wins over ``?pool_timeout=``.
        isolate_tools: Split ``session`` and ``personality`` scopes per tool too (by default
            the tools of a session or personality share them, as spec 04 says).

    Raises:
        ConfigurationError: the ``redis`` extra is missing, ``url`` is malformed, a pool
            setting is not a positive number (a whole one for ``max_connections``) or
            ``isolate_tools`` is not a bool.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        key_prefix: str | None = None,
        connect_timeout_s: float = 5.0,
        max_connections: int | None = None,
        pool_timeout_s: float | None = None,
        isolate_tools: bool = False,
    ) -> None:
        super().__init__(isolate_tools=isolate_tools)
        try:
            import redis.asyncio
        except ImportError:
            raise ConfigurationError(
                "RedisKeyValueBackend needs redis-py: pip install 'toolwire[redis]'"
            ) from None
        settings = UrlSettings(url, ("prefix", "max_connections", "pool_timeout"))
        self._max_connections = settings.count(
            "max_connections",
            max_connections,
            query="max_connections",
            default=DEFAULT_MAX_CONNECTIONS,
        )
        self._pool_timeout_s = settings.seconds(
            "pool_timeout_s", pool_timeout_s, query="pool_timeout", default=DEFAULT_POOL_TIMEOUT_S
        )
        try:
            pool = redis.asyncio.BlockingConnectionPool.from_url(
                settings.url,
                decode_responses=True,
                socket_connect_timeout=connect_timeout_s,
                max_connections=self._max_connections,
                timeout=self._pool_timeout_s,
            )
        except ValueError as error:
            raise ConfigurationError(
                f"bad Redis URL: {error}; expected redis://host:port/db"
            ) from None
        self._client: redis.asyncio.Redis = redis.asyncio.Redis.from_pool(pool)
        self._key_prefix = _key_prefix(key_prefix, settings.text("prefix"))
        self._increment_with_ttl = self._client.register_script(_INCREMENT_WITH_TTL)
        self._compare_and_set = self._client.register_script(_COMPARE_AND_SET)

    def _repr_arguments(self) -> list[str]:
        return [f"key_prefix={self._key_prefix!r}"]

    @property
    def key_prefix(self) -> str:
        """What every Redis key of this backend starts with (before ``:``)."""
        return self._key_prefix

    @property
    def max_connections(self) -> int:
        """Connections the backend opens at most; further operations wait for one."""
        return self._max_connections

    @property
    def pool_timeout_s(self) -> float:
        """How long an operation waits for a free connection before raising `StoreError`."""
        return self._pool_timeout_s

    def _namespace_prefix(self, namespace: Namespace) -> str:
        tool, scope = namespace.tool, namespace.scope_id
        return f"{self._key_prefix}:{len(tool)}:{tool}:{len(scope)}:{scope}:"

    @contextmanager
    def _errors(self) -> Iterator[None]:
        require_asyncio("RedisKeyValueBackend", "redis-py")
        import redis.exceptions

        try:
            yield
        except redis.exceptions.ConnectionError as error:
            if isinstance(error.__cause__, TimeoutError):  # the pool's wait, not the network
                raise StoreError(
                    f"no Redis connection became free within {self._pool_timeout_s:g} s: all "
                    f"max_connections={self._max_connections} are busy; raise max_connections "
                    "or pool_timeout_s (?max_connections=, ?pool_timeout= in the URL), or "
                    "check that Redis answers (a slow or unreachable server keeps every "
                    "connection busy)"
                ) from error
            raise _unreachable(error) from error
        except redis.exceptions.TimeoutError as error:
            raise _unreachable(error) from error
        except redis.exceptions.ResponseError as error:
            if "not an integer" in str(error) or "overflow" in str(error):
                raise StoreError(
                    "increment: the stored value is not an integer, or the result would "
                    f"overflow a signed 64-bit integer (Redis: {error})"
                ) from error
            raise StoreError(f"Redis refused the command: {error}") from error

    async def get_value(self, namespace: Namespace, key: str) -> str | None:
        with self._errors():
            value = await self._client.get(self._namespace_prefix(namespace) + key)
        return value.decode() if isinstance(value, bytes) else value

    async def set_value(
        self, namespace: Namespace, key: str, value: str, ttl_seconds: float | None
    ) -> None:
        px = None if ttl_seconds is None else milliseconds(ttl_seconds)
        with self._errors():
            await self._client.set(self._namespace_prefix(namespace) + key, value, px=px)

    async def delete_value(self, namespace: Namespace, key: str) -> None:
        with self._errors():
            await self._client.delete(self._namespace_prefix(namespace) + key)

    async def list_keys(self, namespace: Namespace, prefix: str) -> list[str]:
        start = self._namespace_prefix(namespace)
        pattern = escape_glob(start + prefix) + "*"
        found: set[str] = set()
        with self._errors():
            async for redis_key in self._client.scan_iter(match=pattern, count=1000):
                found.add(redis_key[len(start) :])
        return sorted(found)

    async def increment_value(
        self, namespace: Namespace, key: str, by: int, ttl_seconds: float | None
    ) -> int:
        redis_key = self._namespace_prefix(namespace) + key
        result: Any
        with self._errors():
            if ttl_seconds is None:
                result = await self._client.incrby(redis_key, by)
            else:
                result = await self._increment_with_ttl(
                    keys=[redis_key], args=[by, milliseconds(ttl_seconds)]
                )
        return int(result)

    async def compare_and_set_value(
        self,
        namespace: Namespace,
        key: str,
        expected: str | None,
        value: str,
        ttl_seconds: float | None,
    ) -> bool:
        px = "" if ttl_seconds is None else str(milliseconds(ttl_seconds))
        mode = "absent" if expected is None else "equal"
        with self._errors():
            done = await self._compare_and_set(
                keys=[self._namespace_prefix(namespace) + key],
                args=[mode, expected or "", value, px],
            )
        return int(done) == 1

    async def purge_expired(self) -> int:
        """Redis expires keys itself; nothing to do (on trio: `StoreError`, like the rest)."""
        with self._errors():
            return 0

    async def delete_all(self) -> int:
        """Delete every key under ``key_prefix`` (all namespaces); how many were removed."""
        removed = 0
        with self._errors():
            pattern = escape_glob(self._key_prefix + ":") + "*"
            async for redis_key in self._client.scan_iter(match=pattern, count=1000):
                removed += int(await self._client.delete(redis_key))
        return removed

    async def aclose(self) -> None:
        """Close the pool's connections; on trio there are none, since nothing could run."""
        if on_asyncio():
            await self._client.aclose()
