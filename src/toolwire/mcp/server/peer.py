"""The MCP client behind the call a tool is running for: logs, sampling, elicitation, roots.

While ``toolwire serve`` runs a ``tools/call``, `current_peer` returns an `McpPeer` for the
client that sent it; elsewhere (a library call, the CLI) it returns ``None``, so a tool can
use the client when there is one and do without otherwise:

```python
peer = current_peer()
if peer is not None and peer.can_sample:
    answer = await peer.sample("Summarise this diff", max_tokens=200)
```

- `McpPeer.log` sends ``notifications/message`` at or above the level the client chose with
  ``logging/setLevel`` (all levels until it chooses; on 2026-07-28 links, the level the request
  opted into). `serve_logging` installs that ``logging/setLevel`` handler.
- `McpPeer.sample`, `McpPeer.elicit` and `McpPeer.list_roots` ask the client; each raises
  `PeerUnavailableError` when the client declared no such capability, so the tool can answer
  with a clear error instead of hanging.

On a handshake-era link the question goes to the client while the call waits. A 2026-07-28
link has no channel back during a call: the question raises `InputRequiredError` (let it
propagate), the server answers the call ``input_required`` with it, and the client asks and
calls again with the answer, which the re-run tool then gets at once. So such a tool must ask
before it changes anything, and answers last one round: a tool that asks twice asks both
questions together in one round (``asyncio.gather``) or is re-run until it does.

Async tools only: a sync tool runs in a worker thread, which sees the peer but must not await.
"""

from __future__ import annotations

import contextvars
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import mcp_types as mt
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from pydantic import BaseModel

from toolwire.errors import ToolwireError

__all__ = [
    "LOG_LEVELS",
    "InputRequiredError",
    "LogLevels",
    "McpPeer",
    "PeerUnavailableError",
    "bind_peer",
    "current_peer",
    "serve_logging",
]

LOG_LEVELS: tuple[mt.LoggingLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""MCP's log levels (RFC 5424's), least severe first."""
_SESSIONS_KEPT = 1024
_PEER: contextvars.ContextVar[McpPeer | None] = contextvars.ContextVar(
    "toolwire_mcp_peer", default=None
)

R = TypeVar("R", bound=mt.Result)
SessionOf = Callable[[ServerRequestContext[Any, Any]], str]


class PeerUnavailableError(ToolwireError):
    """The client cannot do what was asked (no such capability, or no channel back to it)."""


class InputRequiredError(ToolwireError):
    """A 2026-07-28 call needs the client's input first: the server answers ``input_required``
    and the client calls again with the answer (see the module docstring)."""


class LogLevels:
    """The minimum log level each MCP session chose with ``logging/setLevel``."""

    def __init__(self) -> None:
        self._levels: OrderedDict[str, mt.LoggingLevel] = OrderedDict()

    def set(self, session_id: str, level: mt.LoggingLevel) -> None:
        """Remember ``level`` for ``session_id`` (the newest thousand sessions are kept)."""
        self._levels[session_id] = level
        self._levels.move_to_end(session_id)
        while len(self._levels) > _SESSIONS_KEPT:
            self._levels.popitem(last=False)

    def allows(self, session_id: str, level: mt.LoggingLevel) -> bool:
        """Whether a message at ``level`` reaches ``session_id`` (every level until it chose)."""
        chosen = self._levels.get(session_id)
        return chosen is None or LOG_LEVELS.index(level) >= LOG_LEVELS.index(chosen)


@dataclass(frozen=True, slots=True)
class McpPeer:
    """The client of one ``tools/call``; see the module docstring.

    Attributes:
        context: The SDK's request context of the call.
        session_id: toolwire's id of the client's session.
        levels: The log levels the sessions chose.
        input_responses: 2026-07-28: the client's answers to the questions of the last round.
        input_requests: 2026-07-28: the questions asked during this run with no answer yet.
        asked: The keys of every question asked during this run, in order.
    """

    context: ServerRequestContext[Any, Any]
    session_id: str
    levels: LogLevels
    input_responses: Mapping[str, Any] = field(default_factory=dict)
    input_requests: dict[str, Any] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)

    @property
    def capabilities(self) -> mt.ClientCapabilities | None:
        """What the client declared it can do."""
        return self.context.session.client_capabilities

    @property
    def can_sample(self) -> bool:
        """Whether the client takes ``sampling/createMessage`` requests now."""
        return self._can("sampling")

    @property
    def can_elicit(self) -> bool:
        """Whether the client takes ``elicitation/create`` requests now."""
        return self._can("elicitation")

    @property
    def can_list_roots(self) -> bool:
        """Whether the client takes ``roots/list`` requests now."""
        return self._can("roots")

    def _can(self, capability: str) -> bool:
        declared = self.capabilities
        return declared is not None and getattr(declared, capability, None) is not None

    def input_required(self) -> dict[str, Any] | None:
        """The ``input_required`` result (wire shape) when the run asked a question it had no
        answer for, else ``None``."""
        if not self.input_requests:
            return None
        answer = mt.InputRequiredResult(input_requests=dict(self.input_requests))
        return answer.model_dump(by_alias=True, mode="json", exclude_none=True)

    async def log(self, level: mt.LoggingLevel, data: Any, *, logger: str | None = None) -> None:
        """Send ``notifications/message`` with ``data`` when the client's level allows it."""
        from mcp.server.connection import allowed_log_levels

        if not self.levels.allows(self.session_id, level):
            return
        if level not in allowed_log_levels(self.context.protocol_version, self.context.meta):
            return  # 2026-07-28: the request did not opt into this level
        params = mt.LoggingMessageNotificationParams(level=level, data=data, logger=logger)
        await self.context.session.send_notification(
            mt.LoggingMessageNotification(params=params), related_request_id=self.context.request_id
        )

    async def sample(
        self,
        prompt: str | list[mt.SamplingMessage],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
    ) -> mt.CreateMessageResult:
        """Ask the client's model (``sampling/createMessage``) and return its answer.

        Raises:
            PeerUnavailableError: The client declared no sampling capability.
        """
        self._require("sampling", self.can_sample)
        messages = (
            [mt.SamplingMessage(role="user", content=mt.TextContent(type="text", text=prompt))]
            if isinstance(prompt, str)
            else prompt
        )
        params = mt.CreateMessageRequestParams(
            messages=messages, max_tokens=max_tokens, system_prompt=system_prompt
        )
        request = mt.CreateMessageRequest(params=params)
        return await self._request("sampling", request, mt.CreateMessageResult)

    async def elicit(self, message: str, requested_schema: dict[str, Any]) -> mt.ElicitResult:
        """Ask the user for a form (``elicitation/create``) and return the answer.

        Raises:
            PeerUnavailableError: The client declared no elicitation capability.
        """
        self._require("elicitation", self.can_elicit)
        params = mt.ElicitRequestFormParams(message=message, requested_schema=requested_schema)
        return await self._request("elicitation", mt.ElicitRequest(params=params), mt.ElicitResult)

    async def list_roots(self) -> list[mt.Root]:
        """The client's roots (``roots/list``).

        Raises:
            PeerUnavailableError: The client declared no roots capability.
        """
        self._require("roots", self.can_list_roots)
        result = await self._request("roots", mt.ListRootsRequest(), mt.ListRootsResult)
        return list(result.roots)

    def _require(self, capability: str, available: bool) -> None:
        if not available:
            raise PeerUnavailableError(
                f"the MCP client cannot answer {capability} requests (it declared no "
                f"{capability} capability, or this connection has no channel back to it)"
            )

    async def _request(self, kind: str, request: Any, result_type: type[R]) -> R:
        from mcp.shared.message import ServerMessageMetadata

        session = self.context.session
        if session.can_send_request:  # handshake era: ask while the call waits
            metadata = ServerMessageMetadata(related_request_id=self.context.request_id)
            return await session.send_request(request, result_type, metadata=metadata)
        key = f"toolwire_{kind}_{len(self.asked) + 1}"
        self.asked.append(key)
        answer = self.input_responses.get(key)
        if isinstance(answer, result_type):
            return answer
        if isinstance(answer, BaseModel):
            answer = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
        if answer is not None:
            return result_type.model_validate(answer, by_name=False)
        self.input_requests[key] = request
        raise InputRequiredError(f"the call needs the client's answer to {key}; it is asked")


def current_peer() -> McpPeer | None:
    """The client of the ``tools/call`` running now, or ``None`` outside one."""
    return _PEER.get()


@contextmanager
def bind_peer(
    context: ServerRequestContext[Any, Any],
    session_id: str,
    levels: LogLevels,
    input_responses: Mapping[str, Any] | None = None,
) -> Iterator[McpPeer]:
    """Make the request's client `current_peer` for the block (and tasks started in it)."""
    peer = McpPeer(
        context=context,
        session_id=session_id,
        levels=levels,
        input_responses=dict(input_responses or {}),
    )
    token = _PEER.set(peer)
    try:
        yield peer
    finally:
        _PEER.reset(token)


def serve_logging(server: Server[Any], levels: LogLevels, session_of: SessionOf) -> None:
    """Answer ``logging/setLevel`` (and so declare the logging capability) into ``levels``."""

    async def set_level(
        ctx: ServerRequestContext[Any, Any], params: mt.SetLevelRequestParams
    ) -> mt.EmptyResult:
        levels.set(session_of(ctx), params.level)
        return mt.EmptyResult()

    server.add_request_handler("logging/setLevel", mt.SetLevelRequestParams, set_level)
