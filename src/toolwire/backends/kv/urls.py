"""`create_kv_backend`: a key-value backend from a URL (config files, ``TOOLWIRE_KV_URL``)."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from toolwire.backends.kv.base import KeyValueBackend
from toolwire.errors import ConfigurationError

__all__ = ["create_kv_backend"]

_EXAMPLES = (
    "memory://, sqlite:///relative/kv.db, sqlite:////absolute/kv.db, "
    "redis://host:6379/0, postgresql://user@host:5432/database"
)


def create_kv_backend(url: str) -> KeyValueBackend:
    """The backend a URL names; nothing connects until the first operation.

    | URL | backend |
    | --- | --- |
    | ``memory://`` | `MemoryKeyValueBackend` |
    | ``sqlite:///rel/kv.db``, ``sqlite:////abs/kv.db`` | `SqliteKeyValueBackend` |
    | ``redis://host:6379/0``, ``rediss://...`` | `RedisKeyValueBackend` |
    | ``postgresql://...``, ``postgres://...`` | `PostgresKeyValueBackend` |

    Raises:
        ConfigurationError: the scheme is unknown, the SQLite path is missing, or the driver
            extra (``toolwire[redis]``, ``toolwire[postgres]``) is not installed.
    """
    if not isinstance(url, str) or "://" not in url:
        raise ConfigurationError(f"key-value URL {url!r} has no scheme; use one of: {_EXAMPLES}")
    scheme = urlsplit(url).scheme.lower()
    if scheme == "memory":
        from toolwire.backends.kv.memory import MemoryKeyValueBackend

        return MemoryKeyValueBackend()
    if scheme == "sqlite":
        from toolwire.backends.kv.sqlite import SqliteKeyValueBackend

        rest = url.split("://", 1)[1]
        if not rest.startswith("/") or rest == "/":
            raise ConfigurationError(
                f"SQLite URL {url!r} needs a path: sqlite:///relative/kv.db or "
                "sqlite:////absolute/kv.db"
            )
        return SqliteKeyValueBackend(unquote(rest[1:]))
    if scheme in ("redis", "rediss"):
        from toolwire.backends.kv.redis import RedisKeyValueBackend

        return RedisKeyValueBackend(url)
    if scheme in ("postgresql", "postgres"):
        from toolwire.backends.kv.postgres import PostgresKeyValueBackend

        return PostgresKeyValueBackend(url)
    raise ConfigurationError(
        f"unknown key-value URL scheme {scheme!r} in {url!r}; use one of: {_EXAMPLES}"
    )
