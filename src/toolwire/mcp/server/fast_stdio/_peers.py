"""Which tools the lean loop leaves to the SDK because they talk to their client.

A tool reaches its client through `toolwire.mcp.server.peer.current_peer` (log messages, sampling,
elicitation, roots), which only the SDK server binds. The lean loop runs a call only when the tool
cannot be using it:

- while `toolwire.mcp.server.peer` has not been imported, no tool module holds it, so only a tool
  whose own code names it (``current_peer``, ``McpPeer``: an import inside the function) could reach
  it; such a tool's calls go to the SDK;
- once it has been imported (by a tool's module, or by such a call), the MCP SDK is loaded anyway,
  and the HTTP fast path's finer test decides (`toolwire.mcp.server.fast_http.peer.PeerRoute`: the
  names in the tool's code, in what it wraps, in its module's globals).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolwire.mcp.server.fast_http.peer import PeerRoute
    from toolwire.tools import Tool

__all__ = ["PEER_NAMES", "PeerCheck"]

PEER_NAMES = frozenset({"current_peer", "McpPeer", "_PEER"})
"""The names through which code reaches the peer."""
_PEER_MODULE = "toolwire.mcp.server.peer"


class PeerCheck:
    """Remembers, per tool, whether it may talk to its client (see the module doc)."""

    def __init__(self) -> None:
        self._named: dict[str, tuple[Tool, bool]] = {}
        self._route: PeerRoute | None = None

    def talks_to_client(self, tool: Tool) -> bool:
        """Whether a call of ``tool`` must go to the SDK server."""
        if _PEER_MODULE in sys.modules:
            if self._route is None:
                from toolwire.mcp.server.fast_http.peer import PeerRoute

                self._route = PeerRoute()
            return self._route.talks_to_client(tool)
        seen = self._named.get(tool.name)
        if seen is None or seen[0] is not tool:
            seen = (tool, _names_the_peer(tool.execute))
            self._named[tool.name] = seen
        return seen[1]


def _names_the_peer(execute: object) -> bool:
    code = getattr(execute, "__code__", None)
    if not isinstance(code, types.CodeType):
        return True  # not plain Python code: nothing to read, so the SDK serves it
    return any(PEER_NAMES.intersection(inner.co_names) for inner in _codes(code))


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and the code of the functions and comprehensions defined in it."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)
