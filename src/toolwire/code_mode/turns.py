"""The turn's taint: untrusted output read earlier in a turn taints the turn's later programs.

A program starts untainted only when nothing untrusted reached the turn before it: a program
that read untrusted output marks its turn (principal, session, ``ctx.current_turn``) in the
store, and so does a direct call to an ``output_is_untrusted`` tool once `TurnTaint.watch` has
put its after-hook on the registry. A later program of the same turn starts tainted, so its
sink calls meet the flow policy from its first line. A host that never advances
``current_turn`` keeps the whole session one turn: more approvals, never fewer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from toolwire.context import ToolContext
from toolwire.execution.hooks import AfterCall, HookRegistry
from toolwire.registry import ToolRegistry
from toolwire.results import ToolResult
from toolwire.seams import KeyValueStore

__all__ = ["TurnTaint", "turn_key"]

_TTL_S = 24 * 3600.0


def turn_key(ctx: ToolContext) -> str:
    """The store key of ``ctx``'s turn."""
    owner = ctx.principal.scoped(ctx.session_id)
    digest = hashlib.sha256(f"{owner}\0{ctx.current_turn}".encode("utf-8", "surrogatepass"))
    return f"turn:{digest.hexdigest()}"


class TurnTaint:
    """Which turns have read untrusted output, in the code-mode store.

    Args:
        store: The store (the one paused programs live in).
    """

    def __init__(self, store: KeyValueStore) -> None:
        self._store = store

    async def source(self, ctx: ToolContext) -> str | None:
        """The tool whose untrusted output reached ``ctx``'s turn first, or ``None``."""
        return await self._store.get(turn_key(ctx))

    async def mark(self, ctx: ToolContext, tool_name: str) -> None:
        """Note that ``tool_name``'s untrusted output reached ``ctx``'s turn."""
        key = turn_key(ctx)
        if await self._store.get(key) is None:
            await self._store.set(key, tool_name, ttl_seconds=_TTL_S)

    def watch(self, registry: ToolRegistry, hooks: HookRegistry, skip: str) -> Callable[[], None]:
        """Taint the turn whenever a call's tool is ``output_is_untrusted`` (``skip``, the
        ``run_code`` tool, marks the turn itself when its program read untrusted output);
        returns the hook's remover."""

        async def after(call: AfterCall) -> ToolResult | None:
            tool = registry.get(call.tool_name)
            if tool is not None and tool.output_is_untrusted and call.tool_name != skip:
                await self.mark(call.ctx, call.tool_name)
            return None

        return hooks.after_tool_call(after, name="code-mode-turn-taint")
