"""The effect journal: a tool with side effects acts at most once per idempotency key.

Every call carries ``ctx.idempotency_key`` (the same for the same session and call id, in any
process). For a tool declaring ``side_effects=True`` the journal records, under that key:

1. the **intent**, written with a compare-and-set before the tool starts: only one attempt
   with a key ever starts, across processes sharing the store;
2. the **result**, after the tool answered.

A retried or resumed call with the same key is answered from the journal instead of acting
again: the recorded result when there is one; ``execution_failed`` with
``reason="effect_uncertain"`` when an attempt started but never recorded its end (its process
stopped, it was cancelled, it timed out or raised): it may or may not have acted, so it is not
repeated. A key reused for other arguments or another tool is refused (``input_invalid``,
``reason="idempotency_conflict"``); one whose attempt is still running in this process answers
``not_available`` (``reason="effect_in_progress"``).

Entries live in the registry's key-value store (namespace `EFFECTS_SCOPE`) or the one
`Effects.store` names, for `Effects.ttl_s`. A registry with neither refuses calls of such tools
(``effect_journal_missing``): a side effect that could not be journaled is not risked.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import anyio

from toolwire.capabilities.seams import AtomicKeyValueStore, KeyValueStore
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.execution.cache import canonical_args
from toolwire.execution.quotas import atomic_store
from toolwire.results import Err, ErrorCode, ToolResult, result_from_dict, result_to_dict
from toolwire.tools import Tool

__all__ = [
    "DEFAULT_EFFECT_TTL_S",
    "EFFECTS_SCOPE",
    "EFFECTS_TOOL",
    "Effects",
    "effect_store",
    "journaled",
]

EFFECTS_TOOL = "toolwire-effects"
"""The tool name the journal's store is asked for (``kv_store_factory(EFFECTS_TOOL, ...)``)."""
EFFECTS_SCOPE = f"tool:{EFFECTS_TOOL}"
"""Its scope: private to the journal, shared by every process on the same store."""

StoreFactory: TypeAlias = Callable[[str, str], KeyValueStore]
Attempt: TypeAlias = tuple[ToolResult, bool]
"""The tool's result and whether it failed (an exception, a timeout, an abort)."""

DEFAULT_EFFECT_TTL_S = 7 * 24 * 3600.0
"""How long a journal entry is kept (a week)."""
_RUNNING_HERE: set[str] = set()
"""Keys whose attempt runs in this process right now."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Effects:
    """Where the effect journal lives (``ToolRegistry(effects=Effects(...))``).

    Attributes:
        store: The journal's store; ``None`` uses the registry's key-value backend (namespace
            `EFFECTS_SCOPE`). It must compare and set (every built-in store does).
        ttl_s: How long an entry is kept: a retry later than this acts again (a week).
    """

    store: KeyValueStore | None = None
    ttl_s: float = DEFAULT_EFFECT_TTL_S

    def __post_init__(self) -> None:
        if not self.ttl_s > 0:
            raise ConfigurationError(f"Effects(ttl_s={self.ttl_s!r}) must be positive")
        if self.store is not None and not isinstance(self.store, AtomicKeyValueStore):
            raise ConfigurationError(
                "Effects(store=...) needs a store with compare_and_set (every built-in "
                "key-value store has one: backend.scoped(name, scope))"
            )


def effect_store(
    effects: Effects | None, factory: StoreFactory | None
) -> AtomicKeyValueStore | None:
    """The journal's store, or ``None`` when there is none that can compare and set."""
    if effects is not None and effects.store is not None:
        return cast("AtomicKeyValueStore", effects.store)  # checked when Effects was made
    if factory is None:
        return None
    return atomic_store(factory, EFFECTS_TOOL, EFFECTS_SCOPE)


async def journaled(
    effects: Effects | None,
    factory: StoreFactory | None,
    tool: Tool,
    args: Mapping[str, Any],
    ctx: ToolContext,
    act: Callable[[], Awaitable[Attempt]],
) -> ToolResult:
    """Run ``act`` at most once for ``ctx.idempotency_key``, journaling intent and result; a
    repeated key is answered from the journal (see the module docstring)."""
    store = effect_store(effects, factory)
    if store is None:
        return Err(
            f"Tool {tool.name} has side effects, but no effect journal is configured (give "
            "the registry a key-value backend, or effects=Effects(store=...))",
            ErrorCode.NOT_AVAILABLE,
            reason="effect_journal_missing",
        )
    ttl = effects.ttl_s if effects is not None else DEFAULT_EFFECT_TTL_S
    key = ctx.idempotency_key
    fingerprint = _fingerprint(args)
    intent = _entry("intent", tool.name, fingerprint)
    for _ in range(3):  # an entry that expires between the two reads is claimed again
        if await store.compare_and_set(key, None, json.dumps(intent), ttl_seconds=ttl):
            return await _act_once(store, key, ttl, intent, act)
        raw = await store.get(key)
        if raw is not None:
            return _answer_from(raw, key, tool, fingerprint)
    return _uncertain(tool, key, "its journal entry keeps changing")


async def _act_once(
    store: AtomicKeyValueStore,
    key: str,
    ttl: float,
    intent: dict[str, Any],
    act: Callable[[], Awaitable[Attempt]],
) -> ToolResult:
    _RUNNING_HERE.add(key)
    try:
        result, failed = await act()
    finally:  # cancelled or crashed: the intent stays, and a retry is told it is uncertain
        _RUNNING_HERE.discard(key)
    state = "uncertain" if failed else "done"
    record = {**intent, "state": state, "result": result_to_dict(result), "ended": time.time()}
    with anyio.CancelScope(shield=True):
        await store.set(key, json.dumps(record), ttl_seconds=ttl)
    return result


def _answer_from(raw: str, key: str, tool: Tool, fingerprint: str) -> ToolResult:
    try:
        entry = json.loads(raw)
    except ValueError:
        entry = None
    if not isinstance(entry, dict):
        return _uncertain(tool, key, "its journal entry cannot be read")
    if entry.get("tool") != tool.name or entry.get("args") != fingerprint:
        return Err(
            f"Tool {tool.name}: idempotency key {key} was already used for another call "
            f"({entry.get('tool')} with other arguments); give this call a new call id",
            ErrorCode.INPUT_INVALID,
            reason="idempotency_conflict",
        )
    state = entry.get("state")
    if state == "done":
        try:
            return result_from_dict(entry["result"])
        except (KeyError, TypeError, ValueError):
            return _uncertain(tool, key, "its recorded result cannot be read")
    if state == "intent" and key in _RUNNING_HERE:
        return Err(
            f"Tool {tool.name}: the call with idempotency key {key} is still running; wait "
            "for its result instead of starting it again",
            ErrorCode.NOT_AVAILABLE,
            reason="effect_in_progress",
        )
    if state == "uncertain":
        error = entry.get("result", {}).get("error", "it failed")
        return _uncertain(tool, key, f"it ended without a result of its own ({error})")
    return _uncertain(tool, key, "it started but never recorded its end (interrupted)")


def _uncertain(tool: Tool, key: str, why: str) -> Err:
    return Err(
        f"Tool {tool.name} was not run again: an earlier attempt with idempotency key {key} "
        f"may or may not have taken effect ({why}). Check its effect before retrying with a "
        "new call id.",
        ErrorCode.EXECUTION_FAILED,
        reason="effect_uncertain",
    )


def _entry(state: str, tool_name: str, fingerprint: str) -> dict[str, Any]:
    return {"state": state, "tool": tool_name, "args": fingerprint, "started": time.time()}


def _fingerprint(args: Mapping[str, Any]) -> str:
    data = canonical_args(args).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()
