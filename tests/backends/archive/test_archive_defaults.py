"""create_backends puts the session archive beside the key-value store, and the default tools
reach both."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toolwire.capabilities.defaults import create_backends
from toolwire.capabilities.kinds.archive import SessionArchive, SqliteSessionArchive
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.registry import ToolRegistry
from toolwire.results import Ok
from toolwire.toolbox import default_tools

pytestmark = pytest.mark.anyio


async def test_the_archive_shares_the_state_file_with_the_store(tmp_path: Path) -> None:
    backends = create_backends(working_dir=tmp_path, sandbox="off")
    archive = backends.kind_backends["archive"]
    assert isinstance(archive, SqliteSessionArchive)
    async with backends, ToolRegistry(backends=backends) as registry:
        registry.register_all(default_tools())
        await archive.record("old", "user", "the deploy key rotates monthly", personality="ops")
        ctx = ToolContext(session_id="now", personality_id="ops", working_dir=str(tmp_path))
        await registry.execute("memory_write", {"key": "k", "content": "note"}, ctx)
        found = await registry.execute("session_search", {"query": "rotate"}, ctx)
        await archive.aclose()
    assert isinstance(found.result, Ok), found.result
    assert "old · user" in found.result.value
    with sqlite3.connect(tmp_path / ".toolwire" / "state.db") as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert {"toolwire_kv", "toolwire_archive", "toolwire_archive_fts"} <= tables


def test_a_memory_store_gets_no_archive_unless_asked(tmp_path: Path) -> None:
    plain = create_backends(working_dir=tmp_path, kv_url="memory://", sandbox="off")
    assert "archive" not in plain.kind_backends
    asked = create_backends(
        working_dir=tmp_path, kv_url="memory://", archive_url="sqlite:///:memory:", sandbox="off"
    )
    assert isinstance(asked.kind_backends["archive"], SessionArchive)
    off = create_backends(working_dir=tmp_path, archive_url=None, sandbox="off")
    assert "archive" not in off.kind_backends


def test_an_archive_on_redis_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no full-text search"):
        create_backends(working_dir=tmp_path, archive_url="redis://127.0.0.1:6379/0")


async def test_closing_the_served_registry_closes_the_archive(tmp_path: Path) -> None:
    from toolwire.capabilities.seams import ArchiveScope
    from toolwire.config import ToolwireConfig
    from toolwire.errors import StoreError
    from toolwire.wiring import create_registry

    config = ToolwireConfig(base_dir=str(tmp_path), sandbox="off")  # type: ignore[arg-type]
    registry = create_registry(config)
    assert registry.backends is not None
    archive = registry.backends.kind_backends["archive"]
    assert isinstance(archive, SessionArchive)
    await archive.record("s", "user", "hello there", personality="p")
    await registry.aclose()
    await registry.backends.aclose()
    with pytest.raises(StoreError, match="closed"):
        await archive.search("hello", ArchiveScope(personality="p"))
