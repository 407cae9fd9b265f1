"""Stage 5, cache: the opt-in result cache — successful, untruncated results only; never in
dry-run.

Keys are ``(tool, session and principal, personality, canonical arguments)`` (the principal:
`toolwire.principals.Principal.scoped`, so two credentials never share an entry); each tool
keeps at most its policy's ``max_entries`` (least recently used evicted first), each entry
lives ``ttl_s``.
Upstream cached error results and served hits during dry-run; we do neither.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

import pydantic_core

from toolwire.context import ToolContext
from toolwire.results import Ok
from toolwire.tools import CachePolicy, Tool

__all__ = ["CacheKey", "ResultCache", "canonical_args", "look_up"]

CacheKey: TypeAlias = tuple[str, str, str]
"""``(session, personality, canonical arguments)``; the tool name selects the per-tool cache."""


def canonical_args(args: Mapping[str, Any]) -> str:
    """Arguments as canonical JSON (sorted keys, no spaces), models and dates included."""
    data = pydantic_core.to_jsonable_python(dict(args), fallback=repr)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ResultCache:
    """Per-tool LRU caches with a TTL. Not shared between registries."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._by_tool: dict[str, OrderedDict[CacheKey, tuple[float, Ok]]] = {}

    @staticmethod
    def key(
        policy: CachePolicy, session_id: str, personality_id: str | None, args: Mapping[str, Any]
    ) -> CacheKey:
        """The cache key of a call (the tool name selects the per-tool cache)."""
        arg_key = policy.key_fn(dict(args)) if policy.key_fn else canonical_args(args)
        return (session_id, personality_id or "", arg_key)

    def get(self, tool_name: str, key: CacheKey) -> Ok | None:
        """The cached result, or ``None`` (expired entries are dropped on read)."""
        entries = self._by_tool.get(tool_name)
        if not entries:
            return None
        hit = entries.get(key)
        if hit is None:
            return None
        expires, result = hit
        if expires <= self._clock():
            del entries[key]
            return None
        entries.move_to_end(key)
        return result

    def put(self, tool_name: str, key: CacheKey, result: Ok, policy: CachePolicy) -> None:
        """Store ``result`` for ``policy.ttl_s`` seconds, evicting the least recently used."""
        entries = self._by_tool.setdefault(tool_name, OrderedDict())
        entries[key] = (self._clock() + policy.ttl_s, result)
        entries.move_to_end(key)
        while len(entries) > policy.max_entries:
            entries.popitem(last=False)

    def clear(self, tool_name: str | None = None) -> None:
        """Forget one tool's entries, or everything."""
        if tool_name is None:
            self._by_tool.clear()
        else:
            self._by_tool.pop(tool_name, None)

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._by_tool.values())


def look_up(
    cache: ResultCache, tool: Tool, ctx: ToolContext, args: Mapping[str, Any]
) -> tuple[CacheKey | None, Ok | None]:
    """The call's cache key and the cached result, for a tool that opted in.

    ``(None, None)`` for a tool without a cache policy.
    """
    policy = tool.cache
    if policy is None:
        return None, None
    owner = ctx.principal.scoped(ctx.session_id)  # another credential never hits it
    key = cache.key(policy, owner, ctx.personality_id, args)
    return key, cache.get(tool.name, key)
