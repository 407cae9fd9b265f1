"""Try the pydantic-ai toolset without a key: pydantic-ai's TestModel calls the tools."""

from __future__ import annotations

import anyio
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

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


async def main(root: str = ".") -> str:
    async with (
        create_backends(working_dir=root) as backends,
        ToolRegistry(backends) as registry,
    ):
        registry.register_all([*file_tools(), word_count])
        toolset = ToolwireToolset(registry, working_dir=root)
        # TestModel calls the tools named here with arguments made from their schemas, then
        # answers with what each returned: the text a real model would read.
        model = TestModel(call_tools=["word_count"])  # call_tools="all": every tool
        result = await Agent(model, toolsets=[toolset]).run("Count some words.")
        return result.output


if __name__ == "__main__":
    print(anyio.run(main))
