"""The session archive behind the ``archive`` kind: SQLite FTS5 and PostgreSQL full-text search.

The host records each message (``await archive.record(session, role, text, at,
personality=..., user=...)``); tools declaring ``archive()`` search it within their scope
(`ScopedSessionArchive`). Both implementations pass one contract suite.

```python
from toolwire.backends.archive import SqliteSessionArchive

async with SqliteSessionArchive(".toolwire/state.db") as archive:
    await archive.record("s1", "user", "deploy the cli on friday", personality="ops")
```
"""

from __future__ import annotations

from toolwire.backends.archive.base import MAX_HITS, SessionArchive
from toolwire.backends.archive.postgres import PostgresSessionArchive
from toolwire.backends.archive.query import SearchQuery, parse_query
from toolwire.backends.archive.scoped import ScopedSessionArchive
from toolwire.backends.archive.sqlite import SqliteSessionArchive
from toolwire.backends.archive.urls import archive_url_for, create_session_archive

__all__ = [
    "MAX_HITS",
    "PostgresSessionArchive",
    "ScopedSessionArchive",
    "SearchQuery",
    "SessionArchive",
    "SqliteSessionArchive",
    "archive_url_for",
    "create_session_archive",
    "parse_query",
]
