"""toolwire's tools mounted on an amplifier coordinator, called as an orchestrator would."""

from __future__ import annotations

from typing import Any

import anyio
from amplifier_core import ModuleCoordinator
from amplifier_core.models import HookResult

from toolwire.integrations.amplifier import mount


async def no_terminal(event: str, data: dict[str, Any]) -> HookResult:
    if data["tool_name"] == "terminal":
        return HookResult(action="deny", reason="no shell in this session")
    return HookResult(action="continue")


async def main(root: str = ".") -> list[str]:
    coordinator = ModuleCoordinator()
    coordinator.hooks.register("tool:pre", no_terminal)
    cleanup = await mount(coordinator, {"working_dir": root})
    try:
        tools = coordinator.get("tools")
        read = await tools["read_file"].execute({"path": "notes.txt"})
        shell = await tools["terminal"].execute({"command": "ls"})
        return [read.get_serialized_output(), shell.get_serialized_output()]
    finally:
        await cleanup()


if __name__ == "__main__":
    for text in anyio.run(main):
        print(text)
