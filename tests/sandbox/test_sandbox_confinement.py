"""The confinement the process seam hands its backend: built from the call's declarations as
resolved for that call (no bubblewrap needed to check it), and carried through wrappers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import ctx_for, ok, sandboxed_registry

from toolwire.capabilities import ToolCapabilities, fs_reach, network, process
from toolwire.capabilities._backends import CapabilityBackends, CapabilityScope, FsReach
from toolwire.capabilities.kinds.process._backends import (
    LocalProcessBackend,
    ProcessRequest,
    WrapperProcessBackend,
)
from toolwire.capabilities.kinds.process._scoped import LocalScopedProcess
from toolwire.capabilities.kinds.process.sandbox import Confinement, NetworkReach
from toolwire.capabilities.resolver import resolve_capabilities
from toolwire.capabilities.seams import NetworkPolicy, ProcessResult
from toolwire.registry import ToolRegistry
from toolwire.toolbox import terminal_tools

pytestmark = pytest.mark.anyio


def confinement_of(
    declared: ToolCapabilities, backends: CapabilityBackends, scope: CapabilityScope
) -> Confinement | None:
    seam = resolve_capabilities("t", declared, scope, backends).scoped_process
    assert isinstance(seam, LocalScopedProcess)
    return seam.confinement


def test_the_personality_reach_becomes_the_roots_asked_once_per_call(tmp_path: Path) -> None:
    asked: list[str | None] = []

    def reach(personality_id: str | None) -> FsReach:
        asked.append(personality_id)
        return FsReach(read=(str(tmp_path / "r"), "rel"), write=(str(tmp_path / "w"),))

    backends = CapabilityBackends(
        personality_fs_reach=reach,
        always_deny=[str(tmp_path / "r" / "private")],
        processes=LocalProcessBackend(),
    )
    declared = ToolCapabilities.of(
        process(["bash"]), fs_reach(read="from-personality", write="from-personality")
    )
    scope = CapabilityScope(session_id="s", personality_id="coder", working_dir=str(tmp_path))
    confinement = confinement_of(declared, backends, scope)
    assert confinement == Confinement(
        read_roots=(str(tmp_path / "r"), str(tmp_path / "rel")),
        write_roots=(str(tmp_path / "w"),),
        deny=(str(tmp_path / "r" / "private"),),
    )
    assert asked == ["coder"]  # the file seam and the sandbox share one answer


def test_without_file_reach_or_network_the_confinement_reaches_nothing() -> None:
    backends = CapabilityBackends(fs_read=["/srv"], processes=LocalProcessBackend())
    scope = CapabilityScope(session_id="s")
    confinement = confinement_of(ToolCapabilities.of(process(["git"])), backends, scope)
    assert confinement == Confinement()


@pytest.mark.parametrize(
    ("allow", "expected"),
    [
        ((), NetworkReach(allowed_hosts=("api.x.com",), policy=NetworkPolicy())),
        (("*.x.com",), NetworkReach(allowed_hosts=("api.x.com",), policy=None)),
        (("other.com",), None),  # nothing declared survives the policy: no network at all
    ],
)
def test_declared_hosts_narrowed_by_the_policy_are_the_network_reach(
    allow: tuple[str, ...], expected: NetworkReach | None
) -> None:
    policy = NetworkPolicy(allow=allow)
    backends = CapabilityBackends(network_policy=policy, processes=LocalProcessBackend())
    declared = ToolCapabilities.of(process(["curl"]), network(["api.x.com"]))
    confinement = confinement_of(declared, backends, CapabilityScope(session_id="s"))
    assert confinement is not None
    if expected is None:
        assert confinement.network is None
    else:
        assert confinement.network is not None
        assert confinement.network.allowed_hosts == expected.allowed_hosts
        assert confinement.network.policy == policy


def test_a_confinement_refuses_what_is_not_absolute_paths() -> None:
    with pytest.raises(ValueError, match="not an absolute path"):
        Confinement(read_roots=("relative",))
    with pytest.raises(TypeError, match="not a string"):
        Confinement(write_roots="/tmp")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty"):
        NetworkReach(allowed_hosts=())


class Recording(WrapperProcessBackend):
    """Sees the confinement of every child, then lets the wrapped backend run it."""

    def __init__(self, wrapped: Any) -> None:
        super().__init__(wrapped)
        self.seen: list[Confinement | None] = []

    async def run(self, request: ProcessRequest) -> ProcessResult:
        self.seen.append(request.confinement)
        return await super().run(request)


@pytest.mark.usefixtures("bwrap")
async def test_a_wrapper_of_the_sandbox_passes_the_confinement_on(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "sibling").mkdir()
    inner = sandboxed_registry(work).backends.processes
    wrapper = Recording(inner)
    backends = CapabilityBackends(fs_read=(str(work),), fs_write=(str(work),), processes=wrapper)
    async with ToolRegistry(backends=backends) as registry:
        registry.register_all(terminal_tools())
        outcome = await registry.execute(
            "terminal", {"command": f"ls {tmp_path} | wc -l"}, ctx_for(work)
        )
    assert wrapper.sandboxed
    assert wrapper.seen == [Confinement(read_roots=(str(work),), write_roots=(str(work),))]
    assert ok(outcome.result) == "1"  # the parent holds the root only, not its sibling
