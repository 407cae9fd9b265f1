"""Resumable streamable HTTP sessions: SSE streams a client can leave and pick up again.

`resumable_transport` gives a session the SDK's transport with

- its own `toolwire.mcp.server.event_store.SessionEventStore`, so every event of its SSE streams is
  kept (bounded) and replayed to a ``GET`` with ``Last-Event-ID``;
- a **priming event** (an event id with empty data, and the ``retry`` the client should wait
  before it reconnects) first on every SSE stream of a session whose client speaks 2025-11-25
  or later, and the ``close_sse_stream`` callback on its requests (a tool may end the stream
  and let the client poll, SEP-1699);
- that decision made by the revision the client asked for when it **opened the session**,
  not only by the ``MCP-Protocol-Version`` header of each request: the SDK looks at the header
  alone, so a client that negotiated 2025-11-25 and labels a request with an older revision
  (the official conformance suite's ``server-sse-polling`` does) would get no priming event,
  and could not resume, though it parses one.

A stream with a priming event is one its client can resume, so closing it does not abort the call
(`toolwire.mcp.server.hangups`); the answer waits in the event store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.server.streamable_http import SSEEvent, StreamableHTTPServerTransport, StreamId

from toolwire.mcp.revision import RESUMABLE_SINCE, is_at_least

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCRequest, RequestId
    from starlette.requests import Request

    from toolwire.mcp.server.event_store import KvEventStore

__all__ = ["RESUMABLE_SINCE", "RETRY_INTERVAL_MS", "ResumableTransport", "resumable_transport"]

"""The first revision whose clients parse priming events (and so can resume a stream)."""
RETRY_INTERVAL_MS = 1000
"""How long a client waits before it reconnects to a closed stream (the SSE ``retry``)."""


class ResumableTransport(StreamableHTTPServerTransport):
    """The SDK's transport, priming streams by the revision the session was opened with (see
    the module docstring); build it with `resumable_transport`."""

    _opened_with: str | None = None

    def _create_session_message(
        self,
        message: JSONRPCRequest,
        request: Request,
        request_id: RequestId,
        protocol_version: str,
    ) -> SessionMessage:
        if message.method == "initialize" and isinstance(message.params, dict):
            asked = message.params.get("protocolVersion")
            self._opened_with = asked if isinstance(asked, str) else None
        return super()._create_session_message(
            message, request, request_id, self._revision(protocol_version)
        )

    async def _mint_priming_event(
        self, stream_id: StreamId, protocol_version: str
    ) -> SSEEvent | None:
        return await super()._mint_priming_event(stream_id, self._revision(protocol_version))

    def _revision(self, labelled: str) -> str:
        """The revision that decides priming: the request's label, or the session's when the
        session was opened with one that resumes and the label is older."""
        opened = self._opened_with
        if (
            opened is not None
            and is_at_least(opened, RESUMABLE_SINCE)
            and not is_at_least(labelled, RESUMABLE_SINCE)
        ):
            return opened
        return labelled


def resumable_transport(
    manager: StreamableHTTPSessionManager,
    admitted: StreamableHTTPServerTransport,
    events: KvEventStore,
) -> ResumableTransport:
    """A `ResumableTransport` for the session ``manager`` just admitted (with the same id and
    settings as ``admitted``, which was never connected and is dropped), keeping its events
    in ``events``."""
    session_id = admitted.mcp_session_id
    assert session_id is not None, "only stateful sessions are resumable"
    return ResumableTransport(
        mcp_session_id=session_id,
        is_json_response_enabled=manager.json_response,
        event_store=events.for_session(session_id),
        security_settings=manager.security_settings,
        retry_interval=manager.retry_interval or RETRY_INTERVAL_MS,
        idle_timeout=manager.session_idle_timeout,
    )
