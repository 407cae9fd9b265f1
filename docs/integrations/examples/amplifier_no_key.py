"""Try the amplifier module without a key: the coordinator needs no provider to run tools, and
a scripted approval system answers the hook that asks before each write."""

from __future__ import annotations

from typing import Any

import anyio
from amplifier_core import ModuleCoordinator
from amplifier_core.models import HookResult

from toolwire.integrations.amplifier import mount


class ScriptedApprovals:
    """amplifier's approval protocol, answering as the user would (here: always once)."""

    async def request_approval(
        self, prompt: str, options: list[str], timeout: float, default: str
    ) -> str:
        print(f"asked: {prompt} {options}")
        return "Allow once"


async def ask_before_writing(event: str, data: dict[str, Any]) -> HookResult:
    if data["tool_name"] != "write_file":
        return HookResult(action="continue")
    return HookResult(action="ask_user", approval_prompt=f"Write {data['tool_input']['path']}?")


async def main(root: str = ".") -> str:
    coordinator = ModuleCoordinator(None, ScriptedApprovals(), None)
    coordinator.hooks.register("tool:pre", ask_before_writing)
    cleanup = await mount(coordinator, {"working_dir": root})
    try:
        write = coordinator.get("tools")["write_file"]
        result = await write.execute({"path": "hello.txt", "content": "hello\n"})
        return str(result.get_serialized_output())
    finally:
        await cleanup()


if __name__ == "__main__":
    print(anyio.run(main))
