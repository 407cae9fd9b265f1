"""`create_session_archive`: a session archive from a store URL."""

from __future__ import annotations

from urllib.parse import urlsplit

from toolwire.capabilities.kinds.archive._base import SessionArchive
from toolwire.errors import ConfigurationError
from toolwire.stores._urls import sqlite_path

__all__ = ["archive_url_for", "create_session_archive"]


def create_session_archive(url: str) -> SessionArchive:
    """The archive ``url`` names: ``sqlite:///relative/state.db``, ``sqlite:////abs/state.db``
    (``sqlite:///:memory:``) or ``postgresql://user@host:port/db``, read as `create_kv_backend`
    reads them, so one URL puts both in the same file or database.

    Raises:
        ConfigurationError: another scheme, or a SQLite URL without a path.
    """
    if not isinstance(url, str) or "://" not in url:
        raise ConfigurationError(
            f"archive URL {url!r} has no scheme; use sqlite:/// or postgresql://"
        )
    scheme = urlsplit(url).scheme.lower()
    if scheme == "sqlite":
        from toolwire.capabilities.kinds.archive._sqlite import SqliteSessionArchive

        return SqliteSessionArchive(sqlite_path(url, "archive URL", "state.db"))
    if scheme in ("postgres", "postgresql"):
        from toolwire.capabilities.kinds.archive._postgres import PostgresSessionArchive

        return PostgresSessionArchive(url)
    raise ConfigurationError(
        f"archive URL {url!r}: the session archive runs on sqlite:/// or postgresql:// "
        "(Redis has no full-text search); pass archive_url= to pick one"
    )


def archive_url_for(kv_url: str | None) -> str | None:
    """The archive URL that goes with a key-value store URL: the same SQLite file or PostgreSQL
    database; ``None`` for the other stores (memory, Redis)."""
    if kv_url is None:
        return None
    scheme = urlsplit(kv_url).scheme.lower()
    return kv_url if scheme in ("sqlite", "postgres", "postgresql") else None
