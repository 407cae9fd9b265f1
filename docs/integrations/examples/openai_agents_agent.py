"""An OpenAI Agents SDK agent with toolwire's file tools and a tool of your own."""

from __future__ import annotations

import anyio

from agents import Agent, Model, Runner
from toolwire import ToolRegistry, create_backends, tool
from toolwire.integrations.openai_agents import function_tools
from toolwire.toolbox import file_tools


@tool
def word_count(text: str) -> str:
    """Count the words of a text.

    Args:
        text: The text to count.
    """
    return str(len(text.split()))


async def main(model: Model | str = "gpt-5", root: str = ".") -> str:
    async with (
        create_backends(working_dir=root) as backends,
        ToolRegistry(backends) as registry,
    ):
        registry.register_all([*file_tools(), word_count])
        tools = function_tools(registry, working_dir=root)
        agent = Agent(name="assistant", model=model, tools=tools)
        result = await Runner.run(agent, "How many words are in notes.txt?")
        return str(result.final_output)


if __name__ == "__main__":
    print(anyio.run(main))
