"""Helpers for the sandbox's tests: the bubblewrap requirement, registries whose commands run
sandboxed, and finding a sandboxed process from outside (its pids are its namespace's).

```python
from sandbox_helpers import bwrap, sandboxed_registry  # noqa: F401  (bwrap is a fixture)

async def test_x(bwrap: BubblewrapProbe, tmp_path: Path) -> None:
    async with sandboxed_registry(tmp_path / "work") as registry:
        outcome = await registry.execute("terminal", {"command": "id"}, ctx_for(tmp_path / "work"))
```
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from service_checks import missing_here
from subprocesses import running_with
from toolwire.capabilities.kinds.network import StaticResolver
from toolwire.capabilities.kinds.process.background import ProcessManager
from toolwire.capabilities.kinds.process.sandbox import (
    BubblewrapProbe,
    SandboxLimits,
    probe_bubblewrap,
)
from toolwire.capabilities.kinds.process.sandbox.backend import SandboxedProcessBackend
from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.capabilities.seams import NetworkPolicy
from toolwire.context import AbortSignal, ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import Err, Ok, ToolResult
from toolwire.safety.protected_paths import ProtectedPaths
from toolwire.toolbox import process_tools, terminal_tools
from toolwire.tools import Tool


@pytest.fixture
def bwrap() -> BubblewrapProbe:
    """bubblewrap can run here: skip on a developer machine without it, fail in CI."""
    probe = probe_bubblewrap()
    if not probe.usable:
        missing_here(
            f"the sandbox cannot run here: {probe.reason}",
            "scripts/system-deps.sh installs bubblewrap",
        )
    return probe


def sandboxed_registry(
    work: Path,
    *,
    read: Sequence[Path] = (),
    write: Sequence[Path] | None = None,
    deny: Sequence[Path] = (),
    limits: SandboxLimits | None = None,
    logs: Path | None = None,
    tools: Sequence[Tool] = (),
    resolver: StaticResolver | None = None,
    network_policy: NetworkPolicy | None = None,
    protected: ProtectedPaths | None = None,
) -> ToolRegistry:
    """The terminal and process tools (and ``tools``) over a real sandbox reaching ``work``
    (read and write unless ``write`` says otherwise) and ``read`` (read-only); ``protected``:
    the protected paths (the defaults when ``None``)."""
    writes = [work] if write is None else list(write)
    manager = ProcessManager(str(logs or work.parent / "procs"), stop_grace_s=1.0)
    backend = SandboxedProcessBackend(
        manager, limits=limits or SandboxLimits(), egress_resolver=resolver
    )
    backends = CapabilityBackends(
        fs_read=tuple(str(p) for p in (work, *read)),
        fs_write=tuple(str(p) for p in writes),
        always_deny=tuple(str(p) for p in deny),
        protected_paths=protected,
        processes=backend,
        network_policy=network_policy,
    )
    registry = ToolRegistry(backends=backends)
    registry.register_all([*terminal_tools(), *process_tools(), *tools])
    return registry


def ctx_for(work: Path, **changes: Any) -> ToolContext:
    """A call context working in ``work``."""
    return ToolContext(session_id="s", working_dir=str(work), **changes)


async def terminal(
    registry: ToolRegistry,
    work: Path,
    command: str,
    timeout_s: float = 30,
    cwd: str | None = None,
    **ctx: Any,
) -> ToolResult:
    """One ``terminal`` call's result."""
    args: dict[str, Any] = {"command": command, "timeout_s": timeout_s}
    if cwd is not None:
        args["cwd"] = cwd
    outcome = await registry.execute("terminal", args, ctx_for(work, **ctx))
    return outcome.result


def ok(result: ToolResult) -> str:
    """The value of an ``Ok``; fails the test otherwise."""
    assert isinstance(result, Ok), result
    return result.value


def err(result: ToolResult) -> Err:
    """The ``Err``; fails the test otherwise."""
    assert isinstance(result, Err), result
    return result


def host_has(path: str) -> bool:
    """Whether ``path`` exists on the host (outside every sandbox)."""
    return os.path.lexists(path)


def marker() -> str:
    """A ``sleep`` duration no other process uses, to find a sandboxed process from outside."""
    return f"300.{uuid.uuid4().int % 10**12:012d}"


async def gone(text: str, within_s: float = 10.0) -> bool:
    """Whether every process holding ``text`` has ended (waits, boundedly, for the kernel)."""
    with anyio.move_on_after(within_s):
        while running_with(text):
            await anyio.sleep(0.05)
    return not running_with(text)


async def appeared(text: str, within_s: float = 10.0) -> bool:
    """Whether a process holding ``text`` runs (waits for it to start)."""
    with anyio.move_on_after(within_s):
        while not running_with(text):
            await anyio.sleep(0.05)
    return bool(running_with(text))


@dataclass
class Canary:
    """A TCP server on the host's loopback that counts the connections it accepts."""

    port: int
    accepted: list[tuple[str, int]] = field(default_factory=list)


@contextmanager
def loopback_canary() -> Iterator[Canary]:
    """A TCP canary on 127.0.0.1 until the block ends."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    canary = Canary(port=server.getsockname()[1])
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, peer = server.accept()
            except (TimeoutError, OSError):
                continue
            canary.accepted.append(peer)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield canary
    finally:
        stop.set()
        thread.join(2)
        server.close()


async def abort_when(signal: AbortSignal, text: str) -> None:
    """Abort ``signal`` once a process holding ``text`` runs."""
    assert await appeared(text)
    signal.abort("user pressed stop")
