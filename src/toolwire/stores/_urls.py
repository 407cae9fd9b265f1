"""`create_kv_backend`: a key-value backend from a URL (config files, ``TOOLWIRE_KV_URL``)."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from toolwire.errors import ConfigurationError
from toolwire.stores._base import KeyValueBackend, check_isolate_tools

__all__ = ["create_kv_backend", "sqlite_path"]

_EXAMPLES = (
    "memory://, sqlite:///relative/kv.db, sqlite:////absolute/kv.db, "
    "redis://host:6379/0, postgresql://user@host:5432/database"
)


def create_kv_backend(url: str, *, isolate_tools: bool = False) -> KeyValueBackend:
    """The backend a URL names; nothing connects until the first operation.

    By default the tools of one session (or personality) share its storage, as spec 04 says;
    ``isolate_tools=True`` gives each tool its own partition of every scope.

    | URL | backend |
    | --- | --- |
    | ``memory://`` | `MemoryKeyValueBackend` |
    | ``sqlite:///rel/kv.db``, ``sqlite:////abs/kv.db`` | `SqliteKeyValueBackend` |
    | ``redis://host:6379/0``, ``rediss://...`` | `RedisKeyValueBackend` |
    | ``postgresql://...``, ``postgres://...`` | `PostgresKeyValueBackend` |

    Query parameters tune the networked stores: ``max_connections`` and ``pool_timeout`` on a
    Redis URL, ``max_connections``, ``connect_timeout`` and ``command_timeout`` on a PostgreSQL
    one (seconds; ``redis://cache:6379/0?max_connections=200``). A Redis URL also takes
    ``prefix`` (``redis://cache:6379/0?prefix=team-a``): every key goes under ``team-a:``, so
    several clusters can share one database. The backend reads them and passes the rest of the
    URL to its driver.

    Raises:
        ConfigurationError: the scheme is unknown, the SQLite path is missing, the driver
            extra (``toolwire[redis]``, ``toolwire[postgres]``) is not installed, a query
            parameter above is not a positive number, or ``isolate_tools`` is not a bool.
    """
    isolate_tools = check_isolate_tools(isolate_tools)
    if not isinstance(url, str) or "://" not in url:
        raise ConfigurationError(f"key-value URL {url!r} has no scheme; use one of: {_EXAMPLES}")
    scheme = urlsplit(url).scheme.lower()
    if scheme == "memory":
        from toolwire.stores._memory import MemoryKeyValueBackend

        return MemoryKeyValueBackend(isolate_tools=isolate_tools)
    if scheme == "sqlite":
        from toolwire.stores._sqlite import SqliteKeyValueBackend

        path = sqlite_path(url, "SQLite URL", "kv.db")
        return SqliteKeyValueBackend(path, isolate_tools=isolate_tools)
    if scheme in ("redis", "rediss"):
        from toolwire.stores._redis import RedisKeyValueBackend

        return RedisKeyValueBackend(url, isolate_tools=isolate_tools)
    if scheme in ("postgresql", "postgres"):
        from toolwire.stores._postgres import PostgresKeyValueBackend

        return PostgresKeyValueBackend(url, isolate_tools=isolate_tools)
    raise ConfigurationError(
        f"unknown key-value URL scheme {scheme!r} in {url!r}; use one of: {_EXAMPLES}"
    )


def sqlite_path(url: str, what: str, file: str) -> str:
    """The file path of a ``sqlite://`` ``url``: relative after three slashes, absolute after
    four (``sqlite:///:memory:`` is SQLite's in-memory database).

    Raises:
        ConfigurationError: no path; the message names the URL as ``what`` and shows ``file``
            in its examples.
    """
    rest = url.split("://", 1)[1]
    if not rest.startswith("/") or rest == "/":
        raise ConfigurationError(
            f"{what} {url!r} needs a path: sqlite:///relative/{file} or sqlite:////absolute/{file}"
        )
    return unquote(rest[1:])
