"""Capability kinds as one table: the built-in rows, and a new kind added as one module.

The toy ``clock`` kind below is everything a new kind needs (its declaration and factory, its
seam, its `CapabilityKind` record); nothing in toolwire is edited for it, and a tool that
declares it reads its seam with ``ctx.seam(CLOCK)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import pytest

from toolwire.capabilities import (
    FS_REACH,
    KINDS,
    PROCESS,
    SEAM_FIELDS,
    STORAGE,
    Capability,
    CapabilityKind,
    Resolution,
    ToolCapabilities,
    kind_name,
    process,
    storage,
)
from toolwire.capabilities.resolver import (
    BACKEND_SETUP_HINTS,
    CapabilityBackends,
    CapabilityScope,
    ResolvedCapabilities,
    missing_backends,
    resolve_capabilities,
)
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.errors import ToolDefinitionError
from toolwire.registry import ToolRegistry
from toolwire.results import Ok

pytestmark = pytest.mark.anyio

# ---------------------------------------------------------------- the toy kind: one module


@dataclass(frozen=True, kw_only=True, slots=True)
class ClockCapability(Capability):
    """Read the time in one zone."""

    zone: str


def clock(zone: str) -> ClockCapability:
    """Declare the clock of ``zone``."""
    return ClockCapability(zone=zone)


class Clock(Protocol):
    def now(self) -> str: ...


class FixedClocks:
    """The backend: one fixed time, shown in any zone."""

    def __init__(self, time: str) -> None:
        self.time = time


@dataclass(frozen=True, slots=True)
class ZoneClock:
    """The seam: the backend's time in the declared zone, for one personality."""

    time: str
    zone: str
    personality: str | None

    def now(self) -> str:
        return f"{self.time} {self.zone} for {self.personality}"


def _resolve_clock(declared: ClockCapability, call: Resolution) -> Clock | None:
    backend = call.backends.kind_backends.get("clock")
    if not isinstance(backend, FixedClocks):
        return None
    return ZoneClock(backend.time, declared.zone, call.scope.personality_id)


CLOCK: CapabilityKind[ClockCapability, Clock] = CapabilityKind(
    name="clock",
    declaration=ClockCapability,
    resolve=_resolve_clock,
    backend=lambda backends: backends.kind_backends.get("clock"),
    setup_hint="give CapabilityBackends kind_backends={'clock': FixedClocks(...)}",
)

# ---------------------------------------------------------------- a tool declaring it


@tool(capabilities=[clock("UTC")])
async def what_time(ctx: ToolContext) -> str:
    """Say what time it is."""
    seam = ctx.seam(CLOCK)  # typed: Clock | None
    return "no clock" if seam is None else seam.now()


async def test_a_tool_declaring_a_new_kind_gets_its_seam_through_ctx_seam() -> None:
    backends = CapabilityBackends(kind_backends={"clock": FixedClocks("12:00")})
    registry = ToolRegistry(backends=backends)
    registry.register(what_time)
    outcome = await registry.execute(
        "what_time", {}, ToolContext(session_id="s", personality_id="p")
    )
    assert outcome.result == Ok("12:00 UTC for p")


async def test_without_its_backend_the_new_kind_has_no_seam_and_is_reported() -> None:
    registry = ToolRegistry(backends=CapabilityBackends())
    registry.register(what_time)
    outcome = await registry.execute("what_time", {}, ToolContext(session_id="s"))
    assert outcome.result == Ok("no clock")
    assert missing_backends(what_time.capabilities, CapabilityBackends()) == ["clock"]


def test_the_new_kind_is_declared_beside_the_spec_ones() -> None:
    caps = ToolCapabilities.of(clock("UTC"), storage("session"))
    assert caps.get(CLOCK) == ClockCapability(zone="UTC")
    assert caps.get(STORAGE) == storage("session")
    assert caps.get(PROCESS) is None
    assert caps.declared == ("storage", "clock")
    assert not caps.is_empty
    assert kind_name(clock("UTC")) == "clock"


def test_the_new_kind_is_declared_once_at_most() -> None:
    with pytest.raises(ToolDefinitionError, match="'clock' is declared twice"):
        ToolCapabilities.of(clock("UTC"), clock("CET"))


async def test_the_resolver_puts_a_new_kinds_seam_in_extra_seams() -> None:
    backends = CapabilityBackends(kind_backends={"clock": FixedClocks("09:30")})
    caps = ToolCapabilities.of(clock("CET"), process(["true"]))
    resolved = resolve_capabilities("t", caps, CapabilityScope(session_id="s"), backends)
    seam = resolved.get(CLOCK)
    assert seam is not None
    assert seam.now() == "09:30 CET for None"
    assert resolved.extra_seams == {"clock": seam}
    ctx = resolved.apply(ToolContext(session_id="s"))
    assert ctx.seam(CLOCK) is seam
    assert ctx.seam(PROCESS) is ctx.scoped_process is not None


async def test_apply_clears_extra_seams_the_tool_did_not_declare() -> None:
    ctx = ToolContext(session_id="s", extra_seams={"clock": object()})
    assert ResolvedCapabilities().apply(ctx).seam(CLOCK) is None


# ---------------------------------------------------------------- the built-in table


def test_the_table_holds_the_six_spec_kinds_in_order_then_the_others() -> None:
    names = [kind.name for kind in KINDS]
    assert names == [
        "network", "secrets", "storage", "fs_reach", "process", "attachments",
        "subagent", "shared_storage", "archive", "protected_paths",
    ]  # fmt: skip
    fields = [kind.context_field for kind in KINDS]
    assert fields == [
        "scoped_fetch", "secrets_resolver", "kv_store", "scoped_fs", "scoped_process",
        "attachments", None, None, None, None,
    ]  # fmt: skip


def test_seam_fields_are_every_field_a_kind_fills() -> None:
    spec_fields = {k.context_field for k in KINDS if k.context_field is not None}
    assert set(SEAM_FIELDS) == spec_fields | {"extra_seams"}
    assert all(hasattr(ToolContext(session_id="s"), name) for name in SEAM_FIELDS)


def test_setup_hints_come_from_the_kinds_that_need_a_backend() -> None:
    assert set(BACKEND_SETUP_HINTS) == {
        "network", "secrets", "storage", "process", "subagent", "shared_storage", "archive",
    }  # fmt: skip
    assert FS_REACH.backend is None
    assert FS_REACH.setup_hint is None


def test_ctx_seam_reads_a_spec_kind_from_its_typed_field() -> None:
    store = object()
    ctx = ToolContext(session_id="s", kv_store=store)  # type: ignore[arg-type]
    assert ctx.seam(STORAGE) is store
    assert ToolContext(session_id="s").seam(CLOCK) is None


def test_a_kind_name_or_declaration_belongs_to_one_kind() -> None:
    with pytest.raises(ToolDefinitionError, match="already belongs"):
        CapabilityKind(name="clock", declaration=ClockCapability, resolve=_resolve_clock)

    @dataclass(frozen=True, kw_only=True, slots=True)
    class OtherCapability(Capability):
        pass

    with pytest.raises(ToolDefinitionError, match="already belongs"):
        CapabilityKind(name="storage", declaration=OtherCapability, resolve=lambda d, c: None)


def test_a_kind_needs_an_identifier_a_capability_and_a_spec_field() -> None:
    with pytest.raises(ToolDefinitionError, match="not an identifier"):
        CapabilityKind(name="my kind", declaration=ClockCapability, resolve=_resolve_clock)
    with pytest.raises(ToolDefinitionError, match="derive from Capability"):
        CapabilityKind(name="plain", declaration=dict, resolve=lambda d, c: None)  # type: ignore[type-var]
    with pytest.raises(ToolDefinitionError, match="context_field"):
        CapabilityKind(
            name="fielded",
            declaration=ClockCapability,
            resolve=_resolve_clock,
            context_field="clock",  # type: ignore[arg-type]
        )


def test_others_holds_only_declarations_of_kinds_beyond_the_spec() -> None:
    with pytest.raises(ToolDefinitionError, match="others"):
        ToolCapabilities(others=(storage("session"),))
    assert ToolCapabilities(others=(clock("UTC"),)).get(CLOCK) == clock("UTC")
