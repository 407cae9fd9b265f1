"""A LangGraph agent with toolwire's file tools and a tool of your own."""

from __future__ import annotations

import anyio
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel

from toolwire import ToolRegistry, create_backends, tool
from toolwire.integrations.langchain import langchain_tools
from toolwire.toolbox import file_tools


@tool
def word_count(text: str) -> str:
    """Count the words of a text.

    Args:
        text: The text to count.
    """
    return str(len(text.split()))


async def main(model: BaseChatModel, root: str = ".") -> str:
    async with (
        create_backends(working_dir=root) as backends,
        ToolRegistry(backends) as registry,
    ):
        registry.register_all([*file_tools(), word_count])
        agent = create_agent(model, langchain_tools(registry, working_dir=root))
        state = await agent.ainvoke(
            {"messages": [("user", "How many words are in notes.txt?")]},
            {"configurable": {"thread_id": "demo"}},  # the session of the tools
        )
        return str(state["messages"][-1].content)


if __name__ == "__main__":
    from langchain_openai import ChatOpenAI  # pip install langchain-openai

    print(anyio.run(main, ChatOpenAI(model="gpt-5")))
