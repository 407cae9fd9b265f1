"""`SessionReadRecords`: which MCP session a request belongs to, and that session's STALE_WRITE
read records, in this process or on the replicas' shared store.

A handshake-era request belongs to ``mcp-<Mcp-Session-Id>`` (a session the SDK binds to the
credential that opened it). A 2026-07-28 request has no session: it belongs to its principal's
stateless session, ``<server id>~<principal id>`` (`toolwire.principals.Principal.scoped`), so
two credentials never share one; a request nobody authenticated belongs to the server's id
itself. The server's id is a random ``mcp-<12 hex>`` per process — or, with replicas
(`toolwire.replicas.ReplicaState`), ``mcp-<cluster>``, the same on every replica, so what a
stateless client read through one replica is checked when it writes through another (and its
result handles and tasks are found from any replica). With ``stateless="shared"``
(``[serve] stateless_sessions = "shared"``) every principal shares the server's id: only for
deployments whose clients are meant to share their state.

Read records live in a `toolwire.replicas._read_records.ReadRecordBook`: `LocalReadRecords`
alone, `StoredReadRecords` with replicas.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from toolwire.errors import ConfigurationError
from toolwire.mcp.revision import is_handshake
from toolwire.mcp.server.auth._principals import request_principal
from toolwire.principals import Principal
from toolwire.replicas._read_records import LocalReadRecords, ReadRecordBook, StoredReadRecords

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from toolwire.capabilities.seams import ReadRecord
    from toolwire.replicas._state import ReplicaState
    from toolwire.tools import Tool

__all__ = ["STATELESS_SESSIONS", "SessionReadRecords", "StatelessSessions", "reaches_files"]

StatelessSessions: TypeAlias = Literal["per_principal", "shared"]
"""Whose 2026-07-28 requests share a session: each principal's own (the default), or all."""
STATELESS_SESSIONS: tuple[StatelessSessions, ...] = ("per_principal", "shared")


def reaches_files(tool: Tool | None) -> bool:
    """Whether ``tool`` can read or write files (only those use read records)."""
    return tool is not None and tool.capabilities.fs_reach is not None


class SessionReadRecords:
    """The session of a request, and where its read records are kept.

    Args:
        replicas: The replicas' shared state; ``None``: one server, records in this process.
        stateless: Whose 2026-07-28 requests share a session (see the module docstring).

    Raises:
        ConfigurationError: ``stateless`` is neither ``per_principal`` nor ``shared``.
    """

    def __init__(
        self,
        replicas: ReplicaState | None = None,
        *,
        stateless: StatelessSessions = "per_principal",
    ) -> None:
        if stateless not in STATELESS_SESSIONS:
            raise ConfigurationError(
                f"stateless sessions must be 'per_principal' or 'shared', got {stateless!r}"
            )
        self.stateless: StatelessSessions = stateless
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
        """``mcp-<Mcp-Session-Id>`` for a handshake-era request, else the stateless session
        of the request's principal (`stateless_session`)."""
        request = ctx.request
        headers = getattr(request, "headers", None)
        if headers is not None:
            value = headers.get("mcp-session-id")
            if value and is_handshake(headers.get("mcp-protocol-version")):
                return f"mcp-{value}"
        # A 2026-07-28 request has no session (the SDK checks no Mcp-Session-Id it carries):
        # it is its principal's, whatever id it names.
        return self.stateless_session(request_principal(request))

    def session_of_header(self, session_header: str | None, principal: Principal) -> str:
        """The session id for an ``Mcp-Session-Id`` header value (``None``: the stateless
        session of ``principal``)."""
        return f"mcp-{session_header}" if session_header else self.stateless_session(principal)

    def stateless_session(self, principal: Principal) -> str:
        """The session of ``principal``'s 2026-07-28 requests: `process_id` scoped to the
        principal (itself for `toolwire.principals.LOCAL`, or for everyone when shared)."""
        if self.stateless == "shared":
            return self.process_id
        return principal.scoped(self.process_id)

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
