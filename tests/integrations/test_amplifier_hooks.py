"""What a ``tool:pre`` hook answers, honoured the way amplifier-core means it: ``ask_user`` asks
the coordinator's approval system, ``modify`` changes the input the call runs with; anything
the mount cannot honour refuses the call. Against the real amplifier-core coordinator and hook
registry, in the style of its own behaviour tests (``execute({"_tool_call_id": ...})``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amplifier_core import ModuleCoordinator
from amplifier_core.approval import ApprovalTimeoutError
from amplifier_core.models import HookResult, ToolResult
from integration_helpers import RecordingRegistry

from toolwire.integrations.amplifier import mount

pytestmark = pytest.mark.anyio


class Approver:
    """amplifier-core's ``ApprovalSystem`` protocol, answering as a user would."""

    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer
        self.asked: list[tuple[str, list[str]]] = []

    async def request_approval(
        self, prompt: str, options: list[str], timeout: float, default: str
    ) -> str:
        self.asked.append((prompt, options))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def ask_before_writing(events: list[dict[str, Any]]) -> Any:
    async def handler(event: str, data: dict[str, Any]) -> HookResult:
        events.append(data)
        if data["tool_name"] != "write_file":
            return HookResult(action="continue")
        return HookResult(
            action="ask_user",
            approval_prompt=f"Write {data['tool_input']['path']}?",
            approval_options=["Allow once", "Allow always", "Deny"],
            reason="writes need the user's approval",
        )

    return handler


async def write(coordinator: Any, workspace: tuple[RecordingRegistry, Path]) -> ToolResult:
    """Mount the workspace's tools and have the model write x.txt."""
    registry, root = workspace
    await mount(coordinator, {"registry": registry, "working_dir": str(root)})
    tools = coordinator.get("tools") if hasattr(coordinator, "get") else coordinator.tools
    result: ToolResult = await tools["write_file"].execute({"path": "x.txt", "content": "x\n"})
    return result


@pytest.mark.parametrize("answer", ["Allow once", "Allow always"])
async def test_ask_user_runs_the_call_only_when_the_user_allows_it(
    workspace: tuple[RecordingRegistry, Path], answer: str
) -> None:
    _, root = workspace
    approver = Approver(answer)
    coordinator = ModuleCoordinator(None, approver, None)
    coordinator.hooks.register("tool:pre", ask_before_writing([]))
    result = await write(coordinator, workspace)
    assert result.success, result.output
    assert approver.asked == [("Write x.txt?", ["Allow once", "Allow always", "Deny"])]
    assert (root / "x.txt").read_text(encoding="utf-8") == "x\n"


@pytest.mark.parametrize(
    "answer", ["Deny", "maybe", RuntimeError("the UI went away"), ApprovalTimeoutError()]
)
async def test_ask_user_refuses_the_call_unless_the_user_allows_it(
    workspace: tuple[RecordingRegistry, Path], answer: str | Exception
) -> None:
    _, root = workspace
    approver = Approver(answer)
    coordinator = ModuleCoordinator(None, approver, None)
    coordinator.hooks.register("tool:pre", ask_before_writing([]))
    result = await write(coordinator, workspace)
    assert not result.success
    assert result.error["type"] == "not_available"
    assert approver.asked
    assert not (root / "x.txt").exists()


async def test_ask_user_without_an_approval_system_refuses_the_call(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, root = workspace
    coordinator = ModuleCoordinator()  # no approval system
    coordinator.hooks.register("tool:pre", ask_before_writing([]))
    result = await write(coordinator, workspace)
    assert not result.success
    assert result.error["type"] == "not_available"
    assert not (root / "x.txt").exists()
    assert registry.batches == []


class SpecCoordinator:
    """A coordinator written to the spec: hooks and an approval system, no approval flow."""

    def __init__(self, hooks: Any, approval_system: Any = None) -> None:
        self.hooks = hooks
        self.approval_system = approval_system
        self.tools: dict[str, Any] = {}

    async def mount(self, point: str, module: Any, name: str | None = None) -> None:
        self.tools[name or module.name] = module

    async def unmount(self, point: str, name: str | None = None) -> None:
        self.tools.pop(name or "", None)


class AskingHooks:
    async def emit(self, event: str, data: dict[str, Any]) -> HookResult:
        if event == "tool:pre":
            return HookResult(action="ask_user", approval_prompt="Write?")
        return HookResult()


@pytest.mark.parametrize(("answer", "runs"), [("allow", True), ("Deny", False), (None, False)])
async def test_a_spec_coordinator_is_asked_through_its_approval_system(
    workspace: tuple[RecordingRegistry, Path], answer: str | None, runs: bool
) -> None:
    _, root = workspace
    approver = Approver(answer) if answer is not None else None
    result = await write(SpecCoordinator(AskingHooks(), approver), workspace)
    assert result.success is runs
    assert (root / "x.txt").exists() is runs
    if approver is not None:
        assert approver.asked == [("Write?", ["Allow", "Deny"])]


async def test_a_modified_tool_input_is_what_the_call_runs_with(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    _, root = workspace
    seen: list[dict[str, Any]] = []

    async def redirect(event: str, data: dict[str, Any]) -> HookResult:
        seen.append(data)
        if event == "tool:pre":
            changed = {**data["tool_input"], "path": "sandboxed/x.txt"}
            return HookResult(action="modify", data={**data, "tool_input": changed})
        return HookResult()

    coordinator = ModuleCoordinator()
    coordinator.hooks.register("tool:pre", redirect)
    coordinator.hooks.register("tool:post", redirect)
    result = await write(coordinator, workspace)
    assert result.success, result.output
    assert not (root / "x.txt").exists()
    assert (root / "sandboxed" / "x.txt").read_text(encoding="utf-8") == "x\n"
    post = seen[-1]
    assert post["tool_input"]["path"] == "sandboxed/x.txt"  # what ran, not what was asked


async def test_a_modified_input_is_validated_again(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    posted: list[dict[str, Any]] = []

    async def breaks(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="modify", data={**data, "tool_input": {"path": 3}})

    async def post(event: str, data: dict[str, Any]) -> HookResult:
        posted.append(data)
        return HookResult()

    coordinator = ModuleCoordinator()
    coordinator.hooks.register("tool:pre", breaks)
    coordinator.hooks.register("tool:post", post)
    result = await write(coordinator, workspace)
    assert not result.success
    assert result.error["type"] == "input_invalid"
    assert posted[0]["tool_input"] == {"path": 3}  # the input it was tried with


@pytest.mark.parametrize(
    "change",
    [{"tool_name": "read_file"}, {"tool_input": "rm -rf /"}],
    ids=["renamed", "not-an-object"],
)
async def test_a_modification_the_mount_cannot_honour_refuses_the_call(
    workspace: tuple[RecordingRegistry, Path], change: dict[str, Any]
) -> None:
    registry, _ = workspace

    async def modifies(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="modify", data={**data, **change})

    coordinator = ModuleCoordinator()
    coordinator.hooks.register("tool:pre", modifies)
    result = await write(coordinator, workspace)
    assert result.error["type"] == "not_available"
    assert registry.batches == []


async def test_the_tool_call_id_of_amplifiers_behaviour_tests_is_the_calls_id(
    workspace: tuple[RecordingRegistry, Path],
) -> None:
    registry, _ = workspace
    events: list[dict[str, Any]] = []
    coordinator = ModuleCoordinator()
    coordinator.hooks.register("tool:pre", ask_before_writing(events))
    await mount(coordinator, {"registry": registry})
    tool = coordinator.get("tools")["shout"]
    result = await tool.execute({"text": "hi", "_tool_call_id": "test-123"})
    assert isinstance(result, ToolResult)
    assert result.success, result.output  # the key is not an argument of the tool
    assert events[0]["tool_call_id"] == "test-123"
    assert events[0]["tool_input"] == {"text": "hi"}
    assert registry.batches[0].ids == ("test-123",)
    # amplifier-core's ToolBehaviorTests: a ToolResult, never an exception
    assert isinstance(await tool.execute({"_tool_call_id": "test-456"}), ToolResult)
