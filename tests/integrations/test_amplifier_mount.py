"""The amplifier module (spec 05) against the real amplifier-core: its Rust coordinator, hook
registry, ToolResult and module validator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from amplifier_core import ModuleCoordinator, ModuleLoader
from amplifier_core.models import HookResult, ToolResult
from amplifier_core.validation.tool import ToolValidator
from integration_helpers import GITHUB_PAT, RecordingRegistry, body_of, share

from toolwire.errors import ConfigurationError
from toolwire.execution.budget import truncation_marker
from toolwire.integrations.amplifier import mount

pytestmark = pytest.mark.anyio


class Recorder:
    """A hook handler for tool:pre, tool:post and tool:error that can deny or fail."""

    def __init__(self, coordinator: ModuleCoordinator) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.deny: set[str] = set()
        self.fail = False
        for event in ("tool:pre", "tool:post", "tool:error"):
            coordinator.hooks.register(event, self.handle, name=f"recorder-{event}")

    async def handle(self, event: str, data: dict[str, Any]) -> HookResult:
        self.events.append((event, data))
        if self.fail:
            raise RuntimeError("hook broke")
        if event == "tool:pre" and data["tool_name"] in self.deny:
            return HookResult(action="deny", reason=f"{data['tool_name']} is not allowed here")
        return HookResult(action="continue")

    def names(self) -> list[tuple[str, str]]:
        return [(event, data["tool_name"]) for event, data in self.events]


@pytest.fixture
def coordinator() -> ModuleCoordinator:
    return ModuleCoordinator()


async def test_each_tool_is_mounted_with_the_spec_05_shape(
    coordinator: ModuleCoordinator, workspace: tuple[RecordingRegistry, Path]
) -> None:
    registry, _ = workspace
    cleanup = await mount(coordinator, {"registry": registry})
    mounted = coordinator.get("tools")
    assert sorted(mounted) == sorted(registry.names)
    shout = mounted["shout"]
    assert (shout.name, shout.description) == ("shout", "Upper-case a text.")
    assert shout.input_schema["properties"]["text"]["type"] == "string"
    shout.input_schema["properties"]["text"]["type"] = "integer"  # a copy
    assert shout.input_schema["properties"]["text"]["type"] == "string"
    await cleanup()


async def test_execute_returns_amplifier_results_presented(
    coordinator: ModuleCoordinator, workspace: tuple[RecordingRegistry, Path]
) -> None:
    registry, root = workspace
    await mount(coordinator, {"registry": registry, "working_dir": str(root)})
    tools = coordinator.get("tools")
    read = await tools["read_file"].execute({"path": "notes.txt"})
    assert isinstance(read, ToolResult)
    assert read.success
    assert '<untrusted source="file:notes.txt" tool="read_file">' in read.output
    leaked = await tools["leak"].execute({})
    assert GITHUB_PAT not in leaked.get_serialized_output()
    bad = await tools["shout"].execute({"text": 3})
    assert not bad.success
    assert bad.error["type"] == "input_invalid"
    assert bad.error["field"] == "text"
    assert bad.get_serialized_output().startswith("Invalid arguments for shout")


async def test_tool_pre_post_and_error_reach_the_coordinators_hooks(
    coordinator: ModuleCoordinator, workspace: tuple[RecordingRegistry, Path]
) -> None:
    registry, _ = workspace
    recorder = Recorder(coordinator)
    await mount(coordinator, {"registry": registry})
    tools = coordinator.get("tools")
    await tools["shout"].execute({"text": "hi"})
    await tools["shout"].execute({"text": 3})
    assert recorder.names() == [
        ("tool:pre", "shout"),
        ("tool:post", "shout"),
        ("tool:pre", "shout"),
        ("tool:post", "shout"),
        ("tool:error", "shout"),
    ]
    pre, post = recorder.events[0][1], recorder.events[1][1]
    assert pre["tool_input"] == {"text": "hi"}
    assert post["tool_call_id"] == pre["tool_call_id"]
    assert post["result"]["success"] is True
    assert "HI" in post["result"]["output"]
    error = recorder.events[4][1]["error"]
    assert error["type"] == "input_invalid"


async def test_a_tool_pre_deny_refuses_the_call_and_nothing_runs(
    coordinator: ModuleCoordinator, workspace: tuple[RecordingRegistry, Path]
) -> None:
    registry, root = workspace
    recorder = Recorder(coordinator)
    recorder.deny.add("write_file")
    await mount(coordinator, {"registry": registry, "working_dir": str(root)})
    result = await coordinator.get("tools")["write_file"].execute({"path": "x.txt", "content": "x"})
    assert not result.success
    assert result.error["type"] == "not_available"
    assert result.output == "write_file is not allowed here"
    assert not (root / "x.txt").exists()
    assert registry.batches == []


async def test_amplifier_core_skips_a_hook_handler_that_raises(
    coordinator: ModuleCoordinator, workspace: tuple[RecordingRegistry, Path]
) -> None:
    registry, _ = workspace
    recorder = Recorder(coordinator)
    recorder.fail = True
    await mount(coordinator, {"registry": registry})
    result = await coordinator.get("tools")["shout"].execute({"text": "hi"})
    assert result.success  # amplifier-core logs the handler's error and goes on
    assert [name for name, _ in recorder.names()] == ["tool:pre", "tool:post"]


class BrokenHooks:
    """A hook registry whose emit itself fails (a coordinator written to spec 05)."""

    async def emit(self, event: str, data: dict[str, Any]) -> Any:
        raise RuntimeError("hook system down")


class SpecCoordinator:
    """The parts of spec 05's coordinator the mount uses."""

    def __init__(self) -> None:
        self.hooks = BrokenHooks()
        self.session_id = "spec-session"
        self.tools: dict[str, Any] = {}

    async def mount(self, point: str, module: Any, name: str | None = None) -> None:
        self.tools[name or module.name] = module

    async def unmount(self, point: str, name: str | None = None) -> None:
        self.tools.pop(name or "", None)


async def test_when_tool_pre_cannot_be_emitted_the_call_is_refused(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, _ = workspace
    coordinator = SpecCoordinator()
    cleanup = await mount(coordinator, {"registry": registry})
    result = await coordinator.tools["shout"].execute({"text": "hi"})
    assert not result.success
    assert result.error["type"] == "not_available"
    assert "tool:pre hook failed" in result.output
    assert registry.batches == []
    await cleanup()
    assert coordinator.tools == {}


async def test_calls_the_orchestrator_starts_together_are_one_batch(
    coordinator: ModuleCoordinator, workspace: tuple[RecordingRegistry, Path]
) -> None:
    registry, _ = workspace
    await mount(coordinator, {"registry": registry, "result_budget_chars": 300})
    tool = coordinator.get("tools")["emit_chars"]
    results: list[ToolResult] = []

    async def one() -> None:
        results.append(await tool.execute({"n": 1000}))

    async with anyio.create_task_group() as group:
        for _ in range(3):
            group.start_soon(one)
    assert [len(b.ids) for b in registry.batches] == [3]
    for result in results:
        assert body_of(result.output) == "x" * share(300, 3) + truncation_marker(1000)


async def test_a_denied_call_of_a_batch_leaves_the_others_their_share_and_emits_no_post(
    coordinator: ModuleCoordinator, workspace: tuple[RecordingRegistry, Path]
) -> None:
    registry, _ = workspace
    recorder = Recorder(coordinator)
    recorder.deny.add("leak")
    await mount(coordinator, {"registry": registry, "result_budget_chars": 300})
    tools = coordinator.get("tools")
    results: dict[str, ToolResult] = {}

    async def one(name: str, args: dict[str, Any], label: str) -> None:
        results[label] = await tools[name].execute(args)

    async with anyio.create_task_group() as group:
        group.start_soon(one, "emit_chars", {"n": 1000}, "a")
        group.start_soon(one, "leak", {}, "denied")
        group.start_soon(one, "emit_chars", {"n": 1000}, "b")
    assert [b.names for b in registry.batches] == [("emit_chars", "emit_chars")]
    for label in ("a", "b"):
        assert body_of(results[label].output) == "x" * share(300, 3) + truncation_marker(1000)
    assert results["denied"].error["type"] == "not_available"
    assert ("tool:post", "leak") not in recorder.names()
    assert ("tool:pre", "leak") in recorder.names()


async def test_only_the_named_tools_are_mounted_and_cleanup_unmounts_them(
    coordinator: ModuleCoordinator, workspace: tuple[RecordingRegistry, Path]
) -> None:
    registry, _ = workspace
    cleanup = await mount(coordinator, {"registry": registry, "tools": ["shout", "leak"]})
    assert sorted(coordinator.get("tools")) == ["leak", "shout"]
    coordinator.register_cleanup(cleanup)
    await coordinator.cleanup()
    assert coordinator.get("tools") == {}


async def test_a_mount_without_a_registry_builds_the_built_in_tools_and_closes_them(
    coordinator: ModuleCoordinator, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    cleanup = await mount(coordinator, {"working_dir": str(tmp_path), "store_url": "memory://"})
    tools = coordinator.get("tools")
    assert {"read_file", "write_file", "terminal"} <= set(tools)
    written = await tools["write_file"].execute({"path": "b.txt", "content": "beta\n"})
    assert written.success, written.output
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "beta\n"
    read = await tools["read_file"].execute({"path": "/etc/hostname"})
    assert not read.success  # outside the working directory
    await cleanup()
    assert coordinator.get("tools") == {}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"colour": "blue"}, "unknown config keys"),
        ({"registry": "not one"}, "must be a ToolRegistry"),
        ({"tools": ["nope"]}, "no tools named"),
        ({"result_budget_chars": 0}, "positive integer"),
    ],
)
async def test_a_bad_config_is_a_configuration_error_and_mounts_nothing(
    coordinator: ModuleCoordinator,
    workspace: tuple[RecordingRegistry, Path],
    config: dict[str, Any],
    message: str,
) -> None:
    registry, _ = workspace
    settings = {"registry": registry, **config}
    with pytest.raises(ConfigurationError, match=message):
        await mount(coordinator, settings)
    assert coordinator.get("tools") == {}


async def test_amplifier_cores_own_validator_accepts_the_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # mount({}) roots the built-in tools at the current directory
    result = await ToolValidator().validate("toolwire.integrations.amplifier")
    failed = [c for c in result.checks if not c.passed and c.severity == "error"]
    assert failed == []
    assert result.passed


async def test_amplifier_cores_loader_mounts_the_module_by_its_entry_point(
    coordinator: ModuleCoordinator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The entry point pyproject.toml declares, installed as a distribution's metadata would be.
    dist = tmp_path / "site" / "toolwire_entry_point-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolwire-entry-point\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text(
        "[amplifier.modules]\ntoolwire = toolwire.integrations.amplifier:mount\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    (tmp_path / "root").mkdir()
    config = {"working_dir": str(tmp_path / "root"), "store_url": "memory://"}
    mount_closure = await ModuleLoader(coordinator=coordinator).load("toolwire", config)
    cleanup = await mount_closure(coordinator)
    assert "read_file" in coordinator.get("tools")
    await cleanup()
    assert coordinator.get("tools") == {}
