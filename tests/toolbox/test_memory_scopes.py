"""Which scope memory and boards live in, and what the shared_storage seam lets a tool reach."""

from __future__ import annotations

import pytest

from toolwire.capabilities import SHARED_STORAGE, ToolCapabilities, shared_storage
from toolwire.capabilities.resolver import CapabilityBackends, CapabilityScope, resolve_capabilities
from toolwire.context import ToolContext
from toolwire.errors import CapabilityError, ToolDefinitionError
from toolwire.stores import MemoryKeyValueBackend
from toolwire.toolbox.memory._scopes import board_scope_id, memory_scope_id

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("fields", "memory", "board"),
    [
        ({"memory_scope_id": "org:acme", "team_id": "t"}, "org:acme", "team:t"),
        ({"memory_scope": "global", "personality_id": "p"}, "global", "personality:p"),
        (
            {"memory_scope": "per-personality", "personality_id": "p"},
            "personality:p",
            "personality:p",
        ),
        ({"memory_scope": "per-personality"}, "personality:s", "personality:s"),
        ({"team_id": "t", "personality_id": "p"}, "team:t", "team:t"),
        ({"personality_id": "p"}, "personality:p", "personality:p"),
        ({}, "global", "personality:s"),
    ],
)
def test_scope_ids_come_from_the_context(fields: dict[str, str], memory: str, board: str) -> None:
    ctx = ToolContext(session_id="s", **fields)  # type: ignore[arg-type]
    assert (memory_scope_id(ctx), board_scope_id(ctx)) == (memory, board)


def _seam(declared: object, session_id: str = "s1") -> object:
    backends = CapabilityBackends(kv_store_factory=MemoryKeyValueBackend().scoped, processes=None)
    caps = ToolCapabilities.of(declared)  # type: ignore[arg-type]
    resolved = resolve_capabilities(
        "my_tool", caps, CapabilityScope(session_id=session_id), backends
    )
    return resolved.get(SHARED_STORAGE)


@pytest.mark.parametrize("scope_id", ["tool:other", "session:s2", "", "  "])
def test_private_and_foreign_scopes_are_refused(scope_id: str) -> None:
    stores = _seam(shared_storage())
    with pytest.raises(CapabilityError, match="SCOPE_NOT_SHARED"):
        stores.store(scope_id)  # type: ignore[attr-defined]


@pytest.mark.parametrize("scope_id", ["global", "team:t", "personality:p", "session:s1", "org:x"])
def test_shared_scopes_and_the_own_session_are_reached(scope_id: str) -> None:
    store = _seam(shared_storage()).store(scope_id)  # type: ignore[attr-defined]
    assert store.namespace.scope_id == scope_id


async def test_a_group_owns_the_partition_when_tools_are_isolated() -> None:
    backend = MemoryKeyValueBackend(isolate_tools=True)
    backends = CapabilityBackends(kv_store_factory=backend.scoped, processes=None)
    scope = CapabilityScope(session_id="s")
    stores = [
        resolve_capabilities(
            name, ToolCapabilities.of(shared_storage(group="g")), scope, backends
        ).get(SHARED_STORAGE)
        for name in ("writer", "reader")
    ]
    await stores[0].store("team:t").set("k", "v")  # type: ignore[union-attr]
    assert await stores[1].store("team:t").get("k") == "v"  # type: ignore[union-attr]
    alone = resolve_capabilities("other", ToolCapabilities.of(shared_storage()), scope, backends)
    assert await alone.get(SHARED_STORAGE).store("team:t").get("k") is None  # type: ignore[union-attr]


def test_without_a_store_there_is_no_seam() -> None:
    backends = CapabilityBackends(processes=None)
    caps = ToolCapabilities.of(shared_storage())
    resolved = resolve_capabilities("t", caps, CapabilityScope(session_id="s"), backends)
    assert resolved.get(SHARED_STORAGE) is None


def test_an_empty_group_is_a_definition_error() -> None:
    with pytest.raises(ToolDefinitionError, match="group"):
        shared_storage(group=" ")
