"""The client of a call the fast path runs (`toolwire.mcp.server.peer.current_peer`), or the SDK's.

A tool reaches its client through `current_peer`: log messages, sampling, elicitation, roots.
The fast path answers with one JSON body and has no channel back to the client while a call
runs, so it serves a call only when the SDK path's peer could not reach the client either, and
then binds a peer that behaves as that one does:

- **2026-07-28** (no session): the request itself says what the client can do. A request that
  declares sampling, elicitation or roots, or opts into log messages
  (``io.modelcontextprotocol/logLevel``), goes to the SDK. Any other request's peer cannot
  reach the client on either path: `McpPeer.log` sends nothing, `McpPeer.sample`,
  `McpPeer.elicit` and `McpPeer.list_roots` raise `PeerUnavailableError`, and
  `McpPeer.capabilities` are the ones the request declared. The fast path serves it with that
  same peer, for every tool.
- **Handshake era** (a session): log messages flow by default and the session's capabilities were
  declared at ``initialize``, so a tool that talks to its client needs the SDK path. A tool whose
  code names ``current_peer`` or ``McpPeer``, or whose module imports them or
  `toolwire.mcp.server.peer` (looked at once per tool: its function, the functions it wraps, their
  nested functions), goes to the SDK on every call. A tool that reaches its peer only through a
  helper elsewhere is learned when it first uses its peer on the fast path (any method or
  capability): every later call of it goes to the SDK, and that first call sees a peer with no
  channel back (nothing logged; questions raise `PeerUnavailableError`, which `McpPeer` documents
  for a connection without one).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as mt
from mcp_types import CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY
from pydantic import ValidationError

from toolwire.mcp.server.peer import _PEER, LogLevels, McpPeer

if TYPE_CHECKING:
    from toolwire.mcp.server.fast_http._envelope import LeanRequest
    from toolwire.tools import Tool

__all__ = ["LeanBinding", "PeerRoute"]

_REACHING_CAPABILITIES = ("sampling", "elicitation", "roots")


class PeerRoute:
    """Decides which calls the fast path may run, and binds their peer (see the module doc)."""

    def __init__(self) -> None:
        self._talkers: set[str] = set()
        self._looked_at: dict[str, tuple[Tool, bool]] = {}
        self._levels = LogLevels()  # no logging/setLevel reaches a peer bound here

    @property
    def talkers(self) -> frozenset[str]:
        """The tools seen using their peer on a handshake-era session (served by the SDK)."""
        return frozenset(self._talkers)

    def admit(self, tool: Tool, lean: LeanRequest) -> LeanBinding | None:
        """The peer binding for a call of ``tool``, or ``None`` when the SDK must serve it
        (its client could be reached through a peer)."""
        tool_name = tool.name
        if lean.session is None:
            meta = lean.meta or {}
            raw = meta.get(CLIENT_CAPABILITIES_META_KEY)
            if LOG_LEVEL_META_KEY in meta or not isinstance(raw, dict):
                return None
            if any(raw.get(name) is not None for name in _REACHING_CAPABILITIES):
                return None
            return LeanBinding(lean, tool_name, self._levels, raw, None)
        if self.talks_to_client(tool):
            return None
        return LeanBinding(lean, tool_name, self._levels, None, self._talkers.add)

    def talks_to_client(self, tool: Tool) -> bool:
        """Whether ``tool`` is known to use its peer (see the module doc); remembered."""
        if tool.name in self._talkers:
            return True
        seen = self._looked_at.get(tool.name)
        if seen is None or seen[0] is not tool:
            seen = (tool, _names_the_peer(tool.execute))
            self._looked_at[tool.name] = seen
        return seen[1]


_PEER_NAMES = frozenset({"current_peer", "McpPeer", "_PEER"})
_UNWRAP_DEPTH = 4


def _names_the_peer(execute: Callable[..., Any]) -> bool:
    """Whether the code behind ``execute`` names the peer, or its module imports it."""
    peer_module = sys.modules[McpPeer.__module__]  # not imported through the package: no cycle
    peer_objects = (peer_module, peer_module.current_peer, McpPeer)
    for function in _functions(execute, _UNWRAP_DEPTH, set()):
        if any(_PEER_NAMES.intersection(code.co_names) for code in _codes(function.__code__)):
            return True
        module = getattr(function, "__globals__", {})
        if any(value is obj for value in module.values() for obj in peer_objects):
            return True
    return False


def _functions(obj: object, depth: int, seen: set[int]) -> Iterator[types.FunctionType]:
    """The Python functions behind ``obj``: itself, what it wraps, what its closure holds."""
    if depth < 0 or id(obj) in seen:
        return
    seen.add(id(obj))
    inner = [
        getattr(obj, name)
        for name in ("__wrapped__", "__func__", "func", "fn", "__call__")
        if name != "__call__" or not isinstance(obj, types.FunctionType)
        if hasattr(obj, name)
    ]
    if isinstance(obj, types.FunctionType):
        yield obj
        inner += [cell.cell_contents for cell in obj.__closure__ or () if _filled(cell)]
    for item in inner:
        if callable(item):
            yield from _functions(item, depth - 1, seen)


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 (an empty cell raises)
    except ValueError:
        return False
    return True


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and the code of the functions and comprehensions defined in it."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


@dataclass(frozen=True, slots=True)
class LeanBinding:
    """The peer of one call the fast path runs.

    Attributes:
        lean: The request.
        tool_name: The tool called.
        levels: The log levels (none chosen).
        capabilities: The capabilities a 2026-07-28 request declared (``None``: a session's).
        on_use: Called with the tool's name when the tool uses its peer (session calls).
    """

    lean: LeanRequest
    tool_name: str
    levels: LogLevels
    capabilities: dict[str, Any] | None
    on_use: Callable[[str], None] | None

    @contextmanager
    def bound(self) -> Iterator[McpPeer]:
        """Make the peer `current_peer` for the block."""
        used = None if self.on_use is None else _Used(self.on_use, self.tool_name)
        context = _NoChannelContext(
            request_id=self.lean.request_id,
            meta=self.lean.meta,
            protocol_version=self.lean.protocol_version,
            session=_NoChannelSession(self.capabilities, used),
        )
        peer = McpPeer(
            context=context,  # type: ignore[arg-type]  # what McpPeer reads of the SDK's
            session_id=self.lean.session or "",
            levels=self.levels,
        )
        token = _PEER.set(peer)
        try:
            yield peer
        finally:
            _PEER.reset(token)


@dataclass(slots=True)
class _Used:
    """Reports, once, that a call's tool used its peer."""

    report: Callable[[str], None]
    tool_name: str
    reported: bool = False

    def __call__(self) -> None:
        if not self.reported:
            self.reported = True
            self.report(self.tool_name)


@dataclass(frozen=True, slots=True)
class _NoChannelContext:
    """The parts of the SDK's request context `McpPeer` reads."""

    request_id: int | str
    meta: Mapping[str, Any] | None
    protocol_version: str
    session: _NoChannelSession


class _NoChannelSession:
    """A client session with no channel back: what the SDK's single-exchange path gives a
    2026-07-28 request, and what a handshake-era call on the fast path has."""

    __slots__ = ("_raw", "_used")

    def __init__(self, capabilities: dict[str, Any] | None, used: _Used | None) -> None:
        self._raw = capabilities
        self._used = used

    @property
    def client_capabilities(self) -> mt.ClientCapabilities | None:
        """The capabilities the request declared (``None`` on a session's call)."""
        if self._used is not None:
            self._used()
        if self._raw is None:
            return None
        try:
            return mt.ClientCapabilities.model_validate(self._raw)
        except ValidationError:
            return None

    @property
    def can_send_request(self) -> bool:
        """Never: there is no channel back."""
        return False

    async def send_notification(self, *args: Any, **kwargs: Any) -> None:
        """Dropped: nothing can carry it (only a session's call gets here: a 2026-07-28
        request that could receive log messages is served by the SDK)."""
        if self._used is not None:
            self._used()
