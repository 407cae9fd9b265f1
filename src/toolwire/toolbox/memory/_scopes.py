"""Which shared scope a call's memory and board live in, the store of that scope, and the
answer when that store fails.

Spec 01: a memory tool uses ``memory_scope_id`` as is when the host set one; otherwise it
derives the scope from the context. Here:

| context | memory scope | board scope |
| --- | --- | --- |
| ``memory_scope_id`` set | that id | (as below) |
| ``memory_scope="global"`` | ``global`` | (as below) |
| ``memory_scope="per-personality"`` | ``personality:<id>`` | (as below) |
| ``team_id`` set | ``team:<team_id>`` | ``team:<team_id>`` |
| a personality | ``personality:<id>`` | ``personality:<id>`` |
| neither | ``global`` | ``personality:<session id>`` |

Like spec 04's personality scope, a missing personality falls back to the session id where the
scope must not be shared by everyone (a board); memory without one is global, as in the system
we port.

A derived scope belongs to the call's principal as well (`toolwire.principals.Principal.scoped`:
``personality:<id>~p-…``, ``global~p-…``): two credentials served by one server never read each
other's notes or cards. What the host configures is shared as configured: its own
``memory_scope_id``, ``memory_scope="global"`` and a team. For `toolwire.principals.LOCAL`
(a library call, stdio, a server without authentication) nothing changes.
"""

from __future__ import annotations

from toolwire.capabilities.kinds.shared_storage.kind import SHARED_STORAGE
from toolwire.capabilities.seams import AtomicKeyValueStore
from toolwire.context import ToolContext
from toolwire.errors import CapabilityError, StoreError
from toolwire.results import Err, ErrorCode
from toolwire.toolbox._common import missing_seam, refused

__all__ = ["board_scope_id", "memory_scope_id", "shared_store", "store_failed"]


def memory_scope_id(ctx: ToolContext) -> str:
    """The scope id of the call's long-term memory (see the module docstring)."""
    if ctx.memory_scope_id:
        return ctx.memory_scope_id
    if ctx.memory_scope == "global":
        return "global"
    if ctx.memory_scope == "per-personality":
        return ctx.principal.scoped(f"personality:{ctx.personality_id or ctx.session_id}")
    if ctx.team_id:
        return f"team:{ctx.team_id}"
    if ctx.personality_id:
        return ctx.principal.scoped(f"personality:{ctx.personality_id}")
    return ctx.principal.scoped("global")


def board_scope_id(ctx: ToolContext) -> str:
    """The scope id of the call's kanban board: its team's, else its personality's (the
    principal's own)."""
    if ctx.team_id:
        return f"team:{ctx.team_id}"
    return ctx.principal.scoped(f"personality:{ctx.personality_id or ctx.session_id}")


def shared_store(ctx: ToolContext, tool_name: str, scope_id: str) -> AtomicKeyValueStore | Err:
    """The compare-and-set store of ``scope_id``, or the ``not_available`` answer."""
    stores = ctx.seam(SHARED_STORAGE)
    if stores is None:
        return missing_seam(tool_name, "shared storage")
    try:
        store = stores.store(scope_id)
    except CapabilityError as exc:
        return refused(exc)
    if not isinstance(store, AtomicKeyValueStore):
        return Err(
            f"{tool_name}: the key-value store cannot compare and set, so concurrent writers "
            "could lose each other's changes; use a built-in store (create_kv_backend)",
            ErrorCode.NOT_AVAILABLE,
            reason="capability_not_configured",
        )
    return store


def store_failed(tool_name: str, exc: StoreError) -> Err:
    """The answer of ``tool_name`` when the shared store raised ``exc``."""
    return Err(f"{tool_name}: the store failed: {exc}", cause="StoreError")
