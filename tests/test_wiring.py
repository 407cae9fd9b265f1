"""`create_registry` / `open_registry`: the default assembly from a `ToolwireConfig`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest

from toolwire import ToolContext
from toolwire.config import ToolwireConfig
from toolwire.errors import ConfigurationError
from toolwire.mcp import McpServerConfig
from toolwire.results import Err, ErrorCode, Ok
from toolwire.wiring import create_registry, open_registry

REGISTRY_SERVER = Path(__file__).parent / "mcp" / "servers" / "registry_server.py"


def config_for(tmp_path: Path, **changes: object) -> ToolwireConfig:
    return ToolwireConfig(base_dir=str(tmp_path), store_url="memory://", **changes)  # type: ignore[arg-type]


def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(session_id="wiring", working_dir=str(tmp_path))


def test_every_builtin_toolset_is_enabled_by_default(tmp_path: Path) -> None:
    registry = create_registry(config_for(tmp_path))
    assert {"read_file", "write_file", "patch_file", "search_files", "terminal"} <= set(
        registry.names
    )


def test_toolsets_limit_the_builtin_tools(tmp_path: Path) -> None:
    registry = create_registry(config_for(tmp_path, toolsets=("file",)))
    assert {t.toolset for t in registry} == {"file"}


def test_an_unknown_toolset_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="unknown toolset"):
        create_registry(config_for(tmp_path, toolsets=("files",)))


@pytest.mark.anyio
async def test_the_command_guard_is_installed(tmp_path: Path) -> None:
    registry = create_registry(config_for(tmp_path))
    outcome = await registry.execute("terminal", {"command": "rm -rf /"}, ctx(tmp_path))
    assert isinstance(outcome.result, Err)
    assert outcome.result.code is ErrorCode.NOT_AVAILABLE
    assert "Command blocked" in outcome.result.error


@pytest.mark.anyio
async def test_files_inside_the_sandbox_are_readable(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("inside the sandbox\n")
    async with open_registry(config_for(tmp_path)) as wired:
        outcome = await wired.registry.execute("read_file", {"path": "notes.txt"}, ctx(tmp_path))
    assert isinstance(outcome.result, Ok)
    assert "inside the sandbox" in outcome.result.value


@pytest.mark.anyio
async def test_files_outside_the_sandbox_are_refused(tmp_path: Path) -> None:
    inside = tmp_path / "inside"
    inside.mkdir()
    (tmp_path / "secret.txt").write_text("the secret content\n")
    config = config_for(inside, sandbox_write=(str(inside),))
    async with open_registry(config) as wired:
        outcome = await wired.registry.execute(
            "read_file", {"path": str(tmp_path / "secret.txt")}, ctx(inside)
        )
    assert isinstance(outcome.result, Err)
    assert outcome.result.error.startswith("PATH_NOT_REACHABLE")
    assert "the secret content" not in outcome.result.error


@pytest.mark.anyio
async def test_open_registry_adds_the_process_tools(tmp_path: Path) -> None:
    async with open_registry(config_for(tmp_path)) as wired:
        assert {t.toolset for t in wired.registry} >= {"file", "terminal", "process"}


def test_create_registry_includes_the_process_tools_and_their_backend(tmp_path: Path) -> None:
    registry = create_registry(config_for(tmp_path))
    assert {t.name for t in registry if t.toolset == "process"} >= {"process_start", "process_stop"}
    assert registry.backends is not None
    assert registry.backends.processes is not None
    assert registry.backends.processes.supports_background


@pytest.mark.anyio
async def test_background_processes_log_under_the_base_dir_and_end_with_the_registry(
    tmp_path: Path,
) -> None:
    async with open_registry(config_for(tmp_path)) as wired:
        outcome = await wired.registry.execute(
            "process_start", {"command": "sleep 300"}, ctx(tmp_path)
        )
        assert isinstance(outcome.result, Ok), outcome.result
        assert outcome.result.structured is not None
        pid = int(outcome.result.structured["pid"])
        os.kill(pid, 0)  # running
    logs = tmp_path / ".toolwire" / "processes" / str(outcome.result.structured["process_id"])
    assert (logs / "stdout.log").exists()
    with pytest.raises(ProcessLookupError):  # stopped and reaped when the registry closed
        os.kill(pid, 0)


@pytest.mark.anyio
async def test_configured_mcp_servers_are_bridged_in(tmp_path: Path) -> None:
    server = McpServerConfig(
        name="tw",
        command=sys.executable,
        args=(str(REGISTRY_SERVER), "stdio"),
        connect_timeout_s=20.0,
    )
    config = config_for(tmp_path, toolsets=("file",), mcp_servers=(server,))
    with anyio.fail_after(30):
        async with open_registry(config) as wired:
            outcome = await wired.registry.execute(
                "mcp__tw__echo", {"text": "bridged"}, ctx(tmp_path)
            )
            assert wired.mcp_providers[0].connected
    assert isinstance(outcome.result, Ok)
    assert "bridged" in outcome.result.value
