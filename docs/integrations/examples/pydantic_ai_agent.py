"""A pydantic-ai agent with toolwire's file tools and a tool of your own."""

from __future__ import annotations

import anyio
from pydantic_ai import Agent
from pydantic_ai.models import Model

from toolwire import ToolRegistry, create_backends, tool
from toolwire.integrations.pydantic_ai import ToolwireToolset
from toolwire.toolbox import file_tools


@tool
def word_count(text: str) -> str:
    """Count the words of a text.

    Args:
        text: The text to count.
    """
    return str(len(text.split()))


async def main(model: Model | str = "openai:gpt-5", root: str = ".") -> str:
    async with (
        create_backends(working_dir=root) as backends,
        ToolRegistry(backends) as registry,
    ):
        registry.register_all([*file_tools(), word_count])
        toolset = ToolwireToolset(registry, working_dir=root)
        agent = Agent(model, toolsets=[toolset])
        result = await agent.run("How many words are in notes.txt?")
        return result.output


if __name__ == "__main__":
    print(anyio.run(main))
