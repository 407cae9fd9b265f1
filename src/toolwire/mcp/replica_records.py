"""`SessionReadRecords`: which MCP session a request belongs to, and that session's STALE_WRITE
read records, in this process or on the replicas' shared store.

A handshake-era request belongs to ``mcp-<Mcp-Session-Id>``. A 2026-07-28 request has no
session: it belongs to the server's own id, a random ``mcp-<12 hex>`` per process — or, with
replicas (`toolwire.replicas.ReplicaState`), ``mcp-<cluster>``, the same on every replica, so
what a stateless client read through one replica is checked when it writes through another
(and its result handles and tasks are found from any replica).

Read records live in a `toolwire.replicas.read_records.ReadRecordBook`: `LocalReadRecords`
alone, `StoredReadRecords` with replicas.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from toolwire.replicas.read_records import LocalReadRecords, ReadRecordBook, StoredReadRecords

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from toolwire.replicas.state import ReplicaState
    from toolwire.seams import ReadRecord
    from toolwire.tools import Tool

__all__ = ["SessionReadRecords", "reaches_files"]


def reaches_files(tool: Tool | None) -> bool:
    """Whether ``tool`` can read or write files (only those use read records)."""
    return tool is not None and tool.capabilities.fs_reach is not None


class SessionReadRecords:
    """The session of a request, and where its read records are kept.

    Args:
        replicas: The replicas' shared state; ``None``: one server, records in this process.
    """

    def __init__(self, replicas: ReplicaState | None = None) -> None:
        self._in_process = LocalReadRecords()
        if replicas is None:
            self.process_id = f"mcp-{uuid.uuid4().hex[:12]}"
            self.book: ReadRecordBook = self._in_process
        else:
            self.process_id = f"mcp-{replicas.settings.cluster}"
            stored = StoredReadRecords(replicas.backend)
            stored.in_process = self._in_process
            self.book = stored

    @property
    def read_mtimes(self) -> OrderedDict[str, dict[str, ReadRecord]]:
        """This process's records per session (what `mtimes` hands out), least recently
        used first; assignable, to hand one server's records over to another."""
        return self._in_process.sessions

    @read_mtimes.setter
    def read_mtimes(self, table: OrderedDict[str, dict[str, ReadRecord]]) -> None:
        self._in_process.sessions = table

    def session_id(self, ctx: ServerRequestContext[Any, Any]) -> str:
        """``mcp-<Mcp-Session-Id>`` for a handshake-era request, else `process_id`."""
        headers = getattr(ctx.request, "headers", None)
        if headers is not None:
            value = headers.get("mcp-session-id")
            if value:
                return f"mcp-{value}"
        return self.process_id

    def session_of_header(self, session_header: str | None) -> str:
        """The session id for an ``Mcp-Session-Id`` header value (``None``: stateless)."""
        return f"mcp-{session_header}" if session_header else self.process_id

    def mtimes(self, session_id: str) -> dict[str, ReadRecord]:
        """The session's records in this process (calls that outlive their request)."""
        return self.book.local(session_id)

    @asynccontextmanager
    async def open(
        self, session_id: str, tool: Tool | None
    ) -> AsyncIterator[dict[str, ReadRecord]]:
        """The session's records for one call of ``tool``; kept (on the store, with
        replicas) before the block exits, so before the call's answer is sent."""
        async with self.book.open(session_id, needed=reaches_files(tool)) as records:
            yield records
