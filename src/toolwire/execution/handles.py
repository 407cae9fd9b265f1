"""Result handles: a result trimmed to its budget keeps its full text, and says where.

With ``ToolRegistry(result_handles=ResultHandles(...))``, a successful value longer than its
call's budget is trimmed as always (``value[:budget]`` and ``\\n[truncated — N chars total]``),
its full text (as reduced, before the trim) is kept in the key-value store, and the trimmed
value ends with one more line naming the handle::

    [result handle: h-0123456789abcdef — read_result(handle="h-0123456789abcdef", start=80000)]

The built-in ``read_result(handle, start, length)`` tool (`toolwire.toolbox._kept_results`) pages
through it; over MCP the handle is also a ``resource_link``
(`toolwire.mcp.server.result_resources`).

The text lives where ``read_result`` reads: the capability backends' ``kv_store_factory``
(``read_result``, ``tool:read_result``), so every process on a shared store (SQLite, Redis,
PostgreSQL) can read a handle another one made. Keys carry a digest of the session id and the
call's principal (`toolwire.principals.Principal.scoped`), so a handle belongs to its session
and its credential: another session or credential gets ``not_available``. Each text expires
after `ResultHandles.ttl_s`; a session keeps at most `ResultHandles.max_chars_per_session`
characters — an authenticated principal, across all its sessions — its oldest texts evicted
first (an index per session or principal, updated by compare-and-set; so no credential can
evict another's texts). A text longer than the whole cap, or a store that fails, leaves the
plain trim.

Cost: a registry without handles pays one attribute check per call; with handles, a result
that fits its budget pays a length comparison.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolwire.capabilities.seams import AtomicKeyValueStore, KeyValueStore
from toolwire.context import ToolContext
from toolwire.errors import ConfigurationError
from toolwire.execution.budget import truncation_marker
from toolwire.principals import LOCAL, Principal
from toolwire.results import Ok, ToolResult
from toolwire.tools import Tool

__all__ = [
    "HANDLES_SCOPE",
    "HANDLES_TOOL",
    "HANDLE_LINE_PATTERN",
    "HandleRecord",
    "ResultHandles",
    "find_handle",
    "handle_line",
    "handle_owner",
    "keep_trimmed",
    "load_record",
    "moved_handle_line",
    "record_key",
    "session_handles",
    "split_handle_line",
]

logger = logging.getLogger("toolwire.execution.handles")

HANDLES_TOOL = "read_result"
"""The store namespace's tool: the one that reads handles back."""
HANDLES_SCOPE = f"tool:{HANDLES_TOOL}"
"""Its scope (what ``storage("tool-private")`` gives ``read_result``)."""
HANDLE_LINE_PATTERN = re.compile(
    r"\n\[result handle: (h-[0-9a-f]{16}) \u2014 read_result\(handle=\"h-[0-9a-f]{16}\", "
    r"start=\d+\)\]\Z"
)
"""The last line of a trimmed value that kept its text; group 1 is the handle."""
_HANDLE = re.compile(r"h-[0-9a-f]{16}")
_CAS_ATTEMPTS = 16

StoreFactory = Callable[[str, str], KeyValueStore]


@dataclass(frozen=True, kw_only=True, slots=True)
class ResultHandles:
    """Keep the full text of trimmed results (``ToolRegistry(result_handles=...)``).

    Attributes:
        ttl_s: Seconds a kept text stays readable (an hour by default).
        max_chars_per_session: Characters one session may keep at once (an authenticated
            principal: across its sessions); the oldest texts are evicted to make room (20
            million by default).
    """

    ttl_s: float = 3600.0
    max_chars_per_session: int = 20_000_000

    def __post_init__(self) -> None:
        if not self.ttl_s > 0:
            raise ConfigurationError(f"ResultHandles(ttl_s={self.ttl_s!r}) must be positive")
        if self.max_chars_per_session < 1:
            raise ConfigurationError(
                f"ResultHandles(max_chars_per_session={self.max_chars_per_session!r}) must be >= 1"
            )


@dataclass(frozen=True, kw_only=True, slots=True)
class HandleRecord:
    """A kept text: the tool that produced it and whether its output is untrusted."""

    handle: str
    tool: str
    untrusted: bool
    text: str


def handle_store(factory: StoreFactory | None) -> KeyValueStore | None:
    """The namespace handles live in, or ``None`` without a key-value backend."""
    return None if factory is None else factory(HANDLES_TOOL, HANDLES_SCOPE)


def check_handles(handles: ResultHandles | None, factory: StoreFactory | None) -> None:
    """Refuse handles without a store to keep them in (a programming error).

    Raises:
        ConfigurationError: ``handles`` is set and there is no ``kv_store_factory``.
    """
    if handles is not None and not isinstance(handles, ResultHandles):
        raise ConfigurationError(f"result_handles takes ResultHandles, got {handles!r}")
    if handles is not None and factory is None:
        raise ConfigurationError(
            "result_handles needs a key-value store: give the registry capability backends "
            "with one, e.g. create_backends(kv_url='sqlite:///state/kv.db')"
        )


def _session_digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def record_key(owner: str, handle: str) -> str:
    """Where ``handle``'s text is kept for ``owner`` (`handle_owner`)."""
    return f"r/{_session_digest(owner)}/{handle}"


def handle_owner(session_id: str, principal: Principal = LOCAL) -> str:
    """Whose handles a call of ``session_id`` by ``principal`` reads and keeps."""
    return principal.scoped(session_id)


def _index_key(session_id: str, principal: Principal) -> str:
    """The index the cap is counted on: the session's, or an authenticated principal's."""
    return f"i/{_session_digest(session_id if principal.is_local else principal.id)}"


def handle_line(handle: str, start: int) -> str:
    """The line a trimmed value ends with (see `HANDLE_LINE_PATTERN`)."""
    return f'\n[result handle: {handle} \u2014 read_result(handle="{handle}", start={start})]'


def find_handle(value: str) -> str | None:
    """The handle a trimmed value ends with, or ``None``."""
    found = HANDLE_LINE_PATTERN.search(value)
    return found.group(1) if found is not None else None


def split_handle_line(text: str) -> tuple[str, str]:
    """``text`` without its final handle line, and that line (``""`` when there is none), so
    a later cut (the presenter's ingestion cap) can keep it last."""
    found = HANDLE_LINE_PATTERN.search(text)
    if found is None:
        return text, ""
    return text[: found.start()], found.group(0)


def moved_handle_line(line: str, start: int) -> str:
    """A handle line (from `split_handle_line`) that reads on from ``start`` instead: for text
    cut again, shorter (``""`` stays ``""``)."""
    handle = find_handle(line)
    return "" if handle is None else handle_line(handle, start)


async def load_record(store: KeyValueStore, owner: str, handle: str) -> HandleRecord | None:
    """``handle``'s kept text for ``owner`` (`handle_owner`), or ``None`` (unknown, expired,
    evicted, or another session's or principal's)."""
    if not isinstance(handle, str) or _HANDLE.fullmatch(handle) is None:
        return None
    raw = await store.get(record_key(owner, handle))
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        return HandleRecord(
            handle=handle,
            tool=str(data["tool"]),
            untrusted=bool(data["untrusted"]),
            text=str(data["text"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


async def session_handles(
    store: KeyValueStore, session_id: str, principal: Principal = LOCAL
) -> list[tuple[str, int]]:
    """The live handles of ``session_id`` by ``principal`` and their sizes, oldest first."""
    owner = _session_digest(handle_owner(session_id, principal))
    raw = await store.get(_index_key(session_id, principal))
    entries, _ = _parse_index(raw, owner)
    now = time.time()
    return [(entry[0], entry[1]) for entry in entries if entry[2] > now and entry[3] == owner]


async def keep_trimmed(
    handles: ResultHandles,
    factory: StoreFactory | None,
    tool: Tool,
    ctx: ToolContext,
    result: Ok,
    budget: int,
) -> ToolResult:
    """``result`` trimmed to ``budget``, its full text kept and named by a handle line.

    Call it only for a value longer than ``budget``. Never raises: a store that fails (or a
    text over the session's whole cap) leaves the plain trim.
    """
    value = result.value
    length = len(value)
    trimmed = value[:budget] + truncation_marker(length)
    store = handle_store(factory)
    if store is not None and length <= handles.max_chars_per_session and tool.name != HANDLES_TOOL:
        try:
            handle = await _keep(store, handles, tool, ctx.session_id, ctx.principal, value)
        except Exception:
            logger.warning(
                "toolwire: keeping the full result of %s failed", tool.name, exc_info=True
            )
        else:
            trimmed += handle_line(handle, budget)
    return Ok(trimmed, structured=result.structured, cost_usd=result.cost_usd)


async def _keep(
    store: KeyValueStore,
    handles: ResultHandles,
    tool: Tool,
    session_id: str,
    principal: Principal,
    text: str,
) -> str:
    handle = f"h-{secrets.token_hex(8)}"
    owner = _session_digest(handle_owner(session_id, principal))
    record = {"tool": tool.name, "untrusted": tool.output_is_untrusted, "text": text}
    await store.set(f"r/{owner}/{handle}", json.dumps(record), ttl_seconds=handles.ttl_s)
    key = _index_key(session_id, principal)
    evicted = await _admit(
        store, handles, key, owner, handle, len(text), shared=not principal.is_local
    )
    for old_owner, old in evicted:
        await store.delete(f"r/{old_owner}/{old}")
    return handle


async def _admit(
    store: KeyValueStore,
    handles: ResultHandles,
    key: str,
    owner: str,
    handle: str,
    size: int,
    *,
    shared: bool,
) -> list[tuple[str, str]]:
    """Add ``handle`` of ``owner`` (a digest) to the index at ``key``; the (owner, handle)
    pairs evicted to stay under the cap. A session's own index keeps ``[handle, size,
    expires]`` entries; a principal's (``shared`` by its sessions) names each one's owner."""
    if not isinstance(store, AtomicKeyValueStore):  # a store of one's own: best effort
        return []
    for _ in range(_CAS_ATTEMPTS):
        raw = await store.get(key)
        entries, revision = _parse_index(raw, owner)
        now = time.time()
        live = [entry for entry in entries if entry[2] > now]
        live.append([handle, size, now + handles.ttl_s, owner])
        evicted: list[tuple[str, str]] = []
        while sum(entry[1] for entry in live) > handles.max_chars_per_session:
            gone = live.pop(0)
            evicted.append((gone[3], gone[0]))
        kept = live if shared else [entry[:3] for entry in live]
        body = json.dumps({"rev": revision + 1, "entries": kept})
        if await store.compare_and_set(key, raw, body, ttl_seconds=handles.ttl_s):
            return evicted
    raise RuntimeError("the session's handle index kept changing")


def _parse_index(raw: str | None, owner: str) -> tuple[list[list[Any]], int]:
    """An index's entries, ``[handle, size, expires, owner digest]`` (an entry written
    before owners were kept belongs to ``owner``, the index's session), and its revision."""
    if raw is None:
        return [], 0
    try:
        data = json.loads(raw)
        entries = [
            [str(entry[0]), int(entry[1]), float(entry[2]), str(entry[3])]
            if len(entry) > 3
            else [str(entry[0]), int(entry[1]), float(entry[2]), owner]
            for entry in data["entries"]
        ]
        return entries, int(data["rev"])
    except (ValueError, KeyError, TypeError, IndexError):
        return [], 0
