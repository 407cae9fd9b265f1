"""Background processes belong to one replica: their ids name it, and another replica answers
a call naming one ``not_available`` with the owner (alive or gone) and what to do."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from stores import unique

from toolwire import ToolContext
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.config import ToolwireConfig
from toolwire.registry import ToolRegistry
from toolwire.replicas import ElsewhereError, ReplicaSettings, ReplicaState, ResourceOwner, owner_of
from toolwire.results import Err, ErrorCode, Ok
from toolwire.stores import create_kv_backend
from toolwire.wiring import create_registry

pytestmark = pytest.mark.anyio


@pytest.fixture
async def registry(tmp_path: Path) -> AsyncIterator[ToolRegistry]:
    config = ToolwireConfig(
        base_dir=str(tmp_path), store_url=f"sqlite:///{tmp_path / 'kv.db'}", toolsets=("process",)
    )
    made = create_registry(config)
    try:
        yield made
    finally:
        await made.aclose()


def _manager(registry: ToolRegistry) -> ProcessManager:
    manager = getattr(registry.backends.processes if registry.backends else None, "manager", None)
    assert isinstance(manager, ProcessManager)
    return manager


def test_owner_of_reads_the_replica_an_id_names() -> None:
    assert owner_of("3f9c0a1b2d4e@api-1") == "api-1"
    assert owner_of("3f9c0a1b2d4e") is None
    owner = ResourceOwner(replica_id="api-1")
    assert owner.name("abc") == "abc@api-1"
    owner.check("abc@api-1", "background process")  # its own: no error
    owner.check("abc", "background process")  # a plain id: not another replica's


async def test_a_process_id_names_its_replica_and_works_there(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    _manager(registry).replica = ResourceOwner(replica_id="api-1")
    ctx = ToolContext(session_id="s", working_dir=str(tmp_path))
    started = await registry.execute("process_start", {"command": "sleep 30"}, ctx)
    assert isinstance(started.result, Ok), started.result
    assert started.result.structured is not None
    process_id = started.result.structured["process_id"]
    assert process_id.endswith("@api-1")
    stopped = await registry.execute("process_stop", {"process_id": process_id}, ctx)
    assert stopped.result.ok, stopped.result


@pytest.mark.parametrize("alive", [True, False])
async def test_another_replicas_process_is_not_available_here_naming_the_owner(
    registry: ToolRegistry, tmp_path: Path, alive: bool
) -> None:
    backend = create_kv_backend(f"sqlite:///{tmp_path / 'shared.db'}")
    owner_name, here_name = unique("api-1"), unique("api-2")
    owner = ReplicaState(
        backend, ReplicaSettings(replica_id=owner_name, address="http://10.0.0.1:8765")
    )
    here = ReplicaState(backend, ReplicaSettings(replica_id=here_name))
    try:
        if alive:
            await owner.directory.beat()
        await here.directory.beat()  # reads who is alive
        _manager(registry).replica = here.owner
        ctx = ToolContext(session_id="s", working_dir=str(tmp_path))
        answer = await registry.execute(
            "process_logs", {"process_id": f"0123456789ab@{owner_name}"}, ctx
        )
        result = answer.result
        assert isinstance(result, Err)
        assert result.code == ErrorCode.NOT_AVAILABLE
        message = result.error
        assert owner_name in message
        assert here_name in message
        if alive:
            assert result.reason == "owned_by_another_replica"
            assert "http://10.0.0.1:8765" in message
        else:
            assert result.reason == "owner_replica_gone"
            assert "has stopped" in message
    finally:
        await backend.aclose()


def test_the_manager_raises_a_lookup_error_that_says_whose_it_is(tmp_path: Path) -> None:
    manager = ProcessManager(str(tmp_path), replica=ResourceOwner(replica_id="api-2"))
    with pytest.raises(ElsewhereError) as raised:
        manager.get("0123456789ab@api-1", owner="p")
    assert isinstance(raised.value, LookupError)
    assert (raised.value.owner, raised.value.here) == ("api-1", "api-2")
    with pytest.raises(LookupError, match="no background process"):
        manager.get("0123456789ab@api-2", owner="p")  # its own name, but no such process
