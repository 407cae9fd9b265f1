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
`ArchiveScope`), ``base.py`` (`SessionArchive`: record and search), ``sqlite.py`` (FTS5) and
``postgres.py`` (full-text search), ``query.py`` (the model's search text as a safe query),
``stop_words.py`` (the words no archive searches), ``scoped.py`` (`ScopedSessionArchive`) and
``urls.py`` (`create_session_archive` from a store URL).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolwire.lazy import lazy_exports

if TYPE_CHECKING:
    from toolwire.capabilities.kinds.archive.base import MAX_HITS, SessionArchive
    from toolwire.capabilities.kinds.archive.kind import (
        ARCHIVE,
        ArchiveCapability,
        ArchiveHit,
        ArchiveScope,
        ScopedArchive,
        archive,
    )
    from toolwire.capabilities.kinds.archive.postgres import PostgresSessionArchive
    from toolwire.capabilities.kinds.archive.query import SearchQuery, parse_query
    from toolwire.capabilities.kinds.archive.scoped import ScopedSessionArchive
    from toolwire.capabilities.kinds.archive.sqlite import SqliteSessionArchive
    from toolwire.capabilities.kinds.archive.urls import archive_url_for, create_session_archive

_LAZY = {
    "ARCHIVE": "toolwire.capabilities.kinds.archive.kind",
    "ArchiveCapability": "toolwire.capabilities.kinds.archive.kind",
    "ArchiveHit": "toolwire.capabilities.kinds.archive.kind",
    "ArchiveScope": "toolwire.capabilities.kinds.archive.kind",
    "ScopedArchive": "toolwire.capabilities.kinds.archive.kind",
    "archive": "toolwire.capabilities.kinds.archive.kind",
    "MAX_HITS": "toolwire.capabilities.kinds.archive.base",
    "PostgresSessionArchive": "toolwire.capabilities.kinds.archive.postgres",
    "ScopedSessionArchive": "toolwire.capabilities.kinds.archive.scoped",
    "SearchQuery": "toolwire.capabilities.kinds.archive.query",
    "SessionArchive": "toolwire.capabilities.kinds.archive.base",
    "SqliteSessionArchive": "toolwire.capabilities.kinds.archive.sqlite",
    "archive_url_for": "toolwire.capabilities.kinds.archive.urls",
    "create_session_archive": "toolwire.capabilities.kinds.archive.urls",
    "parse_query": "toolwire.capabilities.kinds.archive.query",
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
