"""An OpenAI Agents SDK agent using `toolwire serve` through the SDK's own MCP client."""

from __future__ import annotations

import anyio
from agents.mcp import MCPServerStdio

from agents import Agent, Model, Runner


async def main(model: Model | str = "gpt-5", root: str = ".") -> str:
    server = MCPServerStdio(
        params={"command": "toolwire", "args": ["serve", "--stdio"], "cwd": root},
        cache_tools_list=True,
    )
    async with server:
        agent = Agent(name="assistant", model=model, mcp_servers=[server])
        result = await Runner.run(agent, "What is the first line of notes.txt?")
        return str(result.final_output)


if __name__ == "__main__":
    print(anyio.run(main))
