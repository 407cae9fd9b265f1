"""A session's browser belongs to the replica that opened it: another replica refuses it
(``not_available``) while the owner lives, and takes it over once the owner has stopped."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from stores import unique

from toolwire import ToolContext
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.registry import ToolRegistry
from toolwire.replicas import ElsewhereError, ReplicaSettings, ReplicaState
from toolwire.replicas.claims import SessionClaims
from toolwire.results import Err, ErrorCode, Ok
from toolwire.stores import KeyValueBackend, create_kv_backend

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "toolbox" / "browser"))
from browser_site import require_chromium

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[KeyValueBackend]:
    backend = create_kv_backend(f"sqlite:///{tmp_path / 'shared.db'}")
    yield backend
    await backend.aclose()


def _replica(store: KeyValueBackend, name: str) -> ReplicaState:
    return ReplicaState(store, ReplicaSettings(replica_id=name, address=f"http://{name}:8765"))


async def test_a_claim_is_refused_while_its_owner_lives_and_taken_over_after(
    store: KeyValueBackend,
) -> None:
    a, b = _replica(store, unique("a")), _replica(store, unique("b"))
    await a.directory.beat()
    await b.directory.beat()
    on_a, on_b = SessionClaims(store, a.owner), SessionClaims(store, b.owner)
    await on_a.claim("s1")
    await on_a.claim("s1")  # its own claim again: fine
    with pytest.raises(ElsewhereError) as refused:
        await on_b.claim("s1")
    assert refused.value.owner == a.replica_id
    assert refused.value.to_err().reason == "owned_by_another_replica"
    await on_b.release("s1")  # not b's to release
    assert await on_a.holder("s1") == a.replica_id
    await on_a.release("s1")
    await on_b.claim("s1")  # released: b may open it
    assert await on_b.holder("s1") == b.replica_id

    await on_b.claim("s2")
    await b.directory.leave()  # b stops
    await a.directory.beat()
    await on_a.claim("s2")  # its pages died with b: a takes the session over
    assert await on_a.holder("s2") == a.replica_id


async def test_browser_tools_of_a_session_another_replica_holds_answer_not_available(
    store: KeyValueBackend,
) -> None:
    require_chromium()
    from toolwire.capabilities.kinds.browser import BrowserBackend
    from toolwire.toolbox.browser import browser_tools

    a, b = _replica(store, unique("a")), _replica(store, unique("b"))
    await a.directory.beat()
    await b.directory.beat()
    registries: list[ToolRegistry] = []
    for replica in (a, b):
        browser = BrowserBackend()
        browser.claims = SessionClaims(store, replica.owner)
        backends = CapabilityBackends(
            processes=None, network_policy=NetworkPolicy(), kind_backends={"browser": browser}
        )
        registry = ToolRegistry(backends=backends)
        registry.add_cleanup(browser.aclose)
        registry.register_all(browser_tools())
        registries.append(registry)
    try:
        ctx = ToolContext(session_id=unique("s"))
        opened = await registries[0].execute("browser_tabs", {"action": "new"}, ctx)
        assert isinstance(opened.result, Ok), opened.result
        refused = await registries[1].execute("browser_tabs", {}, ctx)
        assert isinstance(refused.result, Err)
        assert refused.result.code == ErrorCode.NOT_AVAILABLE
        assert refused.result.reason == "owned_by_another_replica"
        assert a.replica_id in refused.result.error
        closed = await registries[0].execute("browser_close", {}, ctx)
        assert isinstance(closed.result, Ok), closed.result
        moved = await registries[1].execute("browser_tabs", {"action": "new"}, ctx)
        assert isinstance(moved.result, Ok), moved.result  # released: b opens its own
    finally:
        for registry in registries:
            await registry.aclose()
