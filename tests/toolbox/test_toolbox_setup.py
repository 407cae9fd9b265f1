"""Assembly: toolsets, declared capabilities, and the answers when seams are missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolbox_helpers import error_of, run

from toolwire.capabilities.resolver import CapabilityBackends
from toolwire.context import ToolContext
from toolwire.registry import ToolRegistry
from toolwire.results import ErrorCode
from toolwire.toolbox import default_tools, file_tools, process_tools, terminal_tools

PROCESS_TOOLS = [
    "process_start", "process_list", "process_logs",
    "process_stop", "process_wait", "process_watch",
]  # fmt: skip

BROWSER_TOOLS = [
    "browser_navigate", "browser_snapshot", "browser_click", "browser_type",
    "browser_press_key", "browser_select_option", "browser_wait_for", "browser_back",
    "browser_tabs", "browser_screenshot", "browser_console_messages", "browser_close",
]  # fmt: skip

pytestmark = pytest.mark.anyio


def test_default_tools_are_every_toolset_in_order() -> None:
    names = [t.name for t in default_tools()]
    assert names == [
        "read_file", "write_file", "patch_file", "search_files", "terminal", *PROCESS_TOOLS,
        "lint", "typecheck", "run_tests", "task",
        "memory_read", "memory_write", "session_search", "todo_write", "todo_read",
        "kanban_create", "kanban_get", "kanban_update", "kanban_move", "kanban_list",
        *BROWSER_TOOLS,
        "fetch_url", "web_search", "read_result",
    ]  # fmt: skip
    toolsets = {t.name: t.toolset for t in default_tools()}
    assert {toolsets[n] for n in ("fetch_url", "web_search")} == {"web"}
    assert {toolsets[n] for n in ("memory_read", "memory_write", "session_search")} == {"memory"}
    assert {toolsets[n] for n in ("todo_write", "todo_read")} == {"todo"}
    assert {toolsets[n] for n in names if n.startswith("kanban_")} == {"kanban"}


def test_toolsets_and_capabilities_are_declared() -> None:
    procs = process_tools()
    assert {t.toolset for t in file_tools()} == {"file"}
    assert {t.toolset for t in terminal_tools()} == {"terminal"}
    assert {t.toolset for t in procs} == {"process"}
    for t in file_tools():
        assert t.capabilities.fs_reach is not None
        assert t.capabilities.fs_reach.read == "from-personality"
    read_only = {t.name for t in file_tools() if t.capabilities.fs_reach.write == ()}  # type: ignore[union-attr]
    assert read_only == {"read_file", "search_files"}
    for t in [*terminal_tools(), *procs]:
        assert t.capabilities.process is not None
        assert t.capabilities.process.allowed_binaries == ("bash",)


@pytest.mark.parametrize(
    "name", ["read_file", "write_file", "patch_file", "search_files", "terminal", "process_start"]
)
async def test_a_registry_without_backends_refuses_them(name: str, work: Path) -> None:
    registry = ToolRegistry()
    registry.register_all(default_tools())
    args = {"path": "x", "content": "", "old_text": "a", "new_text": "b", "pattern": "p"}
    args = {k: v for k, v in args.items() if k in registry.get(name).schema["properties"]}  # type: ignore[union-attr]
    if name in ("terminal", "process_start"):
        args = {"command": f"touch {work}/ran"}
    ctx = ToolContext(session_id="s", working_dir=str(work))
    error = error_of(await run(registry, ctx, name, **args))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert not (work / "ran").exists()


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("read_file", {"path": "x"}),
        ("write_file", {"path": "x", "content": ""}),
        ("patch_file", {"path": "x", "old_text": "a", "new_text": "b"}),
        ("search_files", {"pattern": "p"}),
        ("terminal", {"command": "true"}),
    ],
)
async def test_a_missing_seam_is_not_available_with_a_setup_hint(
    name: str, args: dict[str, str], work: Path
) -> None:
    tool = next(t for t in default_tools() if t.name == name)
    result = await tool.execute(args, ToolContext(session_id="s", working_dir=str(work)))
    error = error_of(result)
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert "backends=create_backends()" in error.error


@pytest.mark.parametrize("name", PROCESS_TOOLS)
async def test_process_tools_without_the_process_seam_are_not_available(name: str) -> None:
    tool = next(t for t in process_tools() if t.name == name)
    args = {"command": "true", "process_id": "x", "patterns": ["x"]}
    args = {k: v for k, v in args.items() if k in tool.schema["properties"]}
    error = error_of(await tool.execute(args, ToolContext(session_id="s")))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert "backends=create_backends()" in error.error


async def test_process_tools_over_a_backend_without_background_say_how_to_get_it(
    work: Path,
) -> None:
    registry = ToolRegistry(backends=CapabilityBackends(fs_read=(str(work),)))
    registry.register_all(process_tools())
    ctx = ToolContext(session_id="s", working_dir=str(work))
    error = error_of(await run(registry, ctx, "process_start", command=f"touch {work}/ran"))
    assert error.code is ErrorCode.NOT_AVAILABLE
    assert error.error.startswith("process_start: the process backend runs no background")
    assert "LocalProcessBackend(ProcessManager(" in error.error
    assert not (work / "ran").exists()
