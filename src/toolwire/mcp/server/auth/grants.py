"""`Grant`: which tools one credential may list and call, and where a request keeps it.

A bearer token carries the toolsets and tool names it was created with; an OAuth token the toolsets
its scopes map to. The grant rides on the authenticated principal the guard puts in the ASGI scope
(``scope["user"]``, the SDK's `AuthenticatedUser`), so whatever serves the request (the SDK's
handlers through `toolwire.mcp.server.auth.access`, or any other path) reads it with
`request_grant`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire.tools import Tool

__all__ = ["EVERYTHING", "Grant", "request_grant"]


@dataclass(frozen=True, slots=True)
class Grant:
    """The tools a credential opens: every tool of ``toolsets``, each tool in ``tools``, or all.

    Attributes:
        toolsets: Toolset names (``file``, ``web``, ``mcp`` for bridged tools, ...).
        tools: Tool names.
        everything: Every tool, whatever its toolset.
    """

    toolsets: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    everything: bool = False

    @classmethod
    def of(cls, *, toolsets: Iterable[str] = (), tools: Iterable[str] = ()) -> Grant:
        """A grant of ``toolsets`` and ``tools``; ``"*"`` in ``toolsets`` means everything."""
        sets = frozenset(toolsets)
        return cls(toolsets=sets - {"*"}, tools=frozenset(tools), everything="*" in sets)

    def allows(self, tool: Tool) -> bool:
        """Whether ``tool`` may be listed and called."""
        return (
            self.everything
            or tool.name in self.tools
            or (tool.toolset is not None and tool.toolset in self.toolsets)
        )

    def union(self, other: Grant) -> Grant:
        """What either grant opens."""
        return Grant(
            toolsets=self.toolsets | other.toolsets,
            tools=self.tools | other.tools,
            everything=self.everything or other.everything,
        )

    @property
    def empty(self) -> bool:
        """Whether it opens nothing."""
        return not (self.everything or self.toolsets or self.tools)

    def describe(self) -> str:
        """``toolsets file, web; tools read_file`` (or ``every tool``, ``nothing``)."""
        if self.everything:
            return "every tool"
        parts = []
        if self.toolsets:
            parts.append("toolsets " + ", ".join(sorted(self.toolsets)))
        if self.tools:
            parts.append("tools " + ", ".join(sorted(self.tools)))
        return "; ".join(parts) or "nothing"


EVERYTHING = Grant(everything=True)
"""The grant of an unrestricted credential."""


def request_grant(request: Any) -> Grant | None:
    """The grant of the credential behind an HTTP request (a handler's ``ctx.request``, or a
    Starlette ``Request``), or ``None`` when the request was not authenticated by toolwire's
    guard (stdio, in-memory, or a server without authentication): then nothing is restricted.
    """
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return None
    user = scope.get("user")
    token = getattr(user, "access_token", None)
    grant = getattr(token, "grant", None)
    return grant if isinstance(grant, Grant) else None
