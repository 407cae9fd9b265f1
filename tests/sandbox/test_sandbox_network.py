"""The network from inside a sandbox: nothing by default; with declared hosts, toolwire's
egress proxy is the only way out (through the relay and the proxy variables), and a program
that ignores the proxy reaches nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from egress_helpers import EgressCanary, running_canary
from sandbox_helpers import ctx_for, ok, sandboxed_registry

from toolwire.capabilities import fs_reach, network, process
from toolwire.context import ToolContext
from toolwire.decorator import tool
from toolwire.results import Ok, ToolResult

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("bwrap")]


@tool(
    capabilities=[
        process(["bash"]),
        network(["canary.test"]),
        fs_reach(read="from-personality", write="from-personality"),
    ]
)
async def fetcher_shell(ctx: ToolContext, command: str) -> ToolResult:
    """A command tool that declared the canary host."""
    assert ctx.scoped_process is not None
    result = await ctx.scoped_process.spawn("bash", ["-c", "exec 2>&1; " + command])
    return Ok(f"{result.exit_code}\n{result.stdout.strip()}")


FETCH = """
import sys, urllib.request, urllib.error
try:
    with urllib.request.urlopen(sys.argv[1], timeout=10) as reply:
        print(reply.status, reply.read().decode())
except urllib.error.HTTPError as exc:
    print(exc.code, exc.headers.get("X-Toolwire-Refusal"))
except OSError as exc:
    print("failed", exc)
"""

DIRECT = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
    print("connected")
except OSError as exc:
    print("refused", exc.errno)
"""


async def run(registry: object, work: Path, command: str) -> tuple[int, str]:
    outcome = await registry.execute("fetcher_shell", {"command": command}, ctx_for(work))  # type: ignore[attr-defined]
    code, _, output = ok(outcome.result).partition("\n")
    return int(code), output


async def test_an_allowed_host_is_fetched_through_the_proxy_and_nothing_else(
    tmp_path: Path,
) -> None:
    with running_canary() as canary:
        await _fetch_through_the_proxy(tmp_path, canary)


async def _fetch_through_the_proxy(tmp_path: Path, egress_canary: EgressCanary) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "fetch.py").write_text(FETCH)
    (work / "direct.py").write_text(DIRECT)
    registry = sandboxed_registry(
        work,
        tools=[fetcher_shell],
        resolver=egress_canary.resolver,
        network_policy=egress_canary.policy,
    )
    async with registry:
        allowed = await run(registry, work, f"python3 fetch.py {egress_canary.url('/hello')}")
        proxy = await run(registry, work, 'echo "$HTTP_PROXY $https_proxy"')
        other = await run(registry, work, "python3 fetch.py http://elsewhere.test/")
        direct = await run(registry, work, f"python3 direct.py {egress_canary.port}")
        terminal = await registry.execute(
            "terminal", {"command": f"python3 fetch.py {egress_canary.url('/t')}"}, ctx_for(work)
        )
    assert allowed == (0, f"200 canary canary.test:{egress_canary.port} /hello")
    assert proxy[1] == "http://127.0.0.1:3128 http://127.0.0.1:3128"
    assert other[1].startswith("403")  # the proxy refused a host the tool did not declare
    assert direct[1].startswith("refused")  # around the proxy: nothing there
    assert isinstance(terminal.result, Ok)
    assert terminal.result.value.startswith("failed")  # terminal declared no network at all
    assert [hit.path for hit in egress_canary.hits] == ["/hello"]


@tool(
    capabilities=[
        process(["bash"]),
        network(["canary.test"]),
        fs_reach(read="from-personality", write="from-personality"),
    ]
)
async def background_fetch(ctx: ToolContext, command: str) -> ToolResult:
    """Starts ``command`` in the background, waits for it, answers its exit code."""
    assert ctx.scoped_process is not None
    background = ctx.scoped_process.background
    assert background is not None
    started = await background.start(command)
    ended = await background.wait(started.id, timeout_s=30)
    return Ok(str(ended.exit_code))


async def test_a_background_process_goes_out_through_its_own_listener(tmp_path: Path) -> None:
    with running_canary() as canary:
        work = tmp_path / "work"
        work.mkdir()
        (work / "fetch.py").write_text(FETCH)
        registry = sandboxed_registry(
            work,
            tools=[background_fetch],
            resolver=canary.resolver,
            network_policy=canary.policy,
            logs=tmp_path / "procs",
        )
        async with registry:
            command = f"python3 fetch.py {canary.url('/bg')} > fetched.txt"
            outcome = await registry.execute(
                "background_fetch", {"command": command}, ctx_for(work)
            )
            assert ok(outcome.result) == "0"
    assert (work / "fetched.txt").read_text() == f"200 canary canary.test:{canary.port} /bg\n"
    assert [hit.path for hit in canary.hits] == ["/bg"]
