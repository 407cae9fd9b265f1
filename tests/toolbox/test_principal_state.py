"""Per-user state belongs to the call's principal as well as to its session or personality:
two credentials in the same session and personality never share memory, a board, result
handles (whose cap is counted per credential), background processes or a browser context;
what the host configures as shared (a team, ``memory_scope="global"``) stays shared, and
`LOCAL` keys are what they always were."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from toolbox_helpers import error_of, ok_value, run

from toolwire import Principal, ToolContext, ToolRegistry, define_tool, ok
from toolwire.capabilities.kinds.browser.backend import BrowserBackend
from toolwire.capabilities.kinds.browser.kind import BROWSER, browser
from toolwire.capabilities.kinds.process._backends import LocalProcessBackend
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.execution.approvals import pending_approval
from toolwire.execution.handles import ResultHandles, find_handle
from toolwire.results import Ok, ToolResult
from toolwire.stores import KeyValueBackend, create_kv_backend
from toolwire.toolbox import kanban_tools, memory_tools, process_tools
from toolwire.toolbox._kept_results import read_result
from toolwire.tools import CachePolicy

pytestmark = pytest.mark.anyio

ALICE = Principal.of_credential(issuer="toolwire", client="alice", subject="a1")
BOB = Principal.of_credential(issuer="toolwire", client="bob", subject="b1")
TEXT = "".join(f"row {i:04d}\n" for i in range(1000))  # 9,000 chars


def _ctx(principal: Principal, session: str = "s1", **fields: Any) -> ToolContext:
    return ToolContext(session_id=session, personality_id="p1", principal=principal, **fields)


@pytest.fixture
async def kv() -> AsyncIterator[KeyValueBackend]:
    async with create_kv_backend("memory://") as backend:
        yield backend


def _registry(kv: KeyValueBackend, **options: Any) -> ToolRegistry:
    backends = CapabilityBackends(kv_store_factory=kv.scoped, processes=None)
    registry = ToolRegistry(backends=backends, reducers=None, **options)
    registry.register_all([*memory_tools(), *kanban_tools()])
    return registry


async def test_two_credentials_of_one_personality_keep_their_own_memory(
    kv: KeyValueBackend,
) -> None:
    registry = _registry(kv)
    await run(registry, _ctx(ALICE), "memory_write", key="notes", content="alice's secret")
    assert "alice's secret" not in ok_value(await run(registry, _ctx(BOB), "memory_read"))
    assert "alice's secret" in ok_value(await run(registry, _ctx(ALICE), "memory_read"))


async def test_memory_the_host_configures_as_global_is_shared(kv: KeyValueBackend) -> None:
    registry = _registry(kv)
    alice, bob = _ctx(ALICE, memory_scope="global"), _ctx(BOB, memory_scope="global")
    await run(registry, alice, "memory_write", key="notes", content="for everyone")
    assert "for everyone" in ok_value(await run(registry, bob, "memory_read", key="notes"))


async def test_two_credentials_keep_their_own_board_and_a_team_shares_one(
    kv: KeyValueBackend,
) -> None:
    registry = _registry(kv)
    await run(registry, _ctx(ALICE), "kanban_create", title="alice's card")
    assert "alice's card" not in ok_value(await run(registry, _ctx(BOB), "kanban_list"))
    await run(registry, _ctx(ALICE, team_id="t1"), "kanban_create", title="team card")
    listed = ok_value(await run(registry, _ctx(BOB, team_id="t1"), "kanban_list"))
    assert "team card" in listed


async def test_local_calls_keep_the_scopes_they_had(kv: KeyValueBackend) -> None:
    registry = _registry(kv)
    local = ToolContext(session_id="s1", personality_id="p1")
    await run(registry, local, "memory_write", key="notes", content="as before")
    store = kv.scoped("memory_read", "personality:p1")  # the scope id a LOCAL call always had
    assert await store.list("") != []


async def _big(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ok(TEXT)


async def _trim(registry: ToolRegistry, ctx: ToolContext) -> str:
    outcome = await registry.execute("big", {}, ctx)
    assert isinstance(outcome.result, Ok)
    handle = find_handle(outcome.result.value)
    assert handle is not None
    return handle


async def test_the_handle_cap_is_counted_per_credential_across_its_sessions(
    kv: KeyValueBackend,
) -> None:
    registry = _registry(kv, result_handles=ResultHandles(max_chars_per_session=len(TEXT) * 2))
    big = define_tool(name="big", description="Big.", schema={"type": "object"}, execute=_big)
    registry.register_all([big, read_result])
    budget = {"result_budget_chars": 1000}
    bobs = await _trim(registry, _ctx(BOB, **budget))
    first = await _trim(registry, _ctx(ALICE, "s1", **budget))
    await _trim(registry, _ctx(ALICE, "s2", **budget))
    await _trim(registry, _ctx(ALICE, "s3", **budget))  # her third text: her first goes

    gone = error_of(await run(registry, _ctx(ALICE, "s1", **budget), "read_result", handle=first))
    assert gone.reason == "handle_not_available"
    page = await run(registry, _ctx(BOB, **budget), "read_result", handle=bobs)
    assert isinstance(page, Ok)  # another credential's texts never make room for hers
    theirs = await run(registry, _ctx(ALICE, **budget), "read_result", handle=bobs)
    assert error_of(theirs).reason == "handle_not_available"


async def test_background_processes_belong_to_the_credential_too(
    kv: KeyValueBackend, tmp_path: Path
) -> None:
    manager = ProcessManager(str(tmp_path / "procs"), stop_grace_s=1.0, max_per_owner=1)
    backends = CapabilityBackends(
        fs_read=(str(tmp_path),), fs_write=(str(tmp_path),), processes=LocalProcessBackend(manager)
    )
    async with backends:
        registry = ToolRegistry(backends=backends)
        registry.register_all(process_tools())
        here = {"working_dir": str(tmp_path)}
        started = await run(registry, _ctx(ALICE, **here), "process_start", command="sleep 300")
        assert isinstance(started, Ok)
        assert started.structured is not None
        process_id = started.structured["process_id"]
        assert "No background processes." in ok_value(
            await run(registry, _ctx(BOB, **here), "process_list")
        )
        refused = await run(registry, _ctx(BOB, **here), "process_stop", process_id=process_id)
        assert error_of(refused).field == "process_id"
        bobs = await run(registry, _ctx(BOB, **here), "process_start", command="sleep 300")
        assert isinstance(bobs, Ok)  # alice at her cap of 1 leaves bob his own


async def test_a_browser_context_belongs_to_the_session_and_the_credential() -> None:
    seen: dict[str, str] = {}

    async def probe(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        seam = ctx.seam(BROWSER)
        assert seam is not None
        seen[args["who"]] = seam.session_id
        return ok("seen")

    backends = CapabilityBackends(processes=None, kind_backends={"browser": BrowserBackend()})
    registry = ToolRegistry(backends=backends)
    registry.register(
        define_tool(
            name="probe",
            description="Which context.",
            schema={"type": "object", "properties": {"who": {"type": "string"}}},
            execute=probe,
            capabilities=[browser()],
        )
    )
    for who, principal in (("alice", ALICE), ("bob", BOB)):
        await registry.execute("probe", {"who": who}, _ctx(principal))
    await registry.execute("probe", {"who": "local"}, ToolContext(session_id="s1"))
    assert len(set(seen.values())) == 3
    assert seen["local"] == "s1"


async def test_an_approval_token_approves_only_its_own_credentials_call(
    kv: KeyValueBackend,
) -> None:
    ran: list[str] = []

    async def delete(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ran.append(ctx.principal.id)
        return ok("deleted")

    registry = _registry(kv)
    registry.register(
        define_tool(
            name="delete",
            description="Delete.",
            schema={"type": "object"},
            execute=delete,
            requires_approval=True,
        )
    )
    asked = await registry.execute("delete", {}, _ctx(ALICE))
    pending = pending_approval(asked)
    assert pending is not None
    bobs = await registry.execute("delete", {}, _ctx(BOB), approvals=[pending.token])
    assert error_of(bobs.result).reason == "approval_required"
    alices = await registry.execute("delete", {}, _ctx(ALICE), approvals=[pending.token])
    assert isinstance(alices.result, Ok)
    assert ran == [ALICE.id]


async def test_a_cached_result_is_never_served_to_another_credential() -> None:
    async def secret(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ok(f"for {ctx.principal.id}")

    registry = ToolRegistry(backends=CapabilityBackends(processes=None))
    registry.register(
        define_tool(
            name="secret",
            description="Per-user answer.",
            schema={"type": "object"},
            execute=secret,
            cache=CachePolicy(ttl_s=60),
        )
    )
    alices = await registry.execute("secret", {}, _ctx(ALICE))
    bobs = await registry.execute("secret", {}, _ctx(BOB))
    assert isinstance(alices.result, Ok)
    assert isinstance(bobs.result, Ok)
    assert bobs.result.value == f"for {BOB.id}"
