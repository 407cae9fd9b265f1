"""The flow rule: once untrusted output reached a session, a ``sink`` call needs a human.

A tool declares ``sink=True`` when it sends data out or changes something outside; a tool
with ``output_is_untrusted`` returns text an attacker may have written (a page, a mail, an
issue). An injected instruction in such text can make the model call a sink with the user's
data, so once an untrusted result has been produced for a session, every later call to a sink
of that session is, per ``Approvals.after_untrusted``:

* ``"approve"`` (the default): answered ``approval_required`` like a ``requires_approval``
  call; the approval (`PendingApproval`) names the tool and the arguments, what would leave;
* ``"refuse"``: answered ``not_available`` (``reason="untrusted_flow"``), naming the source;
* ``"allow"``: run, and nothing is recorded.

**The taint is the session's**: the principal and ``ctx.session_id``, from the first untrusted
result until the host calls `clear_untrusted` (when the untrusted text has left the model's
context: a new conversation, a compaction that dropped it) or a day passes. A tool layer cannot
see the user's messages, and hosts advance ``ctx.current_turn`` per model request, so a
per-turn taint would forget a page read one request before the sink call: the session is
the smallest span that holds the attack. It lives in the registry's key-value store
(namespace `FLOW_SCOPE`), so every process serving the session sees it. A registry without a
store cannot record it: its sink calls are answered ``not_available``
(``reason="flow_store_missing"``) unless the policy is ``"allow"``.

Costs: a tool that is neither ``sink`` nor ``output_is_untrusted`` pays two attribute checks;
an untrusted result costs one store read per call (a write the first time in a session); a
sink call one read. Calls a ``run_code`` program makes are judged by the program's own policy
(`judged_by_program`), and ``run_code`` itself (`RecordsOwnTaint`) leaves the recording to
the calls its program makes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from toolwire.capabilities.seams import KeyValueStore
from toolwire.context import ToolContext
from toolwire.execution.approvals import AfterUntrusted, SpentApproval, take_approval
from toolwire.execution.settings import PipelineSettings
from toolwire.results import Err, ErrorCode
from toolwire.tools import Tool

if TYPE_CHECKING:
    from toolwire.capabilities.resolver import CapabilityBackends

__all__ = [
    "FLOW_SCOPE",
    "FLOW_TOOL",
    "TAINT_TTL_S",
    "RecordsOwnTaint",
    "clear_untrusted",
    "flow_policy",
    "judged_by_program",
    "record_untrusted",
    "sink_rule",
    "taint_key",
    "untrusted_source",
]

FLOW_TOOL = "toolwire-flow"
"""The tool name the taint store is asked for (``kv_store_factory(FLOW_TOOL, FLOW_SCOPE)``)."""
FLOW_SCOPE = f"tool:{FLOW_TOOL}"
"""Its scope: private to the flow rule, shared by every process on the same store."""
TAINT_TTL_S = 24 * 3600.0
"""How long a session stays tainted without `clear_untrusted` (a day)."""

_JUDGED: ContextVar[tuple[ToolContext, frozenset[str]] | None] = ContextVar(
    "toolwire_flow_judged", default=None
)


class RecordsOwnTaint:
    """Marker base of an object whose bound ``execute`` is a tool that records its own taint
    (``run_code``: its result is untrusted only when its program read untrusted output, and
    those inner calls are recorded as they run)."""


def flow_policy(settings: PipelineSettings) -> AfterUntrusted:
    """The registry's policy: ``Approvals.after_untrusted``, ``"approve"`` without one."""
    approvals = settings.approvals
    return approvals.after_untrusted if approvals is not None else "approve"


def taint_key(ctx: ToolContext) -> str:
    """The store key of ``ctx``'s session taint (the principal and the session id)."""
    owner = ctx.principal.scoped(ctx.session_id)
    return f"session:{hashlib.sha256(owner.encode('utf-8', 'surrogatepass')).hexdigest()}"


def _store(backends: CapabilityBackends | None) -> KeyValueStore | None:
    if backends is None or backends.kv_store_factory is None:
        return None
    return backends.kv_store_factory(FLOW_TOOL, FLOW_SCOPE)


async def untrusted_source(settings: PipelineSettings, ctx: ToolContext) -> str | None:
    """The tool whose untrusted output first reached ``ctx``'s session, or ``None``."""
    store = _store(settings.backends)
    return None if store is None else await store.get(taint_key(ctx))


async def record_untrusted(settings: PipelineSettings, ctx: ToolContext, tool: Tool) -> None:
    """Note that ``tool``'s untrusted output reached ``ctx``'s session (no-op with ``allow``,
    for a tool that records its own taint, or without a store)."""
    if flow_policy(settings) == "allow" or isinstance(
        getattr(tool.execute, "__self__", None), RecordsOwnTaint
    ):
        return
    store = _store(settings.backends)
    if store is None:
        return
    key = taint_key(ctx)
    if await store.get(key) is None:
        await store.set(key, tool.name, ttl_seconds=TAINT_TTL_S)


async def clear_untrusted(backends: CapabilityBackends | None, ctx: ToolContext) -> None:
    """Forget that untrusted output reached ``ctx``'s session: call it (with
    ``registry.backends``) once that output has left the model's context."""
    store = _store(backends)
    if store is not None:
        await store.delete(taint_key(ctx))


@contextmanager
def judged_by_program(ctx: ToolContext, call_ids: frozenset[str]) -> Iterator[None]:
    """Within this block, the calls ``call_ids`` of a batch run with ``ctx`` (this very object:
    a call some tool of the batch makes in turn runs with another) were already judged by a
    program's own flow policy (`toolwire.code_mode._flow`): the pipeline does not judge them
    again."""
    token = _JUDGED.set((ctx, call_ids))
    try:
        yield
    finally:
        _JUDGED.reset(token)


async def sink_rule(
    settings: PipelineSettings,
    tool: Tool,
    call_id: str,
    args: Mapping[str, Any],
    ctx: ToolContext,
    tokens: tuple[str, ...],
) -> Err | SpentApproval | None:
    """The rule for a call to a ``sink`` tool: ``None`` (run it), the approval it used up,
    or the answer (``approval_required``, ``untrusted_flow``, ``flow_store_missing``)."""
    policy = flow_policy(settings)
    judged = _JUDGED.get()
    if policy == "allow" or (judged is not None and judged[0] is ctx and call_id in judged[1]):
        return None
    store = _store(settings.backends)
    if store is None:
        return Err(
            f"Tool {tool.name} sends data out, and without a key-value store toolwire cannot "
            "tell whether untrusted output reached this session (give the registry capability "
            "backends with a kv_store_factory, or Approvals(after_untrusted='allow'))",
            ErrorCode.NOT_AVAILABLE,
            reason="flow_store_missing",
        )
    source = await store.get(taint_key(ctx))
    if source is None:
        return None
    if policy == "refuse":
        return Err(
            f"Tool {tool.name} sends data out, and untrusted output (from {source}) reached "
            "this session; the flow policy refuses the call",
            ErrorCode.NOT_AVAILABLE,
            reason="untrusted_flow",
        )
    factory = settings.backends.kv_store_factory if settings.backends is not None else None
    taken = await take_approval(settings.approvals, factory, tool, args, ctx, tokens)
    if isinstance(taken, Err) and taken.reason == "approval_required":
        shown = json.dumps(dict(args), ensure_ascii=False, default=str)
        return Err(
            f"{taken.error}; untrusted output (from {source}) reached this session, and "
            f"{tool.name} sends data out: check what would leave, arguments {shown}",
            ErrorCode.NOT_AVAILABLE,
            reason="approval_required",
        )
    return taken
