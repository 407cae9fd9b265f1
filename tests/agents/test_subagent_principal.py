"""A sub-agent acts for its parent's principal: its calls never fall back to `LOCAL` (whose
processes, handles and memory every unauthenticated caller shares)."""

from __future__ import annotations

from toolwire import Principal, ToolContext
from toolwire.capabilities.kinds.subagent._child import child_context
from toolwire.context import AbortSignal


def test_the_child_context_keeps_the_parents_principal() -> None:
    alice = Principal.of_credential(issuer="toolwire", client="alice", subject="a1")
    parent = ToolContext(session_id="s", personality_id="p1", principal=alice)
    child = child_context(
        parent, depth=1, signal=AbortSignal(), budget_chars=1000, description="look"
    )
    assert child.principal is alice
    assert child.session_id.startswith("s:sub:")
