"""The session archive behind the ``archive`` kind: SQLite FTS5 and PostgreSQL full-text search.

The host records each message (``await archive.record(session, role, text, at,
personality=..., user=...)``); tools declaring ``archive()`` search it within their scope
(`ScopedSessionArchive`). Both implementations pass one contract suite.

```python
from toolwire.capabilities.kinds.archive import SqliteSessionArchive

async with SqliteSessionArchive(".toolwire/state.db") as archive:
    await archive.record("s1", "user", "deploy the cli on friday", personality="ops")
```

Rooms: ``kind.py`` (declaration and row), ``seam.py`` (`ScopedArchive`, `ArchiveHit`,
`ArchiveScope`), ``_base.py`` (`SessionArchive`: record and search), ``_sqlite.py`` (FTS5) and
``_postgres.py`` (full-text search), ``_query.py`` (the model's search text as a safe query),
``_stop_words.py`` (the words no archive searches), ``_scoped.py`` (`ScopedSessionArchive`) and
``_urls.py`` (`create_session_archive` from a store URL).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.archive._base import MAX_HITS, SessionArchive
    from toolwire.capabilities.kinds.archive._postgres import PostgresSessionArchive
    from toolwire.capabilities.kinds.archive._query import SearchQuery, parse_query
    from toolwire.capabilities.kinds.archive._scoped import ScopedSessionArchive
    from toolwire.capabilities.kinds.archive._sqlite import SqliteSessionArchive
    from toolwire.capabilities.kinds.archive._urls import archive_url_for, create_session_archive
    from toolwire.capabilities.kinds.archive.kind import (
        ARCHIVE,
        ArchiveCapability,
        ArchiveHit,
        ArchiveScope,
        ScopedArchive,
        archive,
    )

_LAZY = {
    "ARCHIVE": "toolwire.capabilities.kinds.archive.kind",
    "ArchiveCapability": "toolwire.capabilities.kinds.archive.kind",
    "ArchiveHit": "toolwire.capabilities.kinds.archive.kind",
    "ArchiveScope": "toolwire.capabilities.kinds.archive.kind",
    "ScopedArchive": "toolwire.capabilities.kinds.archive.kind",
    "archive": "toolwire.capabilities.kinds.archive.kind",
    "MAX_HITS": "toolwire.capabilities.kinds.archive._base",
    "PostgresSessionArchive": "toolwire.capabilities.kinds.archive._postgres",
    "ScopedSessionArchive": "toolwire.capabilities.kinds.archive._scoped",
    "SearchQuery": "toolwire.capabilities.kinds.archive._query",
    "SessionArchive": "toolwire.capabilities.kinds.archive._base",
    "SqliteSessionArchive": "toolwire.capabilities.kinds.archive._sqlite",
    "archive_url_for": "toolwire.capabilities.kinds.archive._urls",
    "create_session_archive": "toolwire.capabilities.kinds.archive._urls",
    "parse_query": "toolwire.capabilities.kinds.archive._query",
}


__all__ = [
    "ARCHIVE",
    "MAX_HITS",
    "ArchiveCapability",
    "ArchiveHit",
    "ArchiveScope",
    "PostgresSessionArchive",
    "ScopedArchive",
    "ScopedSessionArchive",
    "SearchQuery",
    "SessionArchive",
    "SqliteSessionArchive",
    "archive",
    "archive_url_for",
    "create_session_archive",
    "parse_query",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
