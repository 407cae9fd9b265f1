"""The session's taint, as programs read and write it.

A program starts untainted only when no untrusted output reached its session before it: any
call's untrusted result marks the session (`toolwire.execution.flow`, for direct calls and a
program's inner calls alike), and a program that read untrusted output marks it too. A later
program of the session starts tainted, so its sink calls meet the flow policy from its first
line, and so do the model's direct sink calls. The host clears the mark with
`toolwire.execution.flow.clear_untrusted` once the untrusted text has left the model's context.
"""

from __future__ import annotations

from toolwire.capabilities.seams import KeyValueStore
from toolwire.context import ToolContext
from toolwire.execution.flow import TAINT_TTL_S, taint_key

__all__ = ["TurnTaint"]


class TurnTaint:
    """Whether untrusted output reached a session, in the flow rule's store.

    Args:
        store: The store (``kv_store_factory(FLOW_TOOL, FLOW_SCOPE)``).
    """

    def __init__(self, store: KeyValueStore) -> None:
        self._store = store

    async def source(self, ctx: ToolContext) -> str | None:
        """The tool whose untrusted output reached ``ctx``'s session first, or ``None``."""
        return await self._store.get(taint_key(ctx))

    async def mark(self, ctx: ToolContext, tool_name: str) -> None:
        """Note that ``tool_name``'s untrusted output reached ``ctx``'s session."""
        key = taint_key(ctx)
        if await self._store.get(key) is None:
            await self._store.set(key, tool_name, ttl_seconds=TAINT_TTL_S)
